import { formatDecimal, type BatchState, type BatchStatus } from '@smsgw/contracts';
import type { Db } from '@smsgw/kit';
import type { BatchPlan } from './batch-plan';

/**
 * Recipients per batch_entries row: a message with more recipients is stored as several rows in a
 * row. The scheduler reads a chunk of recipients at a time, and a slice of an array makes Postgres
 * decompress and walk the whole array: with one row of 100,000 recipients, a fifth of Postgres's
 * CPU for the batch went to that.
 */
const ENTRY_ROW_RECIPIENTS = 1000;

function slices<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += size) out.push(items.slice(at, at + size));
  return out;
}

export type BatchAcceptOutcome =
  { ok: true; cost: string } | { ok: false; reason: 'INSUFFICIENT_CREDIT' | 'QUOTA_EXCEEDED' };

interface StatusRow {
  id: string;
  state: BatchState;
  scheduled_at: Date | null;
  created_at: Date;
  completed_at: Date | null;
  total: number;
  expanded: number;
  queued: string;
  sent: string;
  delivered: string;
  failed: string;
  cancelled: string;
}

/** The gateway's batch SQL: acceptance and cancellation each change money and rows atomically. */
export class BatchStore {
  constructor(private readonly db: Db) {}

  /**
   * One statement: debit rate × Σ segments and the quota, record the batch, its entries (with
   * their recipient lists, not expanded) and the ledger row. Nothing is written when short.
   */
  async accept(batchId: string, accountId: string, plan: BatchPlan): Promise<BatchAcceptOutcome> {
    const entries = plan.entries
      .flatMap((e) =>
        slices(e.recipients, ENTRY_ROW_RECIPIENTS).map((recipients) => ({ e, recipients })),
      )
      .map(({ e, recipients }, seq) => ({
        seq,
        from_addr: e.from,
        content: e.content,
        hex_content: e.hexContent,
        coding: e.coding,
        segments: e.segments,
        params: e.params,
        recipients,
      }));
    const { rows } = await this.db.query<{ cost: string }>(
      `WITH debit AS (
         UPDATE accounts
            SET balance = balance - rate * $3::bigint,
                sms_count = sms_count - $3::bigint,
                updated_at = now()
          WHERE id = $2
            AND (balance IS NULL OR balance >= rate * $3::bigint)
            AND (sms_count IS NULL OR sms_count >= $3::bigint)
          RETURNING id, rate, rate * $3::bigint AS cost, default_from
       ), batch AS (
         INSERT INTO batches (id, account_id, state, callback_url, errback_url, scheduled_at, total, cost, segments)
         SELECT $1, debit.id, CASE WHEN $6::timestamptz IS NULL THEN 'running' ELSE 'scheduled' END, $4, $5, $6, $7, debit.cost, $3
           FROM debit
         RETURNING id, account_id, cost, segments
       ), entries AS (
         INSERT INTO batch_entries (batch_id, seq, from_addr, content, hex_content, coding, segments, unit_cost, params, recipients, size)
         SELECT batch.id, e.seq, COALESCE(e.from_addr, debit.default_from), e.content, e.hex_content, e.coding, e.segments,
                debit.rate * e.segments, e.params, ARRAY(SELECT jsonb_array_elements_text(e.recipients)), jsonb_array_length(e.recipients)
           FROM batch, debit,
                jsonb_to_recordset($8::jsonb) AS e(seq int, from_addr text, content text, hex_content text, coding smallint,
                                                   segments int, params jsonb, recipients jsonb)
       ), ledger AS (
         INSERT INTO credit_ledger (account_id, amount, sms_count, reason, batch_id)
         SELECT account_id, -cost, -segments, 'debit', id FROM batch
       )
       SELECT cost::text AS cost FROM batch`,
      [
        batchId,
        accountId,
        plan.segments,
        plan.callbackUrl,
        plan.errbackUrl,
        plan.scheduledAt,
        plan.recipients,
        JSON.stringify(entries),
      ],
    );
    const row = rows[0];
    if (row) return { ok: true, cost: formatDecimal(row.cost) };
    const short = await this.db.query<{ short_of_credit: boolean }>(
      'SELECT (balance IS NOT NULL AND balance < rate * $2::bigint) AS short_of_credit FROM accounts WHERE id = $1',
      [accountId, plan.segments],
    );
    return {
      ok: false,
      reason: short.rows[0]?.short_of_credit === false ? 'QUOTA_EXCEEDED' : 'INSUFFICIENT_CREDIT',
    };
  }

  /** Counts by outcome; recipients not expanded yet count as queued (or cancelled, once cancelled). */
  async status(accountId: string, batchId: string): Promise<BatchStatus['data'] | undefined> {
    const { rows } = await this.db.query<StatusRow>(
      `SELECT b.id, b.state, b.scheduled_at, b.created_at, b.completed_at, b.total, b.expanded,
              count(*) FILTER (WHERE m.state IN ('accepted', 'queued', 'submitting')) AS queued,
              count(*) FILTER (WHERE m.state IN ('submitted', 'delivered', 'undelivered', 'expired')) AS sent,
              count(*) FILTER (WHERE m.state = 'delivered') AS delivered,
              count(*) FILTER (WHERE m.state IN ('failed', 'rejected')) AS failed,
              count(*) FILTER (WHERE m.state = 'cancelled') AS cancelled
         FROM batches b LEFT JOIN messages m ON m.batch_id = b.id
        WHERE b.id = $1 AND b.account_id = $2
        GROUP BY b.id`,
      [batchId, accountId],
    );
    const r = rows[0];
    if (!r) return undefined;
    const unexpanded = r.total - r.expanded;
    const cancelled = r.state === 'cancelled';
    return {
      batchId: r.id,
      state: r.state,
      scheduledAt: r.scheduled_at ? r.scheduled_at.toISOString() : null,
      createdAt: r.created_at.toISOString(),
      completedAt: r.completed_at ? r.completed_at.toISOString() : null,
      counts: {
        total: r.total,
        queued: Number(r.queued) + (cancelled ? 0 : unexpanded),
        sent: Number(r.sent),
        delivered: Number(r.delivered),
        failed: Number(r.failed),
        cancelled: Number(r.cancelled) + (cancelled ? unexpanded : 0),
      },
    };
  }

  /**
   * Cancels what has not been submitted and refunds it. The batch row is locked first, so the
   * scheduler's expansion either finished (its messages are seen and cancelled) or has not begun.
   */
  async cancel(
    accountId: string,
    batchId: string,
  ): Promise<{ outcome: 'cancelled'; refunded: string } | { outcome: 'not_found' | 'finished' }> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ state: BatchState }>(
        'SELECT state FROM batches WHERE id = $1 AND account_id = $2 FOR UPDATE',
        [batchId, accountId],
      );
      const batch = rows[0];
      if (!batch) return { outcome: 'not_found' as const };
      if (batch.state === 'completed' || batch.state === 'cancelled')
        return { outcome: 'finished' as const };
      const refund = await tx.query<{ amount: string }>(
        `WITH b AS (
           UPDATE batches SET state = 'cancelled', completed_at = now(), updated_at = now()
            WHERE id = $1
           RETURNING id, account_id, next_entry, next_offset
         ), cancelled AS (
           UPDATE messages m SET state = 'cancelled', error = 'batch cancelled', updated_at = now()
             FROM b WHERE m.batch_id = b.id AND m.state IN ('accepted', 'queued')
           RETURNING m.cost, m.segments
         ), unexpanded AS (
           SELECT COALESCE(sum(e.unit_cost * left_over), 0) AS cost, COALESCE(sum(e.segments * left_over), 0) AS segments
             FROM b JOIN LATERAL (
               SELECT unit_cost, segments,
                      cardinality(recipients) - CASE WHEN seq = b.next_entry THEN b.next_offset ELSE 0 END AS left_over
                 FROM batch_entries WHERE batch_id = b.id AND seq >= b.next_entry
             ) e ON true
         ), total AS (
           SELECT (SELECT COALESCE(sum(cost), 0) FROM cancelled) + (SELECT cost FROM unexpanded) AS amount,
                  (SELECT COALESCE(sum(segments), 0) FROM cancelled) + (SELECT segments FROM unexpanded) AS segments
         ), account AS (
           UPDATE accounts a SET balance = a.balance + t.amount, sms_count = a.sms_count + t.segments, updated_at = now()
             FROM b, total t WHERE a.id = b.account_id
           RETURNING a.id
         ), ledger AS (
           INSERT INTO credit_ledger (account_id, amount, sms_count, reason, batch_id)
           SELECT b.account_id, t.amount, t.segments, 'refund', b.id FROM b, total t WHERE t.amount > 0 OR t.segments > 0
         )
         SELECT amount::text AS amount FROM total`,
        [batchId],
      );
      return {
        outcome: 'cancelled' as const,
        refunded: formatDecimal(refund.rows[0]?.amount ?? '0'),
      };
    });
  }
}
