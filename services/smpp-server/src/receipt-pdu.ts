import { decodeText, encodeText, TEXT_CODINGS } from '@smsgw/smsc';
import { SMPP_MESSAGE_STATE } from './message-state';

/** What a kept receipt holds (smpp_deliveries.pdu, written by the callback-notifier). */
export interface KeptReceipt {
  stat?: string;
  err?: string | null;
  doneDate?: string;
  text?: string;
  to?: string;
  from?: string | null;
  submitted?: string;
  content?: string | null;
  hexContent?: string | null;
  coding?: number | null;
}

/** The message's first characters for the receipt's text field: text content, or decoded bytes of a text coding. */
function messageText(kept: KeptReceipt): string {
  if (kept.content) return kept.content;
  if (!kept.hexContent || kept.coding === null || kept.coding === undefined) return '';
  if (!TEXT_CODINGS.includes(kept.coding)) return '';
  return decodeText(Buffer.from(kept.hexContent.slice(0, 160), 'hex'), kept.coding);
}

const STATES: Record<string, number> = {
  ENROUTE: SMPP_MESSAGE_STATE.ENROUTE,
  DELIVRD: SMPP_MESSAGE_STATE.DELIVERED,
  EXPIRED: SMPP_MESSAGE_STATE.EXPIRED,
  DELETED: SMPP_MESSAGE_STATE.DELETED,
  UNDELIV: SMPP_MESSAGE_STATE.UNDELIVERABLE,
  ACCEPTD: SMPP_MESSAGE_STATE.ACCEPTED,
  UNKNOWN: SMPP_MESSAGE_STATE.UNKNOWN,
  REJECTD: SMPP_MESSAGE_STATE.REJECTED,
};

/** YYMMDDhhmm in UTC, the date format of the receipt text (SMPP 3.4 Appendix B). */
function receiptDate(date: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${p(date.getUTCFullYear() % 100)}${p(date.getUTCMonth() + 1)}${p(date.getUTCDate())}${p(date.getUTCHours())}${p(date.getUTCMinutes())}`;
}

/** Printable ASCII only: the receipt goes out as data_coding 0 and must read the same everywhere. */
const ascii = (text: string): string => text.replace(/[^\x20-\x7e]/g, '?');

/**
 * The deliver_sm of a receipt (SMPP 3.4 Appendix B and 5.3.2.12, 5.3.2.35): esm_class 0x04, the
 * receipt text `id:… sub:… dlvrd:… submit date:… done date:… stat:… err:… text:…` with the id the
 * customer was given in submit_sm_resp, and the receipted_message_id and message_state TLVs.
 */
export function receiptDeliverSm(messageId: string, kept: KeptReceipt): Record<string, unknown> {
  const stat = (kept.stat ?? 'UNKNOWN').toUpperCase();
  const state = STATES[stat] ?? SMPP_MESSAGE_STATE.UNKNOWN;
  const submitted = kept.submitted ? new Date(kept.submitted) : new Date();
  const done = /^\d{10}/.test(kept.doneDate ?? '')
    ? kept.doneDate!.slice(0, 10)
    : receiptDate(new Date());
  const err = /^\d{1,3}$/.test(kept.err ?? '') ? kept.err!.padStart(3, '0') : '000';
  const text =
    `id:${messageId} sub:001 dlvrd:${stat === 'DELIVRD' ? '001' : '000'} ` +
    `submit date:${receiptDate(submitted)} done date:${done} stat:${stat} err:${err} ` +
    `text:${ascii(messageText(kept).slice(0, 20))}`;
  return {
    source_addr_ton: 1,
    source_addr_npi: 1,
    source_addr: kept.to ?? '',
    dest_addr_ton: kept.from && /\D/.test(kept.from) ? 5 : 1,
    dest_addr_npi: 1,
    destination_addr: kept.from ?? '',
    esm_class: 0x04,
    data_coding: 0,
    short_message: Buffer.from(text, 'latin1'),
    receipted_message_id: messageId,
    message_state: state,
  };
}

/** What a kept inbound message holds (smpp_deliveries.pdu, written by the callback-notifier). */
export interface KeptInbound {
  from?: string;
  to?: string;
  coding?: number;
  content?: string | null;
  hexContent?: string | null;
}

/**
 * The deliver_sm of an inbound message (a reply from a handset): its bytes as the operator's SMSC
 * delivered them, with their data_coding; a long one whole in message_payload (SMPP 3.4 5.3.2.32)
 * rather than cut into parts again.
 */
export function inboundDeliverSm(kept: KeptInbound): Record<string, unknown> {
  const coding = kept.coding ?? 0;
  const bytes = kept.hexContent
    ? Buffer.from(kept.hexContent, 'hex')
    : encodeText(kept.content ?? '', coding);
  return {
    source_addr_ton: 1,
    source_addr_npi: 1,
    source_addr: kept.from ?? '',
    dest_addr_ton: 1,
    dest_addr_npi: 1,
    destination_addr: kept.to ?? '',
    esm_class: 0,
    data_coding: coding,
    ...(bytes.length <= 254 ? { short_message: bytes } : { message_payload: bytes }),
  };
}
