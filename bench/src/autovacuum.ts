import { PgDb } from '@smsgw/kit';

const serverUrl = () =>
  process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function withServer<T>(fn: (db: PgDb) => Promise<T>): Promise<T> {
  const db = new PgDb({ connectionString: serverUrl(), max: 1 });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

const autovacuumSetting = (db: PgDb) =>
  db.query<{ autovacuum: string }>('SHOW autovacuum').then((r) => r.rows[0]?.autovacuum);

/**
 * Runs `fn` with the Postgres server's autovacuum on, as on a production server: the shared test
 * servers here turn it off in their configuration, and without it the messages tables keep their
 * dead rows and no statistics, which is not what a user's gateway pays. ALTER SYSTEM plus a reload
 * changes it without a restart; the previous state is put back afterwards. BENCH_AUTOVACUUM=keep
 * leaves the server as it is. Answers what it did, for the report.
 */
export async function withAutovacuum<T>(fn: (autovacuum: string) => Promise<T>): Promise<T> {
  const before = await withServer(autovacuumSetting);
  if (before === 'on' || process.env['BENCH_AUTOVACUUM'] === 'keep')
    return fn(`${before ?? 'unknown'} (left as it was)`);
  await withServer(async (db) => {
    await db.query('ALTER SYSTEM SET autovacuum = on');
    await db.query('SELECT pg_reload_conf()');
  });
  try {
    // The reload reaches the server's processes a moment later.
    const deadline = Date.now() + 10_000;
    while ((await withServer(autovacuumSetting)) !== 'on') {
      if (Date.now() > deadline) throw new Error('autovacuum still off 10 s after the reload');
      await new Promise((r) => setTimeout(r, 200));
    }
    return await fn(`on for this run (was ${before ?? 'unknown'})`);
  } finally {
    await resetAutovacuum();
  }
}

/** Puts autovacuum back as the server's configuration files have it. */
export async function resetAutovacuum(): Promise<void> {
  await withServer(async (db) => {
    await db.query('ALTER SYSTEM RESET autovacuum');
    await db.query('SELECT pg_reload_conf()');
  });
}
