import type { MessageDlrEvent } from '@smsgw/contracts';
import { GroupCommit, type Db } from '@smsgw/kit';
import { insertSmppReceipts, type SmppReceiptReport } from '@smsgw/store';

/**
 * The SMPP target of handset receipts: a message its customer submitted over SMPP with
 * registered_delivery gets its receipt kept for the account's SMPP sessions, which the
 * smpp-server delivers as deliver_sm (docs/smpp-server.md). Kept before the outcome's outbox row
 * is cleared, so a receipt is never lost between the two. The receipts handled while one
 * statement is in flight go together in the next, as the dispatcher's receipts do.
 */
export class SmppReceipts {
  private readonly kept: GroupCommit<SmppReceiptReport, undefined>;

  constructor(db: Db) {
    this.kept = new GroupCommit(
      async (reports) => {
        await insertSmppReceipts(db, reports);
        return reports.map(() => undefined);
      },
      { maxSize: 500 },
    );
  }

  /** The event's wish tells whose receipt it is; one written before events carried it, the store. */
  async onReceipt(event: MessageDlrEvent): Promise<void> {
    if (event.report !== undefined && event.report?.style !== 'smpp') return;
    await this.kept.add({
      messageId: event.messageId,
      stat: event.status,
      err: event.err,
      doneDate: event.doneDate,
      text: event.text,
    });
  }
}
