import { createLogger, openDb } from '@smsgw/kit';

/**
 * The tables autovacuum would analyze now, with its default thresholds (50 rows changed plus a
 * tenth of the table): tables only, not the partitioned parents, which autovacuum never analyzes.
 */
const DUE_FOR_ANALYZE = `
  SELECT format('%I.%I', s.schemaname, s.relname) AS name
    FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
   WHERE c.relkind = 'r' AND s.n_mod_since_analyze > 50 + 0.1 * GREATEST(c.reltuples, 0)`;

/**
 * Stands in for autovacuum's ANALYZE when the server has autovacuum off (as the shared test server
 * here does): without ANALYZE a fresh database keeps the planner's guesses, and statements that
 * look up messages by SMSC id scan the whole table, which no production server with autovacuum on
 * does for long. Every BENCH_ANALYZE_SECONDS (10; 0: never) it analyzes the tables autovacuum
 * would, its CPU counted with Postgres's. Answers what it does, for the figures.
 */
export async function startAnalyzer(
  databaseUrl: string,
): Promise<{ mode: string; stop(): Promise<void> }> {
  const seconds = Number(process.env['BENCH_ANALYZE_SECONDS'] ?? 10);
  const db = await openDb({ databaseUrl, dataDir: '', logger: createLogger('bench', 'silent') });
  const { rows } = await db.query<{ autovacuum: string }>('SHOW autovacuum');
  const autovacuum = rows[0]?.autovacuum ?? 'unknown';
  if (autovacuum === 'on' || seconds <= 0) {
    await db.close();
    return { mode: `autovacuum ${autovacuum}, no ANALYZE by the bench`, stop: async () => {} };
  }
  let running = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(async () => {
      const due = await db.query<{ name: string }>(DUE_FOR_ANALYZE);
      if (due.rows.length > 0) await db.query(`ANALYZE ${due.rows.map((r) => r.name).join(', ')}`);
    });
  }, seconds * 1000);
  return {
    mode: `autovacuum ${autovacuum}: the bench analyzes what autovacuum would, every ${seconds} s`,
    async stop() {
      clearInterval(timer);
      await running.catch(() => undefined);
      await db.close();
    },
  };
}
