import {
  KANNEL_DLR,
  type MessageDlrEvent,
  type MessageResultEvent,
  type ReportWish,
} from '@smsgw/contracts';
import type { CallbackStore } from './callback-store';
import { fillKannelTemplate, type KannelFields } from './kannel-template';

/** A wish whose reports go to a URL (every style but smpp, whose receipts smpp-receipts.ts keeps). */
type UrlReport = ReportWish & { url: string; method: 'GET' | 'POST' };

/**
 * Delivery reports to `dlr-url` in the form the client's interface sends them
 * (docs/compatibility.md): Jasmin's parameter names for REST and Jasmin's HTTP interface (level 1
 * reports the SMSC's answer, level 2 the handset receipt, level 3 both; Jasmin's HTTP clients must
 * answer `ACK/Jasmin`), and Kannel's URL template with its placeholders filled in, for the events
 * its dlr-mask names.
 */
export class DlrCallbacks {
  constructor(private readonly store: CallbackStore) {}

  /**
   * Where the event's report goes. The store wrote the wish into the event when it names the
   * event's outcome (decideReportWish, outcome-outbox.ts), and it is trusted as it is; an event
   * written before events carried it (no `report`) has the message's wish read.
   */
  private async target(
    messageId: string,
    report: ReportWish | null | undefined,
    events: number,
  ): Promise<UrlReport | undefined> {
    const wish = report === undefined ? await this.store.reportWish(messageId) : report;
    if (!wish || wish.url === null || wish.method === null) return undefined;
    if (report === undefined && (wish.mask & events) === 0) return undefined;
    return { ...wish, url: wish.url, method: wish.method };
  }

  /** Level 1: the SMSC accepted the message (ESME_ROK) or refused it (its error). */
  async onResult(event: MessageResultEvent): Promise<boolean> {
    const ok = event.outcome === 'submitted';
    const target = await this.target(
      event.messageId,
      event.report,
      ok ? KANNEL_DLR.smscSuccess : KANNEL_DLR.smscFail,
    );
    if (!target) return false;
    if (target.style === 'kannel') {
      // bb_smscconn.c: the SMSC's answer reported as `ACK/…` (8) or `NACK/…` (16).
      return this.kannel(event.messageId, 'dlr1', target, {
        dlrEvent: ok ? KANNEL_DLR.smscSuccess : KANNEL_DLR.smscFail,
        text: ok ? 'ACK/' : `NACK/${event.error ?? ''}`,
        foreignId: event.smscId ?? '',
        smscId: event.connector,
        time: new Date(event.at),
      });
    }
    const status = ok ? 'ESME_ROK' : (event.error ?? 'ESME_RUNKNOWNERR').split(/[ :]/)[0];
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

  /**
   * Level 2: the handset receipt, once every part of the message has one. Only final receipts
   * come (the dispatcher's), so a report is delivered (1) or not (2), never Kannel's buffered.
   */
  async onReceipt(event: MessageDlrEvent): Promise<boolean> {
    const dlrEvent = event.status === 'DELIVRD' ? KANNEL_DLR.success : KANNEL_DLR.fail;
    const target = await this.target(event.messageId, event.report, dlrEvent);
    if (!target) return false;
    if (target.style === 'kannel') {
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
   * A Kannel report: dlr.c's dlr_find reports an event only when the message's mask has its bit
   * (the store wrote the event for no other), and the URL is called with GET, filled in from the
   * message and the event.
   */
  private async kannel(
    messageId: string,
    kind: 'dlr1' | 'dlr2',
    target: UrlReport,
    report: Pick<KannelFields, 'dlrEvent' | 'text' | 'foreignId' | 'smscId' | 'time'>,
  ): Promise<boolean> {
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
