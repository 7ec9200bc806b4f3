import type { ReportWish } from '@smsgw/contracts';
import type { Db, Queryable } from '@smsgw/kit';
import {
  accountCallbackSecrets,
  findInboundMessage,
  setInboundDelivery,
  batchCallbackUrls,
  callbackSecretsOfMessage,
  insertCallbackAttempt,
  markCallbackDone,
  markCallbackGivenUp,
  messageReportFacts,
  messageReportWish,
  releaseCallbackLease,
  scheduleCallbackRetry,
  setCallbackError,
  takeDueCallbacks,
  type CallbackAttempt,
  type MessageReportFacts,
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

  /** The same, inside the caller's transaction (an inbound message's route and its webhook call). */
  enqueueIn(tx: Queryable, a: Omit<CallbackAttempt, 'attempts'>): Promise<boolean> {
    return insertCallbackAttempt(tx, a);
  }

  /**
   * Takes due requests and leases them for leaseMs, so another notifier does not send them too;
   * a notifier that dies mid-request leaves them to be taken again when the lease ends.
   */
  takeDue(
    limit: number,
    leaseMs: number,
    skipHosts?: readonly string[],
  ): Promise<CallbackAttempt[]> {
    return takeDueCallbacks(this.db, limit, leaseMs, skipHosts);
  }

  /** Gives a leased request back unsent, due again after delayMs; no attempt is counted. */
  handBack(a: CallbackAttempt, delayMs: number): Promise<void> {
    return releaseCallbackLease(this.db, a, delayMs);
  }

  /** Done; an inbound message's webhook call also marks the message delivered. */
  async succeeded(a: CallbackAttempt, outcome: string): Promise<void> {
    if (a.kind !== 'mo') return markCallbackDone(this.db, a, outcome);
    await this.db.transaction(async (tx) => {
      await markCallbackDone(tx, a, outcome);
      await setInboundDelivery(tx, a.message_id, 'delivered');
    });
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
      if (a.kind === 'mo') {
        await setInboundDelivery(tx, a.message_id, 'failed');
        return;
      }
      await setCallbackError(
        tx,
        a.message_id,
        `${a.kind} to ${new URL(a.url).host} given up after ${a.attempts + 1} attempts: ${category}`,
      );
    });
  }

  /** The secrets that sign the message's callbacks: its account's, and the previous one in its grace. */
  async signingSecrets(messageId: string, kind?: string): Promise<string[]> {
    const accountId =
      kind === 'mo' ? (await findInboundMessage(this.db, messageId))?.account_id : undefined;
    const secrets =
      kind !== 'mo'
        ? await callbackSecretsOfMessage(this.db, messageId)
        : accountId
          ? await accountCallbackSecrets(this.db, accountId)
          : undefined;
    if (!secrets) return [];
    return secrets.previous === null ? [secrets.secret] : [secrets.secret, secrets.previous];
  }

  /** The message's report wish, for an event written before events carried it. */
  reportWish(messageId: string): Promise<ReportWish | undefined> {
    return messageReportWish(this.db, messageId);
  }

  /** The message's numbers and account name, for Kannel's report templates. */
  reportFacts(messageId: string): Promise<MessageReportFacts | undefined> {
    return messageReportFacts(this.db, messageId);
  }

  /** The URLs of a batch; a batch's URLs never change, so callers may cache them. */
  batchUrls(
    batchId: string,
  ): Promise<{ callback_url: string | null; errback_url: string | null } | undefined> {
    return batchCallbackUrls(this.db, batchId);
  }
}
