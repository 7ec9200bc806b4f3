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
  | { ok: true; cost: string; from: string | null; outboxId: string }
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

/**
 * Accepts a group of messages in one statement (one round trip, one commit), as if they had come
 * one after another in the given order: per account, each message is charged when the balance and
 * quota left by the earlier ones of the group still cover it (rate × segments; segments); the
 * others are refused and change nothing. The accounts are locked in id order, so concurrent groups
 * (other gateway replicas) cannot deadlock, and the walk below sees their latest balances.
 * The message row, its ledger row and the debit commit together (DESIGN.md promise 3). Messages are
 * written `queued` with one job_outbox row naming them all (JobOutbox); the outbox rows of earlier
 * statements whose jobs the broker confirmed since are deleted in the same statement ($11).
 */
const ACCEPT_GROUP_SQL = `
WITH RECURSIVE input AS (
  SELECT i.*, row_number() OVER (PARTITION BY i.account_id ORDER BY i.n) AS k
    FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::int[], $10::text[])
         WITH ORDINALITY AS i(id, account_id, batch_id, to_addr, from_addr, content, hex_content, coding, segments, params, n)
), account AS (
  SELECT a.id, a.balance, a.sms_count, a.rate, a.default_from
    FROM accounts a
   WHERE a.id IN (SELECT account_id FROM input)
   ORDER BY a.id
     FOR UPDATE
), priced AS (
  SELECT i.*, a.rate * i.segments AS cost, COALESCE(i.from_addr, a.default_from) AS sender
    FROM input i JOIN account a ON a.id = i.account_id
), walk (account_id, k, id, fits, short_of_credit, balance, sms_count) AS (
  SELECT a.id, 0::bigint, NULL::uuid, NULL::boolean, NULL::boolean, a.balance::numeric, a.sms_count
    FROM account a
  UNION ALL
  SELECT p.account_id, p.k, p.id, f.fits, f.short_of_credit,
         CASE WHEN f.fits THEN w.balance - p.cost ELSE w.balance END,
         CASE WHEN f.fits THEN w.sms_count - p.segments ELSE w.sms_count END
    FROM walk w
    JOIN priced p ON p.account_id = w.account_id AND p.k = w.k + 1,
         LATERAL (SELECT w.balance IS NOT NULL AND w.balance < p.cost AS short_of_credit,
                         (w.balance IS NULL OR w.balance >= p.cost) AND (w.sms_count IS NULL OR w.sms_count >= p.segments) AS fits) f
), accepted AS (
  SELECT p.* FROM walk w JOIN priced p ON p.id = w.id WHERE w.fits
), debit AS (
  UPDATE accounts a
     SET balance = a.balance - t.cost, sms_count = a.sms_count - t.segments, updated_at = now()
    FROM (SELECT account_id, sum(cost) AS cost, sum(segments) AS segments FROM accepted GROUP BY account_id) t
   WHERE a.id = t.account_id
), message AS (
  INSERT INTO messages (id, account_id, batch_id, state, to_addr, from_addr, content, hex_content, coding, segments, cost, params)
  SELECT id, account_id, batch_id, 'queued', to_addr, sender, content, hex_content, coding, segments, cost, params::jsonb
    FROM accepted ORDER BY n
  RETURNING id, account_id, batch_id, cost, segments
), ledger AS (
  INSERT INTO credit_ledger (account_id, amount, sms_count, reason, message_id, batch_id)
  SELECT account_id, -cost, -segments, 'debit', id, batch_id FROM message
), outbox AS (
  INSERT INTO job_outbox (message_ids) SELECT array_agg(id) FROM message HAVING count(*) > 0 RETURNING id
), cleared AS (
  DELETE FROM job_outbox WHERE id = ANY($11::bigint[])
)
SELECT w.id, w.fits, w.short_of_credit, p.cost::text AS cost, p.sender, (SELECT id::text FROM outbox) AS outbox_id
  FROM walk w JOIN priced p ON p.id = w.id`;

/** The gateway's SQL. Acceptance is one statement, so debits, messages and ledger rows commit together. */
export class MessageStore {
  constructor(private readonly db: Db) {}

  /** One message alone: a group of one (see acceptGroup). */
  async accept(m: NewMessage): Promise<AcceptOutcome> {
    const [outcome] = await this.acceptGroup([m]);
    return outcome;
  }

  /**
   * Accepts messages of one or several accounts in one statement, answering one outcome per
   * message in the same order. A message whose account does not exist is refused as short of credit.
   * The same statement deletes the job_outbox rows `clearedOutboxIds` (whose jobs are confirmed).
   */
  async acceptGroup(
    messages: readonly NewMessage[],
    clearedOutboxIds: readonly string[] = [],
  ): Promise<AcceptOutcome[]> {
    if (messages.length === 0) {
      await this.clearOutbox(clearedOutboxIds);
      return [];
    }
    type Row = {
      id: string;
      fits: boolean;
      short_of_credit: boolean;
      cost: string;
      sender: string | null;
      outbox_id: string | null;
    };
    const { rows } = await this.db.query<Row>(ACCEPT_GROUP_SQL, [
      messages.map((m) => m.id),
      messages.map((m) => m.accountId),
      messages.map((m) => m.batchId),
      messages.map((m) => m.to),
      messages.map((m) => m.from),
      messages.map((m) => m.content),
      messages.map((m) => m.hexContent),
      messages.map((m) => m.coding),
      messages.map((m) => m.segments),
      messages.map((m) => JSON.stringify(m.params)),
      clearedOutboxIds,
    ]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return messages.map((m): AcceptOutcome => {
      const row = byId.get(m.id);
      if (row?.fits)
        return {
          ok: true,
          cost: formatDecimal(row.cost),
          from: row.sender,
          outboxId: row.outbox_id!,
        };
      return {
        ok: false,
        reason: row && !row.short_of_credit ? 'QUOTA_EXCEEDED' : 'INSUFFICIENT_CREDIT',
      };
    });
  }

  /** The account's price of one segment, and of this many. */
  async price(
    accountId: string,
    segments: number,
  ): Promise<{ rate: string; cost: string } | undefined> {
    const { rows } = await this.db.query<{ rate: string; cost: string }>(
      'SELECT rate::text AS rate, (rate * $2::int)::text AS cost FROM accounts WHERE id = $1',
      [accountId, segments],
    );
    const row = rows[0];
    return row && { rate: formatDecimal(row.rate), cost: formatDecimal(row.cost) };
  }

  /** job_outbox rows whose jobs the broker confirmed (JobOutbox). */
  async clearOutbox(outboxIds: readonly string[]): Promise<void> {
    if (outboxIds.length === 0) return;
    await this.db.query(`DELETE FROM job_outbox WHERE id = ANY($1::bigint[])`, [outboxIds]);
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
