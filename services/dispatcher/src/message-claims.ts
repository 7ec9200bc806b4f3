import type { Db } from '@smsgw/kit';
import type { MessageDlrEvent, MessageResultEvent, MessageState } from '@smsgw/contracts';
import type { DeliveryReceipt } from '@smsgw/smsc';
import {
  MessageGroups,
  claimMessages,
  completeMultipartMessages,
  failMessage,
  insertDeliveryReports,
  lockMessages,
  messageSubmitState,
  recordPartReceipts,
  failOverSubmitting,
  recordSinglePartReceipts,
  requeueMessage,
  type ClaimedMessageRow,
  type RequeuedAttempt,
  type CompletedMessageRow,
  type ReceiptColumns,
  type SubmittedMessage,
} from '@smsgw/store';

export type { SubmittedMessage } from '@smsgw/store';

export interface GroupClaim {
  /** The messages this claim took, in no particular order; the others were not claimable. */
  messages: ClaimedMessage[];
  /** Commits the claim; safe to call more than once. */
  commit(): Promise<void>;
}

export type ClaimedMessage = ClaimedMessageRow;

/** A delivery receipt with the message state it leads to. */
export type PartReceipt = Omit<DeliveryReceipt, 'state'> & { state: MessageState };

/** A group of receipts as the store's columns. */
function receiptColumns(receipts: readonly PartReceipt[]): ReceiptColumns {
  return {
    smscId: receipts.map((r) => r.smscId),
    state: receipts.map((r) => r.state),
    stat: receipts.map((r) => r.stat),
    err: receipts.map((r) => r.err),
  };
}

/**
 * The dispatcher's state transitions. Each is a conditional UPDATE on the expected state, which is
 * what makes a redelivered job harmless (docs/architecture.md § States, promise 2).
 */
export class MessageClaims {
  constructor(
    private readonly db: Db,
    /** The connector's name, reported in result events and delivery reports. */
    private readonly connector: string,
    /** The group statements, each on the partition that holds its messages (the store's). */
    private readonly groups = new MessageGroups(db),
  ) {}

  /**
   * Takes messages for submission inside a transaction left open: the caller commits it once their
   * submit_sm are written, before they leave (promise 2), so a crash before the writes leaves them
   * queued (and they are sent later) instead of `submitting` (and never sent), and a crash after
   * they left cannot leave them queued (and sent twice). A claim whose statement fails (a
   * partition dropped meanwhile) rolls back, and the job's redelivery claims again.
   */
  async begin(ids: readonly string[]): Promise<GroupClaim> {
    // Before the transaction: the store places them outside it (MessageGroups.place).
    const placed = await this.groups.place(ids);
    return new Promise<GroupClaim>((resolve, reject) => {
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const done = this.db.transaction(async (tx) => {
        const rows = await this.groups.claim(tx, placed, this.connector);
        resolve({
          messages: rows,
          commit: () => {
            release();
            return done;
          },
        });
        if (rows.length > 0) await released;
      });
      done.catch(reject);
    });
  }

  /**
   * Claims one message again as `submitting`, in a statement of its own: its submit_sm left while
   * the claim that covered it was lost with the database session. False when it is no longer
   * waiting (the lost claim did commit after all, or the message was cancelled meanwhile).
   */
  async claimWritten(id: string): Promise<boolean> {
    return (await claimMessages(this.db, [id], this.connector)).length === 1;
  }

  current(id: string): Promise<{ state: MessageState; age_ms: number } | undefined> {
    return messageSubmitState(this.db, id);
  }

  /**
   * Records the SMSC's answers of a group in one statement: each message's first id, and for a
   * message of several parts every part's id, for receipt matching. A message of one part is
   * matched by its own smsc_id: a part row for it would be most of this statement's cost.
   * Answers which messages moved (a redelivered job's did not).
   */
  async markSubmitted(
    messages: readonly SubmittedMessage[],
  ): Promise<Map<string, MessageResultEvent | null>> {
    if (messages.length === 0) return new Map();
    const rows = await this.groups.markSubmitted(messages, this.connector);
    return new Map(rows.map((r) => [r.id, r.payload]));
  }

  /**
   * A transient SMSC error: back to the queue for a later attempt, keeping the parts the SMSC
   * accepted; a message whose batch was cancelled meanwhile is cancelled instead.
   */
  requeue(
    id: string,
    error: string,
    attempt?: RequeuedAttempt,
  ): Promise<'queued' | 'cancelled' | undefined> {
    return requeueMessage(this.db, id, error, attempt);
  }

  /**
   * Refused by this connector's SMSC with a status the route passes on: the message waits again,
   * for the route's next connector (its job is published there); undefined when it has none.
   */
  failOver(id: string, error: string): Promise<string | undefined> {
    return failOverSubmitting(this.db, id, this.connector, error);
  }

  /**
   * Fails the message; with refund, gives back its cost and segments in the same statement and
   * records the refund in the ledger (a unique index makes a second refund impossible).
   */
  async fail(
    id: string,
    error: string,
    refund: boolean,
  ): Promise<{ failed: boolean; event: MessageResultEvent | null }> {
    return failMessage(this.db, id, error, refund, this.connector);
  }

  /**
   * Records a group of receipts. A message of one part takes its receipt's state. A message of
   * several parts takes, once every part has a final receipt, the aggregate state: delivered only
   * if every part was, else the first failing part's state. Answers, per receipt, its match
   * (undefined: no submitted message or part has that id yet); `final` is set on one receipt per
   * completed message.
   *
   * Receipts of single-part messages, nearly all of them, are recorded with their delivery reports
   * by one statement that commits on its own; the others (parts, and receipts that match nothing
   * yet) then by one transaction, where a message's last part completes it.
   */
  async recordReceipts(receipts: readonly PartReceipt[]): Promise<(ReceiptMatch | undefined)[]> {
    if (receipts.length === 0) return [];
    const at = new Date().toISOString();
    const singles = await recordSinglePartReceipts(
      this.db,
      receiptColumns(receipts),
      this.connector,
      receipts.map((r) => JSON.stringify(this.receiptReport(r, at))),
    );
    const matches = this.matchesOf(
      receipts,
      singles.map((r) => ({ smscId: r.smsc_id, messageId: r.id })),
      singles,
      at,
    );
    const rest = receipts.flatMap((_, i) => (matches[i] ? [] : [i]));
    if (rest.length === 0) return matches;
    const restMatches = await this.recordRestInTransaction(
      rest.map((i) => receipts[i]),
      at,
    );
    rest.forEach((i, k) => (matches[i] = restMatches[k]));
    return matches;
  }

  /**
   * The messages' rows are locked before the parts' aggregate is read, so parts of one message
   * recorded by two dispatchers at once still complete it; the reports are written in the same
   * transaction as the states they report.
   */
  private recordRestInTransaction(
    receipts: readonly PartReceipt[],
    at: string,
  ): Promise<(ReceiptMatch | undefined)[]> {
    return this.db.transaction(async (tx) => {
      const parts = await recordPartReceipts(tx, receiptColumns(receipts), this.connector);
      if (parts.length === 0) return receipts.map(() => undefined);
      const messageIds = [...new Set(parts.map((r) => r.message_id))];
      await lockMessages(tx, messageIds);
      const completed = await completeMultipartMessages(tx, messageIds);
      const matches = this.matchesOf(
        receipts,
        parts.map((p) => ({ smscId: p.smsc_id, messageId: p.message_id })),
        completed,
        at,
      );
      const reports = matches.flatMap((m) => (m?.report ? [m.report] : []));
      if (reports.length > 0) await insertDeliveryReports(tx, reports);
      return matches;
    });
  }

  /** Each receipt's match; a completed message is reported once, with its first receipt here. */
  private matchesOf(
    receipts: readonly PartReceipt[],
    matched: readonly { smscId: string; messageId: string }[],
    completed: readonly CompletedMessageRow[],
    at: string,
  ): (ReceiptMatch | undefined)[] {
    const messageOf = new Map(matched.map((m) => [m.smscId, m.messageId]));
    const finals = new Map(completed.map((row) => [row.id, row]));
    return receipts.map((receipt): ReceiptMatch | undefined => {
      const messageId = messageOf.get(receipt.smscId);
      if (!messageId) return undefined;
      const final = finals.get(messageId);
      if (!final) return { messageId, final: undefined };
      finals.delete(messageId);
      return {
        messageId,
        final: final.state,
        ...(final.report && { report: this.deliveryReport(messageId, final, receipt, at) }),
      };
    });
  }

  /**
   * The message.dlr event of a completed message: the status of its first failing part, else this
   * receipt's. For a message of one part it is the receipt's own report (receiptReport).
   */
  private deliveryReport(
    messageId: string,
    final: Pick<CompletedMessageRow, 'smsc_id' | 'failure_stat' | 'report'>,
    receipt: PartReceipt,
    at: string,
  ): MessageDlrEvent {
    return {
      messageId,
      ...this.receiptReport(receipt, at),
      smscId: final.smsc_id || receipt.smscId,
      status: final.failure_stat ? final.failure_stat.split(' ')[0] : receipt.stat,
      report: final.report,
    };
  }

  /** What a receipt reports, before it is known which message it is for. */
  private receiptReport(receipt: PartReceipt, at: string): Omit<MessageDlrEvent, 'messageId'> {
    return {
      smscId: receipt.smscId,
      status: receipt.stat,
      err: receipt.err || null,
      connector: this.connector,
      sub: receipt.sub,
      dlvrd: receipt.dlvrd,
      submitDate: receipt.submitDate,
      doneDate: receipt.doneDate,
      text: receipt.text,
      at,
    };
  }
}

export interface ReceiptMatch {
  messageId: string;
  /** Set when this receipt completed the message. */
  final: MessageState | undefined;
  /** The delivery report to publish (the client asked for one; it is in the outbox already). */
  report?: MessageDlrEvent;
}
