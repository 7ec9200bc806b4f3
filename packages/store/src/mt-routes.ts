import type { Queryable } from '@smsgw/kit';

/** Statements on `mt_routes` (migration 017). */

export interface MtRouteRow {
  name: string;
  position: number;
  kind: 'static' | 'weighted' | 'failover';
  targets: { connector: string; weight?: number }[];
  filters: Record<string, unknown>;
  reroute_on: string[];
  /** numeric as text, exact; null keeps the account's rate. */
  price: string | null;
}

/** Every route in the order they are tried. */
export async function listMtRoutes(db: Queryable): Promise<MtRouteRow[]> {
  const { rows } = await db.query<MtRouteRow>(
    `SELECT name, position, kind, targets, filters, reroute_on, price::text AS price
       FROM mt_routes ORDER BY position`,
  );
  return rows;
}

/** Changes whenever a route is added, changed or removed: routers reload the table only then. */
export async function mtRoutesVersion(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ version: string }>(
    `SELECT count(*)::text || '/' || COALESCE(max(updated_at)::text, '') AS version FROM mt_routes`,
  );
  return rows[0].version;
}
