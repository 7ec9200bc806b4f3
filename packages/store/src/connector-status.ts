import type { Queryable } from '@smsgw/kit';

/** Statements on `connector_status` (migration 020). */

export interface ConnectorStatusRow {
  connector: string;
  holder: string;
  bound: number;
  window_in_use: number;
  waiting: number;
  rate: number;
  last_error: string | null;
  last_error_at: Date | null;
  up_since: Date | null;
  down_since: Date | null;
  reported_at: Date;
}

export type ConnectorStatusReport = Omit<ConnectorStatusRow, 'holder' | 'reported_at'>;

/**
 * One dispatcher's report of the connectors whose binds it holds: its rows are replaced, and rows
 * of connectors it no longer holds are removed, in one statement.
 */
export async function reportConnectorStatus(
  db: Queryable,
  holder: string,
  rows: readonly ConnectorStatusReport[],
): Promise<void> {
  await db.query(
    `WITH gone AS (
         DELETE FROM connector_status WHERE holder = $1 AND NOT (connector = ANY($2::text[]))
       )
       INSERT INTO connector_status (connector, holder, bound, window_in_use, waiting, rate, last_error, last_error_at,
                                     up_since, down_since, reported_at)
       SELECT r.connector, $1, r.bound, r.window_in_use, r.waiting, r.rate, r.last_error, r.last_error_at, r.up_since,
              r.down_since, now()
         FROM unnest($2::text[], $3::int[], $4::int[], $5::int[], $6::real[], $7::text[], $8::timestamptz[],
                     $9::timestamptz[], $10::timestamptz[])
              AS r(connector, bound, window_in_use, waiting, rate, last_error, last_error_at, up_since, down_since)
       ON CONFLICT (connector, holder) DO UPDATE
          SET bound = EXCLUDED.bound, window_in_use = EXCLUDED.window_in_use, waiting = EXCLUDED.waiting,
              rate = EXCLUDED.rate, last_error = EXCLUDED.last_error, last_error_at = EXCLUDED.last_error_at,
              up_since = EXCLUDED.up_since, down_since = EXCLUDED.down_since, reported_at = now()`,
    [
      holder,
      rows.map((r) => r.connector),
      rows.map((r) => r.bound),
      rows.map((r) => r.window_in_use),
      rows.map((r) => r.waiting),
      rows.map((r) => r.rate),
      rows.map((r) => r.last_error),
      rows.map((r) => r.last_error_at),
      rows.map((r) => r.up_since),
      rows.map((r) => r.down_since),
    ],
  );
}

/** Rows reported within the last `freshSeconds`: a dispatcher that stopped reporting is gone. */
export async function listConnectorStatus(
  db: Queryable,
  freshSeconds: number,
): Promise<ConnectorStatusRow[]> {
  const { rows } = await db.query<ConnectorStatusRow>(
    `SELECT * FROM connector_status WHERE reported_at > now() - make_interval(secs => $1) ORDER BY connector, holder`,
    [freshSeconds],
  );
  return rows;
}

/** Removes this dispatcher's rows (on a graceful stop). */
export async function clearConnectorStatus(db: Queryable, holder: string): Promise<void> {
  await db.query(`DELETE FROM connector_status WHERE holder = $1`, [holder]);
}

/**
 * Removes rows no dispatcher has refreshed for `olderThanSeconds`: each dispatcher process has its
 * own holder name, so one that crashed leaves rows nobody else replaces.
 */
export async function deleteStaleConnectorStatus(
  db: Queryable,
  olderThanSeconds: number,
): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM connector_status WHERE reported_at < now() - make_interval(secs => $1)`,
    [olderThanSeconds],
  );
  return rowCount;
}
