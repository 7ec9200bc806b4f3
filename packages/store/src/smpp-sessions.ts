import type { Queryable } from '@smsgw/kit';

/**
 * Statements on `smpp_sessions` (migration 032): the sessions bound to the smpp-server replicas.
 * listSmppSessions also reads `accounts` (the system_id), named in accounts.ts.
 */

export interface NewSmppSession {
  id: string;
  accountId: string;
  bindType: 'transmitter' | 'receiver' | 'transceiver';
  address: string;
  since: Date;
  replica: string;
}

export interface SmppSessionRow {
  id: string;
  system_id: string;
  bind_type: 'transmitter' | 'receiver' | 'transceiver';
  address: string;
  since: Date;
  replica: string;
  window_in_use: number;
  submits_per_second: number;
}

export async function insertSmppSession(db: Queryable, s: NewSmppSession): Promise<void> {
  await db.query(
    `INSERT INTO smpp_sessions (id, account_id, bind_type, address, since, replica)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
    [s.id, s.accountId, s.bindType, s.address, s.since, s.replica],
  );
}

export async function deleteSmppSession(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM smpp_sessions WHERE id = $1', [id]);
}

/**
 * Refreshes a replica's sessions (their window in use and rate) in one statement and answers the
 * ids an operator asked to close.
 */
export async function refreshSmppSessions(
  db: Queryable,
  sessions: readonly { id: string; windowInUse: number; submitsPerSecond: number }[],
): Promise<string[]> {
  if (sessions.length === 0) return [];
  const { rows } = await db.query<{ id: string; close_requested: boolean }>(
    `UPDATE smpp_sessions s
        SET window_in_use = r.window_in_use, submits_per_second = r.submits_per_second, seen_at = now()
       FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, window_in_use integer, submits_per_second integer)
      WHERE s.id = r.id
      RETURNING s.id, s.close_requested`,
    [
      JSON.stringify(
        sessions.map((s) => ({
          id: s.id,
          window_in_use: s.windowInUse,
          submits_per_second: s.submitsPerSecond,
        })),
      ),
    ],
  );
  return rows.filter((r) => r.close_requested).map((r) => r.id);
}

/** The sessions refreshed within `freshSeconds`, oldest bind first; older rows are deleted. */
export async function listSmppSessions(
  db: Queryable,
  freshSeconds: number,
): Promise<SmppSessionRow[]> {
  await db.query(
    `DELETE FROM smpp_sessions WHERE seen_at < now() - make_interval(secs => $1 * 4)`,
    [freshSeconds],
  );
  const { rows } = await db.query<SmppSessionRow>(
    `SELECT s.id, a.username AS system_id, s.bind_type, s.address, s.since, s.replica,
            s.window_in_use, s.submits_per_second
       FROM smpp_sessions s JOIN accounts a ON a.id = s.account_id
      WHERE s.seen_at >= now() - make_interval(secs => $1)
      ORDER BY s.since, s.id`,
    [freshSeconds],
  );
  return rows;
}

/** Asks the session's replica to unbind it; false when no such session is bound. */
export async function requestSmppSessionClose(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE smpp_sessions SET close_requested = true WHERE id = $1',
    [id],
  );
  return rowCount === 1;
}
