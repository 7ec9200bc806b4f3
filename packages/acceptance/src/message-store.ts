import {
  UNLIMITED,
  formatDecimal,
  type MessageEntry,
  type MessageStatus,
  type ReportWish,
} from '@smsgw/contracts';
import type { Db } from '@smsgw/kit';
import type { RouteDecision } from '@smsgw/routing';
import {
  acceptMessages,
  accountBalance,
  accountPrice,
  deleteJobOutboxRows,
  messageStatus,
} from '@smsgw/store';

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
  /** Whom its reports go to and for which events, decided at acceptance (decideReportWish). */
  report: ReportWish | null;
  /** Where it goes, decided at acceptance (MtRouter). */
  routing: RouteDecision;
  /** The way it came in. */
  entry: MessageEntry;
}

export type AcceptOutcome =
  | { ok: true; cost: string; from: string | null; outboxId: string }
  | { ok: false; reason: 'INSUFFICIENT_CREDIT' | 'QUOTA_EXCEEDED' };

/**
 * The gateway's messages. Acceptance is one statement (acceptMessages), so debits, messages and
 * ledger rows commit together.
 */
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
   * The same statement deletes the job_outbox rows `publishedOutboxIds` (whose jobs are confirmed).
   */
  async acceptGroup(
    messages: readonly NewMessage[],
    publishedOutboxIds: readonly string[] = [],
  ): Promise<AcceptOutcome[]> {
    if (messages.length === 0) {
      await this.deleteOutboxRows(publishedOutboxIds);
      return [];
    }
    const rows = await acceptMessages(
      this.db,
      {
        id: messages.map((m) => m.id),
        accountId: messages.map((m) => m.accountId),
        batchId: messages.map((m) => m.batchId),
        to: messages.map((m) => m.to),
        from: messages.map((m) => m.from),
        content: messages.map((m) => m.content),
        hexContent: messages.map((m) => m.hexContent),
        coding: messages.map((m) => m.coding),
        segments: messages.map((m) => m.segments),
        params: messages.map((m) => JSON.stringify(m.params)),
        reportMask: messages.map((m) => m.report?.mask ?? 0),
        reportUrl: messages.map((m) => m.report?.url ?? null),
        reportMethod: messages.map((m) => m.report?.method ?? null),
        reportStyle: messages.map((m) => m.report?.style ?? null),
        route: messages.map((m) => m.routing.route),
        connectors: messages.map((m) => m.routing.connectors.join(',')),
        price: messages.map((m) => m.routing.price),
        entry: messages.map((m) => m.entry),
        priceVersion: messages.map((m) => m.routing.priceVersion ?? null),
      },
      publishedOutboxIds,
    );
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

  /** The price of one segment, and of this many: the route's price, else the account's rate. */
  async price(
    accountId: string,
    segments: number,
    routePrice: string | null,
  ): Promise<{ rate: string; cost: string } | undefined> {
    const row = await accountPrice(this.db, accountId, segments, routePrice);
    return row && { rate: formatDecimal(row.rate), cost: formatDecimal(row.cost) };
  }

  /** job_outbox rows whose jobs the broker confirmed (JobOutboxRows). */
  async deleteOutboxRows(outboxIds: readonly string[]): Promise<void> {
    if (outboxIds.length === 0) return;
    await deleteJobOutboxRows(this.db, outboxIds);
  }

  async balance(accountId: string): Promise<{ balance: string; sms_count: string } | undefined> {
    const row = await accountBalance(this.db, accountId);
    if (!row) return undefined;
    return {
      balance: row.balance === null ? UNLIMITED : formatDecimal(row.balance),
      sms_count: row.sms_count === null ? UNLIMITED : row.sms_count,
    };
  }

  /** Only the owner sees a message; anyone else gets the same answer as for an unknown id. */
  async status(accountId: string, id: string): Promise<MessageStatus['data'] | undefined> {
    const r = await messageStatus(this.db, accountId, id);
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
      outcome: r.outcome,
      charged: r.charged,
      callbackError: r.callback_error,
      route: r.route,
      connector: r.connector,
      connectorTrail: r.connector_trail,
      createdAt: r.created_at.toISOString(),
      submittedAt: r.submitted_at ? r.submitted_at.toISOString() : null,
      updatedAt: r.updated_at.toISOString(),
    };
  }
}
