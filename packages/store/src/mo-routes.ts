import type { Queryable } from '@smsgw/kit';

/** Statements on `mo_routes` (migration 019). */

export interface MoRouteRow {
  name: string;
  position: number;
  to_number: string | null;
  to_exact: boolean;
  keyword: string | null;
  /** The connector whose messages it takes; null only when `any_connector`. */
  connector: string | null;
  /** Takes messages whatever connector brought them (an upstream may then claim any number). */
  any_connector: boolean;
  account_id: string;
  /** The account's username, for the admin API. */
  username: string;
  webhook_url: string | null;
  webhook_format: 'json' | 'jasmin' | 'kannel';
  /** kannel: the sms-service's answer is sent back to the sender (migration 033). */
  kannel_reply: boolean;
  /** Also delivered to the account's SMPP sessions as deliver_sm (migration 032). */
  smpp: boolean;
}

const COLUMNS = `r.name, r.position, r.to_number, r.to_exact, r.keyword, r.connector,
  r.any_connector, r.account_id, a.username, r.webhook_url, r.webhook_format, r.kannel_reply, r.smpp`;

/** Every route in the order they are tried (names the `accounts` table: a join). */
export async function listMoRoutes(db: Queryable): Promise<MoRouteRow[]> {
  const { rows } = await db.query<MoRouteRow>(
    `SELECT ${COLUMNS} FROM mo_routes r JOIN accounts a ON a.id = r.account_id ORDER BY r.position`,
  );
  return rows;
}

export type NewMoRoute = Omit<MoRouteRow, 'username'>;

/** Creates or replaces the route of that name; false when its position is another route's. */
export async function putMoRoute(db: Queryable, route: NewMoRoute): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO mo_routes (name, position, to_number, to_exact, keyword, connector, account_id,
                            webhook_url, webhook_format, any_connector, kannel_reply, smpp)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12
      WHERE NOT EXISTS (SELECT 1 FROM mo_routes WHERE position = $2 AND name <> $1)
     ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, to_number = EXCLUDED.to_number,
       to_exact = EXCLUDED.to_exact, keyword = EXCLUDED.keyword, connector = EXCLUDED.connector,
       account_id = EXCLUDED.account_id, webhook_url = EXCLUDED.webhook_url,
       webhook_format = EXCLUDED.webhook_format, any_connector = EXCLUDED.any_connector,
       kannel_reply = EXCLUDED.kannel_reply, smpp = EXCLUDED.smpp, updated_at = now()`,
    [
      route.name,
      route.position,
      route.to_number,
      route.to_exact,
      route.keyword,
      route.connector,
      route.account_id,
      route.webhook_url,
      route.webhook_format,
      route.any_connector,
      route.kannel_reply,
      route.smpp,
    ],
  );
  return rowCount === 1;
}

/** false when there was no such route. */
export async function deleteMoRoute(db: Queryable, name: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM mo_routes WHERE name = $1', [name]);
  return rowCount === 1;
}
