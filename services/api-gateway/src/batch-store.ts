import { DEFAULT_CONNECTOR } from '@smsgw/contracts';
import {
  FINISHED_BATCH_STATES,
  formatDecimal,
  toMillionths,
  type BatchStatus,
} from '@smsgw/contracts';
import type { Db } from '@smsgw/kit';
import {
  acceptBatch,
  accountBalance,
  accountPrice,
  batchStatus,
  cancelBatch,
  isShortOfCredit,
  lockBatch,
} from '@smsgw/store';
import type { BatchPlan } from './batch-plan';
import type { CreditSnapshot } from './credit-snapshot';

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

/** The gateway's batches: acceptance and cancellation each change money and rows atomically. */
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
        report: e.report ?? null,
        recipients,
        route: e.routing?.route ?? null,
        connectors: e.routing?.connectors ?? [DEFAULT_CONNECTOR],
        price: e.routing?.price ?? null,
        price_version: e.routing?.priceVersion ?? null,
      }));
    const cost = await acceptBatch(this.db, {
      id: batchId,
      accountId,
      segments: plan.segments,
      recipients: plan.recipients,
      callbackUrl: plan.callbackUrl,
      errbackUrl: plan.errbackUrl,
      scheduledAt: plan.scheduledAt,
      entries,
      optedOut: plan.optedOut ?? 0,
    });
    if (cost !== undefined) return { ok: true, cost: formatDecimal(cost) };
    const shortOfCredit = await isShortOfCredit(this.db, accountId, plan.segments);
    return {
      ok: false,
      reason: shortOfCredit === false ? 'QUOTA_EXCEEDED' : 'INSUFFICIENT_CREDIT',
    };
  }

  /**
   * Balance, quota and the lowest price a message may have now (undefined: no such account), for
   * refusing a batch early: the account's rate, or a route's lower price.
   */
  async creditSnapshot(
    accountId: string,
    lowestRoutePrice: string | null,
  ): Promise<CreditSnapshot | undefined> {
    const [balance, price] = await Promise.all([
      accountBalance(this.db, accountId),
      accountPrice(this.db, accountId, 1),
    ]);
    if (!balance || !price) return undefined;
    const rate = toMillionths(price.rate);
    const lowest = lowestRoutePrice === null ? rate : toMillionths(lowestRoutePrice);
    return {
      // Postpaid: what may still be spent goes down to minus the credit limit.
      balance:
        balance.balance === null
          ? null
          : toMillionths(balance.balance) + toMillionths(balance.credit_limit),
      smsCount: balance.sms_count === null ? null : BigInt(balance.sms_count),
      rate: lowest < rate ? lowest : rate,
    };
  }

  /** Counts by outcome; recipients not expanded yet count as queued (or cancelled, once cancelled). */
  async status(accountId: string, batchId: string): Promise<BatchStatus['data'] | undefined> {
    const r = await batchStatus(this.db, accountId, batchId);
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
        unknown: Number(r.unknown),
        cancelled: Number(r.cancelled) + (cancelled ? unexpanded : 0),
        optedOut: r.opted_out,
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
      const state = await lockBatch(tx, accountId, batchId);
      if (!state) return { outcome: 'not_found' as const };
      if (FINISHED_BATCH_STATES.some((finished) => finished === state))
        return { outcome: 'finished' as const };
      const refunded = await cancelBatch(tx, batchId);
      return {
        outcome: 'cancelled' as const,
        refunded: formatDecimal(refunded ?? '0'),
      };
    });
  }
}
