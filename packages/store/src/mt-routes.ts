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

export async function getMtRoute(db: Queryable, name: string): Promise<MtRouteRow | undefined> {
  const { rows } = await db.query<MtRouteRow>(
    `SELECT name, position, kind, targets, filters, reroute_on, price::text AS price
       FROM mt_routes WHERE name = $1`,
    [name],
  );
  return rows[0];
}

/** Names of the routes that send through the connector, in the order they are tried. */
export async function routesUsingConnector(db: Queryable, connector: string): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT name FROM mt_routes WHERE targets @> jsonb_build_array(jsonb_build_object('connector', $1::text))
      ORDER BY position`,
    [connector],
  );
  return rows.map((r) => r.name);
}

/** Changes whenever a route is added, changed or removed: routers reload the table only then. */
export async function mtRoutesVersion(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ version: string }>(
    `SELECT count(*)::text || '/' || COALESCE(max(updated_at)::text, '') AS version FROM mt_routes`,
  );
  return rows[0].version;
}

export interface NewMtRoute {
  name: string;
  position: number;
  kind: MtRouteRow['kind'];
  targets: MtRouteRow['targets'];
  filters: Record<string, unknown>;
  reroute_on: readonly string[];
  price: string | null;
}

/**
 * Holds the route's name until the transaction ends, so that puts of one route (a new one too) are
 * stored one after the other, and tells whether `price` differs from the price stored (a route not
 * stored yet has none). Compared as numbers: 0.05 and 0.050000 are one price.
 */
export async function lockMtRoutePrice(
  tx: Queryable,
  name: string,
  price: string | null,
): Promise<{ changes: boolean }> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [
    JSON.stringify(['mt route', name]),
  ]);
  const { rows } = await tx.query<{ changes: boolean }>(
    `SELECT (SELECT price FROM mt_routes WHERE name = $1) IS DISTINCT FROM $2::numeric AS changes`,
    [name, price],
  );
  return rows[0];
}

/** Creates or replaces the route; false when another route has its position. */
export async function putMtRoute(db: Queryable, route: NewMtRoute): Promise<boolean> {
  try {
    const { rowCount } = await db.query(
      `INSERT INTO mt_routes (name, position, kind, targets, filters, reroute_on, price)
     SELECT $1, $2, $3, $4::jsonb, $5::jsonb, $6::text[], $7::numeric
      WHERE NOT EXISTS (SELECT 1 FROM mt_routes WHERE position = $2 AND name <> $1)
     ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, kind = EXCLUDED.kind, targets = EXCLUDED.targets,
       filters = EXCLUDED.filters, reroute_on = EXCLUDED.reroute_on, price = EXCLUDED.price, updated_at = now()`,
      [
        route.name,
        route.position,
        route.kind,
        JSON.stringify(route.targets),
        JSON.stringify(route.filters),
        route.reroute_on,
        route.price,
      ],
    );
    return rowCount === 1;
  } catch (err) {
    // A route taking the same position at the same moment passes NOT EXISTS and hits the unique key.
    if ((err as { constraint?: string }).constraint === 'mt_routes_position_key') return false;
    throw err;
  }
}

/** false when there was no such route. */
export async function deleteMtRoute(db: Queryable, name: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM mt_routes WHERE name = $1', [name]);
  return rowCount === 1;
}

/** Each route's TLV overrides, of the routes that have some (migration 031). */
export async function routeTlvs(
  db: Queryable,
): Promise<Map<string, { tag: number; value: string }[]>> {
  const { rows } = await db.query<{ name: string; tlvs: { tag: number; value: string }[] }>(
    `SELECT name, tlvs FROM mt_routes WHERE tlvs <> '[]'::jsonb`,
  );
  return new Map(rows.map((r) => [r.name, r.tlvs]));
}

/** Replaces the route's TLV overrides; false when there is no such route. */
export async function setRouteTlvs(
  db: Queryable,
  name: string,
  tlvs: readonly { tag: number; value: string }[],
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE mt_routes SET tlvs = $2::jsonb, tlvs_updated_at = clock_timestamp() WHERE name = $1`,
    [name, JSON.stringify(tlvs)],
  );
  return rowCount === 1;
}

/** Changes whenever a route's TLVs change (or a route with TLVs goes). */
export async function routeTlvsVersion(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ version: string }>(
    `SELECT count(*)::text || '/' || COALESCE(max(tlvs_updated_at)::text, '') AS version
       FROM mt_routes WHERE tlvs <> '[]'::jsonb OR tlvs_updated_at IS NOT NULL`,
  );
  return rows[0].version;
}
