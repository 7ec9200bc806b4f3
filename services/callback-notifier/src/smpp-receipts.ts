import type { MessageDlrEvent } from '@smsgw/contracts';
import type { Db } from '@smsgw/kit';
import { insertSmppReceipt } from '@smsgw/store';

/**
 * The SMPP target of handset receipts: a message its customer submitted over SMPP with
 * registered_delivery gets its receipt kept for the account's SMPP sessions, which the
 * smpp-server delivers as deliver_sm (docs/smpp-server.md). Kept before the outcome's outbox row
 * is cleared, so a receipt is never lost between the two.
 */
export class SmppReceipts {
  constructor(private readonly db: Db) {}

  onReceipt(event: MessageDlrEvent): Promise<boolean> {
    return insertSmppReceipt(this.db, {
      messageId: event.messageId,
      stat: event.status,
      err: event.err,
      doneDate: event.doneDate,
      text: event.text,
    });
  }
}
