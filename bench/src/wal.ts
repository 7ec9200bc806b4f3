import { PgDb } from '@smsgw/kit';

/**
 * Bytes of WAL the Postgres server has written so far: what a replica or an archive has to carry
 * per message, and the disk's write rate at a given message rate (docs/scaling.md).
 */
export async function walBytes(): Promise<number> {
  const db = new PgDb({
    connectionString: process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    max: 1,
  });
  try {
    const { rows } = await db.query<{ bytes: string }>(
      `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS bytes`,
    );
    return Number(rows[0]?.bytes ?? NaN);
  } finally {
    await db.close();
  }
}
