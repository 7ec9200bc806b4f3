import { createHash } from 'node:crypto';
import type { Queryable } from '@smsgw/kit';

/** Statements on `smpp_access` (migration 032): an account's SMPP password and limits. */

export interface SmppAccessRow {
  account_id: string;
  username: string;
  password_hash: string;
  disabled: boolean;
  max_sessions: number;
  throughput: number | null;
  allowed_addresses: string[];
}

export interface SmppAccessSettings {
  passwordHash?: string | undefined;
  maxSessions?: number | undefined;
  /** null: no limit. */
  throughput?: number | null | undefined;
  allowedAddresses?: string[] | undefined;
}

const SELECT_ACCESS = `
  SELECT a.id AS account_id, a.username, s.password_hash, a.disabled_at IS NOT NULL AS disabled,
         s.max_sessions, s.throughput, s.allowed_addresses
    FROM smpp_access s JOIN accounts a ON a.id = s.account_id`;

/** The SMPP access of the account named `username` (its system_id); undefined without one. */
export async function findSmppAccessByUsername(
  db: Queryable,
  username: string,
): Promise<SmppAccessRow | undefined> {
  const { rows } = await db.query<SmppAccessRow>(`${SELECT_ACCESS} WHERE a.username = $1`, [
    username,
  ]);
  return rows[0];
}

/** The SMPP access of an account by its id; undefined without one. */
export async function findSmppAccess(
  db: Queryable,
  accountId: string,
): Promise<SmppAccessRow | undefined> {
  const { rows } = await db.query<SmppAccessRow>(`${SELECT_ACCESS} WHERE a.id = $1`, [accountId]);
  return rows[0];
}

/**
 * Creates or changes the account's SMPP access. Creating it needs a password; a change leaves the
 * settings not given as they were. False when there is no such access to change and no password
 * to create it with.
 */
export async function upsertSmppAccess(
  db: Queryable,
  accountId: string,
  settings: SmppAccessSettings,
): Promise<boolean> {
  const throughputGiven = settings.throughput !== undefined;
  const { rowCount } = await db.query(
    settings.passwordHash === undefined
      ? `UPDATE smpp_access SET
           max_sessions = COALESCE($2, max_sessions),
           throughput = CASE WHEN $3::boolean THEN $4 ELSE throughput END,
           allowed_addresses = COALESCE($5, allowed_addresses),
           updated_at = now()
         WHERE account_id = $1`
      : `INSERT INTO smpp_access (account_id, password_hash, max_sessions, throughput, allowed_addresses)
         VALUES ($1, $6, COALESCE($2, 4), $4, COALESCE($5, ARRAY[]::text[]))
         ON CONFLICT (account_id) DO UPDATE SET
           password_hash = EXCLUDED.password_hash,
           max_sessions = COALESCE($2, smpp_access.max_sessions),
           throughput = CASE WHEN $3::boolean THEN $4 ELSE smpp_access.throughput END,
           allowed_addresses = COALESCE($5, smpp_access.allowed_addresses),
           updated_at = now()`,
    [
      accountId,
      settings.maxSessions ?? null,
      throughputGiven,
      settings.throughput ?? null,
      settings.allowedAddresses ?? null,
      ...(settings.passwordHash === undefined ? [] : [settings.passwordHash]),
    ],
  );
  return rowCount === 1;
}

/** Takes the account's SMPP access away; false when it had none. */
export async function deleteSmppAccess(db: Queryable, accountId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM smpp_access WHERE account_id = $1', [accountId]);
  return rowCount === 1;
}

/**
 * Names an SMPP password by its hash without giving the hash away: a session bound with it is
 * told from one bound before the password changed.
 */
export function smppCredentialOf(passwordHash: string): string {
  return createHash('sha256').update(passwordHash).digest('hex').slice(0, 32);
}
