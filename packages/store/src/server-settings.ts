import type { Queryable } from '@smsgw/kit';

/**
 * Whether the Postgres server runs autovacuum. Without it tables keep their dead rows and their
 * statistics go stale, and the gateway's statements get slower by the minute under load
 * (docs/performance.md § The Kannel anchor); PGlite answers `on`.
 */
export async function autovacuumEnabled(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ autovacuum: string }>('SHOW autovacuum');
  return rows[0]?.autovacuum === 'on';
}
