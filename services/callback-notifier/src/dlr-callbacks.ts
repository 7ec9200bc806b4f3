import {
  KANNEL_DLR,
  reportTarget,
  type MessageDlrEvent,
  type MessageResultEvent,
  type ReportTarget,
} from '@smsgw/contracts';
import type { CallbackStore } from './callback-store';
import { fillKannelTemplate, type KannelFields } from './kannel-template';

/** Handset states that are not final: the message waits at the SMSC (Kannel's "buffered"). */
const BUFFERED_STATES = new Set(['ACCEPTD', 'ENROUTE']);

/**
 * Delivery reports to `dlr-url` in the form the client's interface sends them
 * (docs/compatibility.md): Jasmin's parameter names for REST and Jasmin's HTTP interface (level 1
 * reports the SMSC's answer, level 2 the handset receipt, level 3 both; Jasmin's HTTP clients must
 * answer `ACK/Jasmin`), and Kannel's URL template with its placeholders filled in, for the events
 * its dlr-mask names.
 */
export class DlrCallbacks {
  constructor(private readonly store: CallbackStore) {}

  private async request(messageId: string, level: 1 | 2): Promise<ReportTarget | undefined> {
    // The wish as decided at acceptance (decideReport), read as the store's SQL reads it.
    const target = reportTarget(await this.store.messageParams(messageId));
    if (!target || (target.level !== level && target.level !== 3)) return undefined;
    return target;
  }

  /** Level 1: the SMSC accepted the message (ESME_ROK) or refused it (its error). */
  async onResult(event: MessageResultEvent): Promise<boolean> {
    const target = await this.request(event.messageId, 1);
    if (!target) return false;
    if (target.style === 'kannel') {
      // bb_smscconn.c: the SMSC's answer reported as `ACK/…` (8) or `NACK/…` (16).
      const ok = event.outcome === 'submitted';
      return this.kannel(event.messageId, 'dlr1', target, {
        dlrEvent: ok ? KANNEL_DLR.smscSuccess : KANNEL_DLR.smscFail,
        text: ok ? 'ACK/' : `NACK/${event.error ?? ''}`,
        foreignId: event.smscId ?? '',
        smscId: event.connector,
        time: new Date(event.at),
      });
    }
    const status =
      event.outcome === 'submitted'
        ? 'ESME_ROK'
        : (event.error ?? 'ESME_RUNKNOWNERR').split(/[ :]/)[0];
    return this.store.enqueue({
      message_id: event.messageId,
      kind: 'dlr1',
      url: target.url,
      method: target.method,
      format: target.style === 'jasmin' ? 'jasmin-dlr' : 'form',
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
    if (target.style === 'kannel') {
      const dlrEvent =
        event.status === 'DELIVRD'
          ? KANNEL_DLR.success
          : BUFFERED_STATES.has(event.status)
            ? KANNEL_DLR.buffered
            : KANNEL_DLR.fail;
      // Kannel hands the receipt's text on as the SMSC wrote it (SMPP 3.4 Appendix B).
      const receipt =
        `id:${event.smscId} sub:${event.sub} dlvrd:${event.dlvrd} submit date:${event.submitDate}` +
        ` done date:${event.doneDate} stat:${event.status} err:${event.err ?? ''} text:${event.text}`;
      return this.kannel(event.messageId, 'dlr2', target, {
        dlrEvent,
        text: receipt,
        foreignId: event.smscId,
        smscId: event.connector,
        time: new Date(event.at),
      });
    }
    return this.store.enqueue({
      message_id: event.messageId,
      kind: 'dlr2',
      url: target.url,
      method: target.method,
      format: target.style === 'jasmin' ? 'jasmin-dlr' : 'form',
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

  /**
   * A Kannel report: dlr.c's dlr_find reports an event only when the message's mask has its bit,
   * and the URL is called with GET, filled in from the message and the event.
   */
  private async kannel(
    messageId: string,
    kind: 'dlr1' | 'dlr2',
    target: ReportTarget,
    report: Pick<KannelFields, 'dlrEvent' | 'text' | 'foreignId' | 'smscId' | 'time'>,
  ): Promise<boolean> {
    if (((target.mask ?? 0) & (report.dlrEvent ?? 0)) === 0) return false;
    const facts = await this.store.reportFacts(messageId);
    if (!facts) return false;
    const url = fillKannelTemplate(target.url, {
      ...report,
      id: messageId,
      handset: facts.to_addr,
      gateway: facts.from_addr ?? '',
      service: facts.username,
      dlrUrl: target.url,
    });
    return this.store.enqueue({
      message_id: messageId,
      kind,
      url,
      method: 'GET',
      format: 'kannel',
      query: {},
    });
  }
}
