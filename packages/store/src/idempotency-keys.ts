import type { Queryable } from '@smsgw/kit';

/**
 * Statements on `idempotency_keys`: the answer to the first request sent with an account's
 * Idempotency-Key, replayed to every later request with that key until the row expires.
 */

export interface IdempotencyRow {
  fingerprint: string;
  /** Null while the first request is in progress. */
  status: number | null;
  content_type: string | null;
  response: string | null;
}

export interface IdempotencyClaim {
  accountId: string;
  key: string;
  fingerprint: string;
  windowSeconds: number;
}

/**
 * Claims the key for a request: true when this request is the one to run (the key was free, or its
 * row had expired and is taken over). The primary key decides between two claims at once.
 */
export async function claimIdempotencyKey(
  db: Queryable,
  claim: IdempotencyClaim,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO idempotency_keys (account_id, key, fingerprint, expires_at)
          VALUES ($1, $2, $3, now() + make_interval(secs => $4::float8))
     ON CONFLICT (account_id, key) DO UPDATE
             SET fingerprint = EXCLUDED.fingerprint, status = NULL, content_type = NULL,
                 response = NULL, created_at = now(), expires_at = EXCLUDED.expires_at
           WHERE idempotency_keys.expires_at <= now()`,
    [claim.accountId, claim.key, claim.fingerprint, claim.windowSeconds],
  );
  return rowCount === 1;
}

/** The key's live row (undefined when there is none, or it has expired). */
export async function findIdempotencyKey(
  db: Queryable,
  accountId: string,
  key: string,
): Promise<IdempotencyRow | undefined> {
  const { rows } = await db.query<IdempotencyRow>(
    `SELECT fingerprint, status, content_type, response FROM idempotency_keys
      WHERE account_id = $1 AND key = $2 AND expires_at > now()`,
    [accountId, key],
  );
  return rows[0];
}

/** Records the first request's answer. */
export async function completeIdempotencyKey(
  db: Queryable,
  accountId: string,
  key: string,
  answer: { status: number; contentType: string | null; response: string },
): Promise<void> {
  await db.query(
    `UPDATE idempotency_keys SET status = $3, content_type = $4, response = $5
      WHERE account_id = $1 AND key = $2 AND status IS NULL`,
    [accountId, key, answer.status, answer.contentType, answer.response],
  );
}

/** Frees a key whose request was not carried out (a server error), so a retry runs anew. */
export async function releaseIdempotencyKey(
  db: Queryable,
  accountId: string,
  key: string,
): Promise<void> {
  await db.query(
    'DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND status IS NULL',
    [accountId, key],
  );
}

/** Deletes up to `limit` expired keys; returns how many it deleted. */
export async function deleteExpiredIdempotencyKeys(db: Queryable, limit: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM idempotency_keys k
      USING (SELECT account_id, key FROM idempotency_keys WHERE expires_at <= now()
              ORDER BY expires_at LIMIT $1) expired
      WHERE k.account_id = expired.account_id AND k.key = expired.key`,
    [limit],
  );
  return rowCount;
}
