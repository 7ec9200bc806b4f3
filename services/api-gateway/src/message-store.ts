import { UNLIMITED, formatDecimal, type MessageState, type MessageStatus } from '@smsgw/contracts';
import type { Db } from '@smsgw/kit';

export interface NewMessage {
  id: string;
  accountId: string;
  batchId: string | null;
  to: string;
  from: string | null;
  content: string | null;
  hexContent: string | null;
  coding: number;
  segments: number;
  params: Record<string, unknown>;
}

export type AcceptOutcome =
  | { ok: true; cost: string; from: string | null }
  | { ok: false; reason: 'INSUFFICIENT_CREDIT' | 'QUOTA_EXCEEDED' };

interface MessageRow {
  id: string;
  state: MessageState;
  to_addr: string;
  from_addr: string | null;
  batch_id: string | null;
  smsc_id: string | null;
  segments: number;
  coding: number;
  cost: string;
  attempts: number;
  error: string | null;
  callback_error: string | null;
  created_at: Date;
  submitted_at: Date | null;
  updated_at: Date;
}

/** The gateway's SQL. Acceptance is one statement, so debit, message and ledger row commit together. */
export class MessageStore {
  constructor(private readonly db: Db) {}

  /**
   * Debits rate × segments and the quota, records the message and its ledger row: one statement,
   * one round trip, atomic. No row comes back when the account cannot pay.
   */
  async accept(m: NewMessage): Promise<AcceptOutcome> {
    const { rows } = await this.db.query<{ cost: string; from_addr: string | null }>(
      `WITH debit AS (
         UPDATE accounts
            SET balance = balance - rate * $9::int,
                sms_count = sms_count - $9::int,
                updated_at = now()
          WHERE id = $2
            AND (balance IS NULL OR balance >= rate * $9::int)
            AND (sms_count IS NULL OR sms_count >= $9::int)
          RETURNING id, rate * $9::int AS cost, default_from
       ), message AS (
         INSERT INTO messages (id, account_id, batch_id, state, to_addr, from_addr, content, hex_content, coding, segments, cost, params)
         SELECT $1, debit.id, $3, 'accepted', $4, COALESCE($5, debit.default_from), $6, $7, $8, $9, debit.cost, $10::jsonb
           FROM debit
         RETURNING id, account_id, cost, from_addr, segments, batch_id
       ), ledger AS (
         INSERT INTO credit_ledger (account_id, amount, sms_count, reason, message_id, batch_id)
         SELECT account_id, -cost, -segments, 'debit', id, batch_id FROM message
       )
       SELECT cost::text AS cost, from_addr FROM message`,
      [m.id, m.accountId, m.batchId, m.to, m.from, m.content, m.hexContent, m.coding, m.segments, JSON.stringify(m.params)],
    );
    const row = rows[0];
    if (row) return { ok: true, cost: formatDecimal(row.cost), from: row.from_addr };
    return { ok: false, reason: await this.shortfall(m.accountId, m.segments) };
  }

  private async shortfall(accountId: string, segments: number): Promise<'INSUFFICIENT_CREDIT' | 'QUOTA_EXCEEDED'> {
    const { rows } = await this.db.query<{ short_of_credit: boolean }>(
      'SELECT (balance IS NOT NULL AND balance < rate * $2::int) AS short_of_credit FROM accounts WHERE id = $1',
      [accountId, segments],
    );
    return rows[0]?.short_of_credit === false ? 'QUOTA_EXCEEDED' : 'INSUFFICIENT_CREDIT';
  }

  /** The account's price of one segment, and of this many. */
  async price(accountId: string, segments: number): Promise<{ rate: string; cost: string } | undefined> {
    const { rows } = await this.db.query<{ rate: string; cost: string }>(
      'SELECT rate::text AS rate, (rate * $2::int)::text AS cost FROM accounts WHERE id = $1',
      [accountId, segments],
    );
    const row = rows[0];
    return row && { rate: formatDecimal(row.rate), cost: formatDecimal(row.cost) };
  }

  /** After the broker confirmed the job; the sweep re-publishes what stays `accepted`. */
  async markQueued(id: string): Promise<void> {
    await this.db.query(`UPDATE messages SET state = 'queued', updated_at = now() WHERE id = $1 AND state = 'accepted'`, [id]);
  }

  async balance(accountId: string): Promise<{ balance: string; sms_count: string } | undefined> {
    const { rows } = await this.db.query<{ balance: string | null; sms_count: string | null }>(
      'SELECT balance::text AS balance, sms_count::text AS sms_count FROM accounts WHERE id = $1',
      [accountId],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      balance: row.balance === null ? UNLIMITED : formatDecimal(row.balance),
      sms_count: row.sms_count === null ? UNLIMITED : row.sms_count,
    };
  }

  /** Only the owner sees a message; anyone else gets the same answer as for an unknown id. */
  async status(accountId: string, id: string): Promise<MessageStatus['data'] | undefined> {
    const { rows } = await this.db.query<MessageRow>(
      `SELECT id, state, to_addr, from_addr, batch_id, smsc_id, segments, coding, cost::text AS cost, attempts, error,
              callback_error, created_at, submitted_at, updated_at
         FROM messages WHERE id = $1 AND account_id = $2`,
      [id, accountId],
    );
    const r = rows[0];
    if (!r) return undefined;
    return {
      id: r.id,
      state: r.state,
      to: r.to_addr,
      from: r.from_addr,
      batchId: r.batch_id,
      smscId: r.smsc_id,
      segments: r.segments,
      coding: r.coding,
      cost: formatDecimal(r.cost),
      attempts: r.attempts,
      error: r.error,
      callbackError: r.callback_error,
      createdAt: r.created_at.toISOString(),
      submittedAt: r.submitted_at ? r.submitted_at.toISOString() : null,
      updatedAt: r.updated_at.toISOString(),
    };
  }
}
