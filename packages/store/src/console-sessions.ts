import type { Queryable } from '@smsgw/kit';

/**
 * Statements on `console_sessions` (migration 039, docs/console.md § Sessions). insertConsoleSession
 * and findConsoleSession also read `accounts` (a customer session's credential version, name and
 * state).
 */

export type ConsoleSessionKind = 'customer' | 'operator';

export interface NewConsoleSession {
  idHash: string;
  kind: ConsoleSessionKind;
  accountId?: string | undefined;
  adminTokenHash?: string | undefined;
  csrfToken: string;
  expiresAt: Date;
}

export interface ConsoleSessionRow {
  kind: ConsoleSessionKind;
  csrf_token: string;
  created_at: Date;
  seen_at: Date;
  expires_at: Date;
  account_id: string | null;
  admin_token_hash: string | null;
  /** A customer session's account as it is now; null for an operator's. */
  username: string | null;
  disabled: boolean | null;
  /** Whether the account's credentials are those the session was made with. */
  credentials_current: boolean | null;
}

/** Stores a new session; a customer's with its account's credential version as it is now. */
export async function insertConsoleSession(db: Queryable, s: NewConsoleSession): Promise<void> {
  await db.query(
    `INSERT INTO console_sessions (id_hash, kind, account_id, credential_version, admin_token_hash, csrf_token, expires_at)
     VALUES ($1, $2, $3::uuid, (SELECT credential_version FROM accounts WHERE id = $3::uuid), $4, $5, $6)`,
    [s.idHash, s.kind, s.accountId ?? null, s.adminTokenHash ?? null, s.csrfToken, s.expiresAt],
  );
}

/** The session of this hash unless it has expired at `now`, with its account as it is now. */
export async function findConsoleSession(
  db: Queryable,
  idHash: string,
  now: Date,
): Promise<ConsoleSessionRow | undefined> {
  const { rows } = await db.query<ConsoleSessionRow>(
    `SELECT s.kind, s.csrf_token, s.created_at, s.seen_at, s.expires_at, s.account_id::text AS account_id,
            s.admin_token_hash, a.username, a.disabled_at IS NOT NULL AS disabled,
            a.credential_version = s.credential_version AS credentials_current
       FROM console_sessions s LEFT JOIN accounts a ON a.id = s.account_id
      WHERE s.id_hash = $1 AND s.expires_at > $2`,
    [idHash, now],
  );
  return rows[0];
}

/** Moves a session's idle end on: seen now, ending at `expiresAt` (never past its absolute end). */
export async function touchConsoleSession(
  db: Queryable,
  idHash: string,
  seenAt: Date,
  expiresAt: Date,
): Promise<void> {
  await db.query(`UPDATE console_sessions SET seen_at = $2, expires_at = $3 WHERE id_hash = $1`, [
    idHash,
    seenAt,
    expiresAt,
  ]);
}

/** Ends a session (a logout); answers whether there was one. */
export async function deleteConsoleSession(db: Queryable, idHash: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM console_sessions WHERE id_hash = $1', [idHash]);
  return rowCount > 0;
}

/** Deletes up to `limit` sessions that ended before `now`; answers how many. */
export async function deleteExpiredConsoleSessions(
  db: Queryable,
  now: Date,
  limit: number,
): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM console_sessions WHERE id_hash IN
       (SELECT id_hash FROM console_sessions WHERE expires_at <= $1 LIMIT $2)`,
    [now, limit],
  );
  return rowCount;
}
