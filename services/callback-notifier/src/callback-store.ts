import type { Db } from '@smsgw/kit';

export type CallbackKind = 'callback' | 'errback' | 'dlr1' | 'dlr2';

export interface CallbackAttempt {
  message_id: string;
  kind: CallbackKind;
  url: string;
  method: 'GET' | 'POST';
  query: Record<string, string>;
  attempts: number;
}

/**
 * Callback requests as rows: one per message and kind, so a redelivered event adds nothing, and a
 * request is retried from Postgres, not from memory (promise 4).
 */
export class CallbackStore {
  constructor(private readonly db: Db) {}

  /** true when the request is new. */
  async enqueue(a: Omit<CallbackAttempt, 'attempts'>): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `INSERT INTO callback_attempts (message_id, kind, url, method, query, state)
       VALUES ($1, $2, $3, $4, $5::jsonb, 'pending') ON CONFLICT (message_id, kind) DO NOTHING`,
      [a.message_id, a.kind, a.url, a.method, JSON.stringify(a.query)],
    );
    return rowCount === 1;
  }

  /**
   * Takes due requests and leases them for leaseMs, so another notifier does not send them too;
   * a notifier that dies mid-request leaves them to be taken again when the lease ends.
   */
  async takeDue(limit: number, leaseMs: number): Promise<CallbackAttempt[]> {
    const { rows } = await this.db.query<CallbackAttempt>(
      `UPDATE callback_attempts c SET next_attempt_at = now() + make_interval(secs => $2::float8 / 1000), updated_at = now()
         FROM (SELECT message_id, kind FROM callback_attempts
                WHERE state = 'pending' AND next_attempt_at <= now()
                ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED) due
        WHERE c.message_id = due.message_id AND c.kind = due.kind
        RETURNING c.message_id, c.kind, c.url, c.method, c.query, c.attempts`,
      [limit, leaseMs],
    );
    return rows;
  }

  async succeeded(a: CallbackAttempt, outcome: string): Promise<void> {
    await this.db.query(
      `UPDATE callback_attempts SET state = 'done', attempts = attempts + 1, last_outcome = $3, updated_at = now()
        WHERE message_id = $1 AND kind = $2 AND state = 'pending'`,
      [a.message_id, a.kind, outcome],
    );
  }

  async retryLater(a: CallbackAttempt, outcome: string, delayMs: number): Promise<void> {
    await this.db.query(
      `UPDATE callback_attempts SET attempts = attempts + 1, last_outcome = $3,
              next_attempt_at = now() + make_interval(secs => $4::float8 / 1000), updated_at = now()
        WHERE message_id = $1 AND kind = $2 AND state = 'pending'`,
      [a.message_id, a.kind, outcome, delayMs],
    );
  }

  /**
   * Gives up, and records it on the message so the customer's support can see what happened: the
   * full outcome for the operator, only its category for the customer.
   */
  async gaveUp(a: CallbackAttempt, outcome: string, category: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `UPDATE callback_attempts SET state = 'given_up', attempts = attempts + 1, last_outcome = $3, updated_at = now()
          WHERE message_id = $1 AND kind = $2 AND state = 'pending'`,
        [a.message_id, a.kind, outcome],
      );
      await tx.query(`UPDATE messages SET callback_error = $2, updated_at = now() WHERE id = $1`, [
        a.message_id,
        `${a.kind} to ${new URL(a.url).host} given up after ${a.attempts + 1} attempts: ${category}`,
      ]);
    });
  }

  /** What the client asked for on a message (dlr, dlr_url, dlr_level, dlr_method). */
  async messageParams(messageId: string): Promise<Record<string, unknown> | undefined> {
    const { rows } = await this.db.query<{ params: Record<string, unknown> }>(
      'SELECT params FROM messages WHERE id = $1',
      [messageId],
    );
    return rows[0]?.params;
  }

  /** The URLs of a batch; a batch's URLs never change, so callers may cache them. */
  async batchUrls(
    batchId: string,
  ): Promise<{ callback_url: string | null; errback_url: string | null } | undefined> {
    const { rows } = await this.db.query<{
      callback_url: string | null;
      errback_url: string | null;
    }>('SELECT callback_url, errback_url FROM batches WHERE id = $1', [batchId]);
    return rows[0];
  }
}
