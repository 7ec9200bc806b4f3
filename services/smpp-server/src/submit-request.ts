import { inboundPart, type Concatenation } from '@smsgw/smsc';

/** What the server reads of a submit_sm (node-smpp's decoded fields, bytes kept raw). */
export interface SubmitFields {
  [field: string]: unknown;
  source_addr?: unknown;
  destination_addr?: unknown;
  esm_class?: unknown;
  data_coding?: unknown;
  priority_flag?: unknown;
  registered_delivery?: unknown;
  validity_period?: unknown;
  schedule_delivery_time?: unknown;
  sar_msg_ref_num?: unknown;
  sar_total_segments?: unknown;
  sar_segment_seqnum?: unknown;
}

/** One submit_sm as the acceptance sees it: the body /secure/send would get, and its place in a long message. */
export interface SubmitPart {
  to: string;
  from: string | undefined;
  coding: number;
  /** The part's body without UDH (the whole message's bytes when it is not a part). */
  body: Buffer;
  concatenation: Concatenation | null;
  /** registered_delivery asks for the final receipt (SMPP 3.4 5.2.17, bits 1-0 not 00). */
  receipt: boolean;
  priority: number | undefined;
  validityMinutes: number | undefined;
  sdt: string | undefined;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const int = (value: unknown): number => (typeof value === 'number' ? value : 0);

/** SMPP relative time YYMMDDhhmmss000R in minutes (months as 30 days, years as 365). */
function relativeMinutes(time: string): number {
  const n = (at: number): number => Number(time.slice(at, at + 2));
  const days = n(0) * 365 + n(2) * 30 + n(4);
  return days * 1440 + n(6) * 60 + n(8) + Math.ceil(n(10) / 60);
}

/** SMPP absolute time YYMMDDhhmmsstnn± as a date (nn quarter hours ahead of or behind UTC). */
function absoluteDate(time: string): Date {
  const n = (at: number): number => Number(time.slice(at, at + 2));
  const utc = Date.UTC(2000 + n(0), n(2) - 1, n(4), n(6), n(8), n(10), Number(time[12]) * 100);
  const offset = n(13) * 15 * 60_000;
  return new Date(time[15] === '+' ? utc - offset : utc + offset);
}

const SMPP_TIME = /^\d{12}\d[0-4]\d[-+R]$/;

/**
 * validity_period in minutes, as /secure/send takes it (node-smpp gives an SMPP time as a Date);
 * an ill-formed one is NaN, so that the acceptance refuses it (ESME_RINVEXPIRY).
 */
export function validityMinutes(value: unknown, now = Date.now()): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (value instanceof Date) return Math.ceil((value.getTime() - now) / 60_000);
  if (typeof value !== 'string' || !SMPP_TIME.test(value)) return Number.NaN;
  if (value.endsWith('R')) return relativeMinutes(value);
  return Math.ceil((absoluteDate(value).getTime() - now) / 60_000);
}

/** schedule_delivery_time as an SMPP absolute time in UTC, as /secure/send's sdt takes it. */
export function scheduleTime(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return 'invalid';
    const p = (n: number): string => String(n).padStart(2, '0');
    return `${p(value.getUTCFullYear() % 100)}${p(value.getUTCMonth() + 1)}${p(value.getUTCDate())}${p(value.getUTCHours())}${p(value.getUTCMinutes())}${p(value.getUTCSeconds())}000+`;
  }
  return typeof value === 'string' ? value : 'invalid';
}

/**
 * Reads a submit_sm: short_message, or message_payload when short_message is empty (SMPP 3.4
 * 5.3.2.32), its bytes and data_coding kept as they are, and the concatenation its UDH or SAR
 * TLVs say.
 */
export function readSubmit(pdu: SubmitFields, bytes: Buffer): SubmitPart {
  const sar =
    pdu.sar_msg_ref_num !== undefined
      ? {
          ref: int(pdu.sar_msg_ref_num),
          total: int(pdu.sar_total_segments),
          seq: int(pdu.sar_segment_seqnum),
        }
      : undefined;
  const part = inboundPart({
    from: '',
    to: '',
    dataCoding: int(pdu.data_coding),
    esmClass: int(pdu.esm_class),
    bytes,
    ...(sar && { sar }),
  });
  const source = text(pdu.source_addr);
  return {
    to: text(pdu.destination_addr),
    from: source === '' ? undefined : source,
    coding: int(pdu.data_coding),
    body: part.body,
    concatenation: part.concatenation,
    receipt: (int(pdu.registered_delivery) & 0x03) !== 0,
    priority: pdu.priority_flag === undefined ? undefined : int(pdu.priority_flag),
    validityMinutes: validityMinutes(pdu.validity_period),
    sdt: scheduleTime(pdu.schedule_delivery_time),
  };
}

/** The body of /secure/send for a whole message (its parts' bodies joined). */
export function sendBody(first: SubmitPart, body: Buffer): Record<string, unknown> {
  return {
    to: first.to,
    ...(first.from !== undefined && { from: first.from }),
    hex_content: body.toString('hex'),
    coding: first.coding,
    ...(first.priority !== undefined && first.priority !== 0 && { priority: first.priority }),
    ...(first.validityMinutes !== undefined && { validity_period: first.validityMinutes }),
    ...(first.sdt !== undefined && { sdt: first.sdt }),
  };
}
