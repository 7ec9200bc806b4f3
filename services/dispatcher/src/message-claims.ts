import type { Db } from '@smsgw/kit';
import type { MessageState } from '@smsgw/contracts';

export interface Claim {
  message: ClaimedMessage;
  /** Commits the claim; safe to call more than once. */
  commit(): Promise<void>;
}

export interface ClaimedMessage {
  id: string;
  account_id: string;
  batch_id: string | null;
  to_addr: string;
  from_addr: string | null;
  content: string | null;
  hex_content: string | null;
  coding: number;
  segments: number;
  params: Record<string, unknown>;
  attempts: number;
}

/**
 * The dispatcher's state transitions. Each is a conditional UPDATE on the expected state, which is
 * what makes a redelivered job harmless (DESIGN.md 4.5, promise 2).
 */
export class MessageClaims {
  constructor(private readonly db: Db) {}

  /**
   * Takes the message for submission inside a transaction left open: the caller commits it right
   * after submit_sm is written (promise 2), so a crash before the write leaves the message queued
   * (and it is sent later) instead of `submitting` (and never sent). undefined: not claimable.
   */
  async begin(id: string): Promise<Claim | undefined> {
    return new Promise<Claim | undefined>((resolve, reject) => {
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const done = this.db.transaction(async (tx) => {
        const { rows } = await tx.query<ClaimedMessage>(
          `UPDATE messages SET state = 'submitting', attempts = attempts + 1, updated_at = now()
            WHERE id = $1 AND state IN ('accepted', 'queued')
            RETURNING id, account_id, batch_id, to_addr, from_addr, content, hex_content, coding, segments, params, attempts`,
          [id],
        );
        const message = rows[0];
        if (!message) {
          resolve(undefined);
          return;
        }
        resolve({
          message,
          commit: () => {
            release();
            return done;
          },
        });
        await released;
      });
      done.catch(reject);
    });
  }

  async current(id: string): Promise<{ state: MessageState; age_ms: number } | undefined> {
    const { rows } = await this.db.query<{ state: MessageState; age_ms: number }>(
      `SELECT state, (EXTRACT(EPOCH FROM (now() - updated_at)) * 1000)::float8 AS age_ms FROM messages WHERE id = $1`,
      [id],
    );
    return rows[0];
  }

  /** Records the SMSC's answer: the message's first id, and every part's id for receipt matching. */
  async markSubmitted(id: string, smscIds: readonly string[]): Promise<boolean> {
    const { rows } = await this.db.query<{ id: string }>(
      `WITH submitted AS (
         UPDATE messages SET state = 'submitted', smsc_id = $2, submitted_at = now(), updated_at = now(), error = NULL
          WHERE id = $1 AND state = 'submitting'
         RETURNING id
       ), parts AS (
         INSERT INTO message_parts (message_id, seq, smsc_id)
         SELECT submitted.id, p.seq::smallint, p.smsc_id
           FROM submitted, unnest($3::text[]) WITH ORDINALITY AS p(smsc_id, seq)
       )
       SELECT id FROM submitted`,
      [id, smscIds[0] ?? '', smscIds],
    );
    return rows.length === 1;
  }

  /** A transient SMSC error: back to the queue for a later attempt. */
  async requeue(id: string, error: string): Promise<void> {
    await this.db.query(`UPDATE messages SET state = 'queued', error = $2, updated_at = now() WHERE id = $1 AND state = 'submitting'`, [
      id,
      error,
    ]);
  }

  /**
   * Fails the message; with refund, gives back its cost and segments in the same statement and
   * records the refund in the ledger (a unique index makes a second refund impossible).
   */
  async fail(id: string, error: string, refund: boolean): Promise<boolean> {
    const { rows } = await this.db.query<{ id: string }>(
      `WITH failed AS (
         UPDATE messages SET state = 'failed', error = $2, updated_at = now()
          WHERE id = $1 AND state = 'submitting'
          RETURNING id, account_id, batch_id, cost, segments
       ), refunded AS (
         UPDATE accounts a SET balance = a.balance + f.cost, sms_count = a.sms_count + f.segments, updated_at = now()
           FROM failed f WHERE $3::boolean AND a.id = f.account_id
         RETURNING a.id
       ), ledger AS (
         INSERT INTO credit_ledger (account_id, amount, sms_count, reason, message_id, batch_id)
         SELECT account_id, cost, segments, 'refund', id, batch_id FROM failed WHERE $3::boolean
       )
       SELECT id FROM failed`,
      [id, error, refund],
    );
    return rows.length === 1;
  }

  /**
   * Records one part's receipt. When every part of the message has a final receipt, the message
   * takes the aggregate state: delivered only if every part was, else the first part's failure.
   */
  async recordReceipt(smscId: string, state: MessageState, stat: string, err: string): Promise<ReceiptMatch | undefined> {
    return this.db.transaction(async (tx) => {
      const part = await tx.query<{ message_id: string }>(
        `UPDATE message_parts SET state = $2, stat = $3, err = $4, updated_at = now()
          WHERE smsc_id = $1 AND state = 'submitted'
          RETURNING message_id`,
        [smscId, state, stat, err],
      );
      const messageId = part.rows[0]?.message_id;
      if (!messageId) return undefined;
      const { rows } = await tx.query<{ open: string; first_failure: MessageState | null; failure_stat: string | null }>(
        `SELECT count(*) FILTER (WHERE state = 'submitted') AS open,
                (array_agg(state ORDER BY seq) FILTER (WHERE state <> 'delivered' AND state <> 'submitted'))[1] AS first_failure,
                (array_agg(stat || ' err:' || COALESCE(err, '') ORDER BY seq) FILTER (WHERE state <> 'delivered' AND state <> 'submitted'))[1] AS failure_stat
           FROM message_parts WHERE message_id = $1`,
        [messageId],
      );
      const summary = rows[0]!;
      if (summary.open !== '0') return { messageId, final: undefined };
      const finalState: MessageState = summary.first_failure ?? 'delivered';
      const updated = await tx.query<{ id: string; dlr: boolean; smsc_id: string; stat: string | null }>(
        `UPDATE messages SET state = $2, error = $3, updated_at = now()
          WHERE id = $1 AND state = 'submitted'
          RETURNING id, COALESCE(params->>'dlr' = 'yes', false) AS dlr, smsc_id`,
        [messageId, finalState, summary.failure_stat],
      );
      const row = updated.rows[0];
      if (!row) return { messageId, final: undefined };
      return { messageId, final: finalState, dlr: row.dlr, smscId: row.smsc_id, failureStat: summary.failure_stat };
    });
  }
}

export interface ReceiptMatch {
  messageId: string;
  /** Set when this receipt completed the message. */
  final: MessageState | undefined;
  /** The client asked for delivery reports. */
  dlr?: boolean;
  /** The message's SMSC id (its first part's). */
  smscId?: string;
  /** `stat err:…` of the first part that was not delivered. */
  failureStat?: string | null;
}
