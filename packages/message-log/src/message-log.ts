import type {
  BatchSearchQuery,
  BatchState,
  BatchSummary,
  MessageSearchQuery,
  MessageSummary,
  MessageTimeline,
} from '@smsgw/contracts';
import { formatDecimal } from '@smsgw/contracts';
import { timeIdFloor, type Queryable } from '@smsgw/kit';
import {
  messageStory as readMessageStory,
  messageStoryCallbacks,
  messageStoryLedger,
  messageStoryParts,
  messageStorySmppReceipt,
  searchBatches,
  searchMessages,
  type BatchListRow,
} from '@smsgw/store';
import { messageStory } from './message-story';
import { messageSummary, type MessageVisibility } from './message-views';
import { searchWindow } from './search-window';

export interface MessagePage {
  since: string;
  until: string;
  messages: MessageSummary[];
  next: string | null;
}

export interface BatchPage {
  since: string;
  until: string;
  batches: BatchSummary[];
  next: string | null;
}

/** The first id past a moment: a range's end, so that a message of that very millisecond is in. */
const idPast = (at: Date): string => timeIdFloor(new Date(at.getTime() + 1));

function batchSummary(row: BatchListRow, account: boolean): BatchSummary {
  return {
    batchId: row.id,
    ...(account && { account: row.username }),
    state: row.state,
    total: row.total,
    expanded: row.expanded,
    segments: Number(row.segments),
    cost: formatDecimal(row.cost),
    scheduledAt: row.scheduled_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at?.toISOString() ?? null,
  };
}

/**
 * The message log as operators and customers read it: searches over a bounded time range, newest
 * first with a cursor, and a message's whole story. The same for the admin API (across accounts)
 * and the customer API (`accountId` set to the caller's own).
 */
export class MessageLog {
  constructor(
    private readonly db: Queryable,
    /** SEARCH_MAX_DAYS. */
    private readonly maxDays: number,
  ) {}

  /**
   * One page of messages. The cursor is the id of the page's last message: ids only grow, so a
   * message accepted while someone pages is never shown on a later page, nor a message twice.
   */
  async searchMessages(
    query: MessageSearchQuery,
    scope: { accountId?: string | undefined; see: MessageVisibility },
  ): Promise<MessagePage> {
    const window = searchWindow(query, this.maxDays);
    const rows = await searchMessages(this.db, {
      fromId: timeIdFloor(window.since),
      untilId: idPast(window.until),
      beforeId: query.next,
      accountId: scope.accountId,
      to: query.to,
      from: query.from,
      states: query.state,
      batchId: query.batch,
      connector: query.connector,
      route: query.route,
      entry: query.entry,
      id: query.id,
      limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    return {
      since: window.since.toISOString(),
      until: window.until.toISOString(),
      messages: page.map((row) => messageSummary(row, scope.see)),
      next: rows.length > query.limit ? page[page.length - 1].id : null,
    };
  }

  /** One page of batches, newest first; the cursor is the last one's creation time and id. */
  async searchBatches(
    query: BatchSearchQuery & { state?: BatchState | undefined },
    scope: { accountId?: string | undefined; account: boolean },
  ): Promise<BatchPage> {
    const window = searchWindow(query, this.maxDays);
    const [createdUs, id] = query.next?.split('.') ?? [];
    const rows = await searchBatches(this.db, {
      since: window.since,
      until: new Date(window.until.getTime() + 1),
      accountId: scope.accountId,
      state: query.state,
      before: createdUs !== undefined && id !== undefined ? { createdUs, id } : undefined,
      limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      since: window.since.toISOString(),
      until: window.until.toISOString(),
      batches: page.map((row) => batchSummary(row, scope.account)),
      next: rows.length > query.limit && last ? `${last.created_us}.${last.id}` : null,
    };
  }

  /** A message's facts and story, whoever's it is (the admin API). */
  async story(id: string, see: MessageVisibility): Promise<MessageTimeline['data'] | undefined> {
    const message = await readMessageStory(this.db, id);
    if (!message) return undefined;
    const [parts, ledger, callbacks, smppReceipt] = await Promise.all([
      messageStoryParts(this.db, id),
      messageStoryLedger(this.db, id, message.batch_id),
      messageStoryCallbacks(this.db, id),
      messageStorySmppReceipt(this.db, id),
    ]);
    return {
      message: { ...messageSummary(message, see), attempts: message.attempts },
      events: messageStory({ message, parts, ledger, callbacks, smppReceipt }),
    };
  }
}
