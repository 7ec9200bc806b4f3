import type { ReportWish } from '@smsgw/contracts';
import { GroupCommit, type Db, type Queryable } from '@smsgw/kit';
import {
  accountCallbackSecrets,
  findInboundMessage,
  isInboundAccountDisabled,
  setInboundDelivery,
  batchCallbackUrls,
  callbackSecretsOfMessages,
  insertCallbackAttempt,
  insertCallbackAttempts,
  markCallbackDone,
  markCallbacksDone,
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

/** Most requests one grouped statement holds. */
const GROUP_SIZE = 500;

type DoneRequest = Pick<CallbackAttempt, 'message_id' | 'kind'> & { outcome: string };

/**
 * Callback requests as rows: one per message and kind, so a redelivered event adds nothing, and a
 * request is retried from Postgres, not from memory (promise 4).
 */
export class CallbackStore {
  /**
   * Requests made and requests done, each in one statement per group: those that arrive while one
   * statement is in flight go together in the next (docs/architecture.md § Promise 4).
   */
  private readonly inserts: GroupCommit<Omit<CallbackAttempt, 'attempts'>, boolean>;
  private readonly dones: GroupCommit<DoneRequest, undefined>;
  /** Kannel's report templates' facts, read for the reports of a moment in one statement. */
  private readonly facts: GroupCommit<string, MessageReportFacts | undefined>;

  constructor(private readonly db: Db) {
    this.inserts = new GroupCommit((rows) => insertCallbackAttempts(db, rows), {
      maxSize: GROUP_SIZE,
    });
    this.dones = new GroupCommit(
      async (rows) => {
        await markCallbacksDone(db, rows);
        return rows.map(() => undefined);
      },
      { maxSize: GROUP_SIZE },
    );
    this.facts = new GroupCommit(
      async (ids) => {
        const facts = await messageReportFacts(db, ids);
        return ids.map((id) => facts.get(id));
      },
      { maxSize: GROUP_SIZE },
    );
  }

  /** true when the request is new. */
  enqueue(a: Omit<CallbackAttempt, 'attempts'>): Promise<boolean> {
    return this.inserts.add(a);
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
    if (a.kind !== 'mo') return this.dones.add({ message_id: a.message_id, kind: a.kind, outcome });
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

  /**
   * The secrets that sign each request: its account's, and the previous one in its grace. Read
   * for every take, so a retry after a rotation is signed with the new secret; one statement for
   * the reports and results of a take, one per inbound message's webhook.
   */
  async signingSecrets(
    attempts: readonly CallbackAttempt[],
  ): Promise<Map<CallbackAttempt, string[]>> {
    const ofMessages = await callbackSecretsOfMessages(
      this.db,
      attempts.filter((a) => a.kind !== 'mo').map((a) => a.message_id),
    );
    const signing = new Map<CallbackAttempt, string[]>();
    for (const a of attempts) {
      const secrets =
        a.kind === 'mo' ? await this.inboundSecrets(a.message_id) : ofMessages.get(a.message_id);
      signing.set(
        a,
        !secrets
          ? []
          : secrets.previous === null
            ? [secrets.secret]
            : [secrets.secret, secrets.previous],
      );
    }
    return signing;
  }

  private async inboundSecrets(inboundId: string) {
    const accountId = (await findInboundMessage(this.db, inboundId))?.account_id;
    return accountId ? accountCallbackSecrets(this.db, accountId) : undefined;
  }

  /** Whether an inbound message's account is disabled now: its webhook is not called then. */
  inboundAccountDisabled(inboundId: string): Promise<boolean> {
    return isInboundAccountDisabled(this.db, inboundId);
  }

  /** The message's report wish, for an event written before events carried it. */
  reportWish(messageId: string): Promise<ReportWish | undefined> {
    return messageReportWish(this.db, messageId);
  }

  /** The message's numbers and account name, for Kannel's report templates. */
  reportFacts(messageId: string): Promise<MessageReportFacts | undefined> {
    return this.facts.add(messageId);
  }

  /** The URLs of a batch; a batch's URLs never change, so callers may cache them. */
  batchUrls(
    batchId: string,
  ): Promise<{ callback_url: string | null; errback_url: string | null } | undefined> {
    return batchCallbackUrls(this.db, batchId);
  }
}
