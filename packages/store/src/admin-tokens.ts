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

/** Revokes a live token; undefined when there is no live token of that name. */
export async function revokeAdminToken(
  db: Queryable,
  name: string,
): Promise<AdminTokenRow | undefined> {
  const { rows } = await db.query<AdminTokenRow>(
    `UPDATE admin_tokens SET revoked_at = now() WHERE name = $1 AND revoked_at IS NULL
     RETURNING ${COLUMNS}`,
    [name],
  );
  return rows[0];
}
