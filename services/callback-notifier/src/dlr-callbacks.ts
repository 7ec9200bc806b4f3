import { reportTarget, type MessageDlrEvent, type MessageResultEvent } from '@smsgw/contracts';
import type { CallbackStore } from './callback-store';

/**
 * Delivery reports to `dlr-url`, with the reference's parameter names (docs/architecture.md § Wire
 * compatibility): level 1 reports the SMSC's answer, level 2 the handset receipt, level 3 both.
 */
export class DlrCallbacks {
  constructor(private readonly store: CallbackStore) {}

  private async request(
    messageId: string,
    level: 1 | 2,
  ): Promise<{ url: string; method: 'GET' | 'POST' } | undefined> {
    // The wish as decided at acceptance (decideReport), read as the store's SQL reads it.
    const target = reportTarget(await this.store.messageParams(messageId));
    if (!target || (target.level !== level && target.level !== 3)) return undefined;
    return { url: target.url, method: target.method };
  }

  /** Level 1: the SMSC accepted the message (ESME_ROK) or refused it (its error). */
  async onResult(event: MessageResultEvent): Promise<boolean> {
    const target = await this.request(event.messageId, 1);
    if (!target) return false;
    const status =
      event.outcome === 'submitted'
        ? 'ESME_ROK'
        : (event.error ?? 'ESME_RUNKNOWNERR').split(/[ :]/)[0];
    return this.store.enqueue({
      message_id: event.messageId,
      kind: 'dlr1',
      ...target,
      query: {
        id: event.messageId,
        level: '1',
        message_status: status,
        connector: event.connector,
      },
    });
  }

  /** Level 2: the handset receipt, once every part of the message has one. */
  async onReceipt(event: MessageDlrEvent): Promise<boolean> {
    const target = await this.request(event.messageId, 2);
    if (!target) return false;
    return this.store.enqueue({
      message_id: event.messageId,
      kind: 'dlr2',
      ...target,
      query: {
        id: event.messageId,
        id_smsc: event.smscId,
        message_status: event.status,
        level: '2',
        connector: event.connector,
        sub: event.sub,
        dlvrd: event.dlvrd,
        subdate: event.submitDate,
        donedate: event.doneDate,
        err: event.err ?? '',
        text: event.text,
      },
    });
  }
}
