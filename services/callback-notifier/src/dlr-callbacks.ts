import type { MessageDlrEvent, MessageResultEvent } from '@smsgw/contracts';
import type { CallbackStore } from './callback-store';

interface DlrRequest {
  dlr?: string;
  dlr_url?: string;
  dlr_level?: number;
  dlr_method?: 'GET' | 'POST';
}

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
    const params = (await this.store.messageParams(messageId)) as DlrRequest | undefined;
    if (!params || params.dlr !== 'yes' || !params.dlr_url) return undefined;
    const wanted = params.dlr_level ?? 1;
    if (wanted !== level && wanted !== 3) return undefined;
    return { url: params.dlr_url, method: params.dlr_method ?? 'GET' };
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
