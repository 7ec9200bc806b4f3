import type { Db } from '@smsgw/kit';
import {
  batchCallbackUrls,
  insertCallbackAttempt,
  markCallbackDone,
  markCallbackGivenUp,
  messageParams,
  scheduleCallbackRetry,
  setCallbackError,
  takeDueCallbacks,
  type CallbackAttempt,
} from '@smsgw/store';

export type { CallbackAttempt, CallbackKind } from '@smsgw/store';

/**
 * Callback requests as rows: one per message and kind, so a redelivered event adds nothing, and a
 * request is retried from Postgres, not from memory (promise 4).
 */
export class CallbackStore {
  constructor(private readonly db: Db) {}

  /** true when the request is new. */
  enqueue(a: Omit<CallbackAttempt, 'attempts'>): Promise<boolean> {
    return insertCallbackAttempt(this.db, a);
  }

  /**
   * Takes due requests and leases them for leaseMs, so another notifier does not send them too;
   * a notifier that dies mid-request leaves them to be taken again when the lease ends.
   */
  takeDue(limit: number, leaseMs: number): Promise<CallbackAttempt[]> {
    return takeDueCallbacks(this.db, limit, leaseMs);
  }

  succeeded(a: CallbackAttempt, outcome: string): Promise<void> {
    return markCallbackDone(this.db, a, outcome);
  }

  retryLater(a: CallbackAttempt, outcome: string, delayMs: number): Promise<void> {
    return scheduleCallbackRetry(this.db, a, outcome, delayMs);
  }

  /**
   * Gives up, and records it on the message so the customer's support can see what happened: the
   * full outcome for the operator, only its category for the customer.
   */
  async gaveUp(a: CallbackAttempt, outcome: string, category: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await markCallbackGivenUp(tx, a, outcome);
      await setCallbackError(
        tx,
        a.message_id,
        `${a.kind} to ${new URL(a.url).host} given up after ${a.attempts + 1} attempts: ${category}`,
      );
    });
  }

  /** What the client asked for on a message (dlr, dlr_url, dlr_level, dlr_method). */
  messageParams(messageId: string): Promise<Record<string, unknown> | undefined> {
    return messageParams(this.db, messageId);
  }

  /** The URLs of a batch; a batch's URLs never change, so callers may cache them. */
  batchUrls(
    batchId: string,
  ): Promise<{ callback_url: string | null; errback_url: string | null } | undefined> {
    return batchCallbackUrls(this.db, batchId);
  }
}
