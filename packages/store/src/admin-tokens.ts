import type { Queryable } from '@smsgw/kit';

/** Statements on `admin_tokens` (migration 027). */

export interface AdminTokenRow {
  id: string;
  name: string;
  scopes: string[];
  created_by: string;
  created_at: Date;
  revoked_at: Date | null;
}

const COLUMNS = 'id::text AS id, name, scopes, created_by, created_at, revoked_at';

/** Stores a new token by its hash; undefined when the name is taken (by a live or revoked token). */
export async function insertAdminToken(
  db: Queryable,
  token: { name: string; tokenHash: string; scopes: readonly string[]; createdBy: string },
): Promise<AdminTokenRow | undefined> {
  const { rows } = await db.query<AdminTokenRow>(
    `INSERT INTO admin_tokens (name, token_hash, scopes, created_by) VALUES ($1, $2, $3::text[], $4)
       ON CONFLICT (name) DO NOTHING
     RETURNING ${COLUMNS}`,
    [token.name, token.tokenHash, token.scopes, token.createdBy],
  );
  return rows[0];
}

/** The live token with this hash. */
export async function findLiveAdminToken(
  db: Queryable,
  tokenHash: string,
): Promise<AdminTokenRow | undefined> {
  const { rows } = await db.query<AdminTokenRow>(
    `SELECT ${COLUMNS} FROM admin_tokens WHERE token_hash = $1 AND revoked_at IS NULL`,
    [tokenHash],
  );
  return rows[0];
}

/** Every token, revoked ones included, oldest first. */
export async function listAdminTokens(db: Queryable): Promise<AdminTokenRow[]> {
  const { rows } = await db.query<AdminTokenRow>(
    `SELECT ${COLUMNS} FROM admin_tokens ORDER BY admin_tokens.id`,
  );
  return rows;
}

/**
 * The live token of this name, locked until the transaction ends: `update` to revoke it, `share`
 * to make a token with its authority, so a token cannot be made by one being revoked meanwhile.
 */
export async function lockLiveAdminToken(
  tx: Queryable,
  name: string,
  mode: 'update' | 'share',
): Promise<AdminTokenRow | undefined> {
  const { rows } = await tx.query<AdminTokenRow>(
    `SELECT ${COLUMNS} FROM admin_tokens WHERE name = $1 AND revoked_at IS NULL
        FOR ${mode === 'update' ? 'UPDATE' : 'SHARE'}`,
    [name],
  );
  return rows[0];
}

/**
 * Revokes the token of this name and every live token made by it or by a token it made (a revoked
 * maker's tokens too: what it made got its authority from this one). Run in a transaction; the
 * revoked tokens, oldest first.
 */
export async function revokeAdminTokenAndMade(
  tx: Queryable,
  name: string,
): Promise<AdminTokenRow[]> {
  const revoked: AdminTokenRow[] = [];
  // Again until nothing is left: a token whose making committed after a round began (its maker
  // locked for share) is seen by the next round, and none is made once its maker is revoked.
  for (;;) {
    // The whole set locked by id before any is changed: two revocations of which one takes the
    // other's tokens then lock them in the same order, and one waits for the other instead of
    // both deadlocking (an UPDATE locks in whatever order its plan meets the rows). The token
    // revoked, locked first by the caller, is the oldest of its set. A token the other revoked
    // meanwhile is no longer live here and is left out.
    const { rows: locked } = await tx.query<{ id: string }>(
      `WITH RECURSIVE made AS (
         SELECT id, name FROM admin_tokens WHERE name = $1
         UNION
         SELECT t.id, t.name FROM admin_tokens t JOIN made ON t.created_by = made.name
       )
       SELECT id::text AS id FROM admin_tokens
        WHERE id IN (SELECT id FROM made) AND revoked_at IS NULL
        ORDER BY id
          FOR UPDATE`,
      [name],
    );
    if (locked.length === 0) break;
    const { rows } = await tx.query<AdminTokenRow>(
      `UPDATE admin_tokens SET revoked_at = now()
        WHERE id = ANY($1::bigint[]) AND revoked_at IS NULL
       RETURNING ${COLUMNS}`,
      [locked.map((r) => r.id)],
    );
    revoked.push(...rows);
  }
  return revoked.sort((a, b) => Number(BigInt(a.id) - BigInt(b.id)));
}
