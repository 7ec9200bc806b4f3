import type { Queryable } from '@smsgw/kit';

/**
 * Statements on `callback_attempts`: one row per message and kind of request to a customer URL,
 * so a redelivered event adds nothing, and a request is retried from Postgres, not from memory.
 * Statements elsewhere: message-partitions.ts addMessagePartition, dropMessagePartition and
 * clearDefaultMessagePartitions (its partitions, docs/retention.md);
 * message-search.ts messageStoryCallbacks (a message's requests, for its story).
 */

export type CallbackKind = 'callback' | 'errback' | 'dlr1' | 'dlr2' | 'mo';

/**
 * How the parameters travel (migrations 019, 033): form fields, a JSON body, Jasmin's MO form,
 * Jasmin's delivery report (form fields by `method`, acknowledged by `ACK/Jasmin`), or a URL of
 * Kannel's already filled in, called with GET as it is (a report, or an sms-service whose answer
 * is a reply).
 */
export type CallbackFormat =
  'form' | 'json' | 'jasmin' | 'jasmin-dlr' | 'kannel' | 'kannel-service';

export interface CallbackAttempt {
  message_id: string;
  kind: CallbackKind;
  url: string;
  method: 'GET' | 'POST';
  query: Record<string, string>;
  attempts: number;
  format?: CallbackFormat;
}

/** true when the request is new. */
export async function insertCallbackAttempt(
  db: Queryable,
  a: Omit<CallbackAttempt, 'attempts'>,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO callback_attempts (message_id, kind, url, method, query, state, format)
       VALUES ($1, $2, $3, $4, $5::jsonb, 'pending', $6) ON CONFLICT (message_id, kind) DO NOTHING`,
    [a.message_id, a.kind, a.url, a.method, JSON.stringify(a.query), a.format ?? 'form'],
  );
  return rowCount === 1;
}

/**
 * The same for many requests in one statement, answering per request in order whether it is new.
 * A request named twice in one call is new at most once.
 */
export async function insertCallbackAttempts(
  db: Queryable,
  attempts: readonly Omit<CallbackAttempt, 'attempts'>[],
): Promise<boolean[]> {
  if (attempts.length === 0) return [];
  const { rows } = await db.query<{ message_id: string; kind: string }>(
    `INSERT INTO callback_attempts (message_id, kind, url, method, query, state, format)
       SELECT id, kind, url, method, query::jsonb, 'pending', format
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
           AS a(id, kind, url, method, query, format)
       ON CONFLICT (message_id, kind) DO NOTHING RETURNING message_id, kind`,
    [
      attempts.map((a) => a.message_id),
      attempts.map((a) => a.kind),
      attempts.map((a) => a.url),
      attempts.map((a) => a.method),
      attempts.map((a) => JSON.stringify(a.query)),
      attempts.map((a) => a.format ?? 'form'),
    ],
  );
  const inserted = new Set(rows.map((r) => `${r.message_id}.${r.kind}`));
  return attempts.map((a) => inserted.delete(`${a.message_id}.${a.kind}`));
}

/**
 * The host (and port) of a callback URL, in lower case, as the notifier counts its requests ('' when
 * unreadable: such a request is never skipped).
 */
const URL_HOST = `COALESCE(lower(substring(url from '^[A-Za-z]+://(?:[^@/?#]*@)?([^/?#]+)')), '')`;

/**
 * Up to `limit` due requests, leased for `leaseMs` (their next attempt moved past it), so that
 * another notifier does not send them too. Requests to `skipHosts` (hosts the caller has as many
 * requests in progress as it allows) are left for later.
 */
export async function takeDueCallbacks(
  db: Queryable,
  limit: number,
  leaseMs: number,
  skipHosts: readonly string[] = [],
): Promise<CallbackAttempt[]> {
  const { rows } = await db.query<CallbackAttempt>(
    `UPDATE callback_attempts c SET next_attempt_at = now() + make_interval(secs => $2::float8 / 1000), updated_at = now()
         FROM (SELECT message_id, kind FROM callback_attempts
                WHERE state = 'pending' AND next_attempt_at <= now()
                  AND (cardinality($3::text[]) = 0 OR ${URL_HOST} <> ALL($3::text[]))
                ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED) due
        WHERE c.message_id = due.message_id AND c.kind = due.kind
        RETURNING c.message_id, c.kind, c.url, c.method, c.query, c.attempts, c.format`,
    [limit, leaseMs, skipHosts.map((h) => h.toLowerCase())],
  );
  return rows;
}

/**
 * Gives a leased request back unsent, due again after `delayMs` (no attempt counted): its host had
 * no place for it.
 */
export async function releaseCallbackLease(
  db: Queryable,
  a: Pick<CallbackAttempt, 'message_id' | 'kind'>,
  delayMs: number,
): Promise<void> {
  await db.query(
    `UPDATE callback_attempts SET next_attempt_at = now() + make_interval(secs => $3::float8 / 1000), updated_at = now()
        WHERE message_id = $1 AND kind = $2 AND state = 'pending'`,
    [a.message_id, a.kind, delayMs],
  );
}

export async function markCallbackDone(
  db: Queryable,
  a: Pick<CallbackAttempt, 'message_id' | 'kind'>,
  outcome: string,
): Promise<void> {
  await db.query(
    `UPDATE callback_attempts SET state = 'done', attempts = attempts + 1, last_outcome = $3, updated_at = now()
        WHERE message_id = $1 AND kind = $2 AND state = 'pending'`,
    [a.message_id, a.kind, outcome],
  );
}

/** Marks many requests done in one statement (markCallbackDone for each). */
export async function markCallbacksDone(
  db: Queryable,
  done: readonly (Pick<CallbackAttempt, 'message_id' | 'kind'> & { outcome: string })[],
): Promise<void> {
  if (done.length === 0) return;
  await db.query(
    `UPDATE callback_attempts c SET state = 'done', attempts = c.attempts + 1, last_outcome = d.outcome, updated_at = now()
        FROM unnest($1::uuid[], $2::text[], $3::text[]) AS d(message_id, kind, outcome)
       WHERE c.message_id = d.message_id AND c.kind = d.kind AND c.state = 'pending'`,
    [done.map((d) => d.message_id), done.map((d) => d.kind), done.map((d) => d.outcome)],
  );
}

export async function scheduleCallbackRetry(
  db: Queryable,
  a: Pick<CallbackAttempt, 'message_id' | 'kind'>,
  outcome: string,
  delayMs: number,
): Promise<void> {
  await db.query(
    `UPDATE callback_attempts SET attempts = attempts + 1, last_outcome = $3,
              next_attempt_at = now() + make_interval(secs => $4::float8 / 1000), updated_at = now()
        WHERE message_id = $1 AND kind = $2 AND state = 'pending'`,
    [a.message_id, a.kind, outcome, delayMs],
  );
}

export async function markCallbackGivenUp(
  tx: Queryable,
  a: Pick<CallbackAttempt, 'message_id' | 'kind'>,
  outcome: string,
): Promise<void> {
  await tx.query(
    `UPDATE callback_attempts SET state = 'given_up', attempts = attempts + 1, last_outcome = $3, updated_at = now()
          WHERE message_id = $1 AND kind = $2 AND state = 'pending'`,
    [a.message_id, a.kind, outcome],
  );
}

/** Callback requests not yet answered for good, by kind (the callback_attempts_due index covers it). */
export async function countPendingCallbacks(db: Queryable): Promise<Map<string, number>> {
  const { rows } = await db.query<{ kind: string; n: number }>(
    `SELECT kind, count(*)::int AS n FROM callback_attempts WHERE state = 'pending' GROUP BY kind`,
  );
  return new Map(rows.map((r) => [r.kind, r.n]));
}
