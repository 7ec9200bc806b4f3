import type { CustomTlv } from '@smsgw/contracts';
import { stripUdh } from '@smsgw/smsc';

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

/**
 * One submit_sm as the acceptance sees it: one message, whether it is a whole message or one part
 * of a long message the customer concatenated itself.
 */
export interface SubmitPart {
  to: string;
  from: string | undefined;
  coding: number;
  /** The content's bytes, without the UDH. */
  body: Buffer;
  /** The customer's own UDH (esm_class UDHI), its length octet first, sent on as it came. */
  udh: Buffer | undefined;
  /** The customer's SAR TLVs (sar_msg_ref_num, sar_total_segments, sar_segment_seqnum), sent on as they came. */
  sarTlvs: CustomTlv[];
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

/** SMPP 3.4 5.3.2.22-24: the SAR parameters' tags and octets (Integer 2, 1 and 1). */
const SAR_TLVS = [
  { field: 'sar_msg_ref_num', tag: 0x020c, octets: 2 },
  { field: 'sar_total_segments', tag: 0x020e, octets: 1 },
  { field: 'sar_segment_seqnum', tag: 0x020f, octets: 1 },
] as const;

/** The SAR TLVs a submit_sm carries, encoded again as SMPP 3.4 defines them (none: not a SAR part). */
function sarTlvs(pdu: SubmitFields): CustomTlv[] {
  if (SAR_TLVS.every((t) => pdu[t.field] === undefined)) return [];
  return SAR_TLVS.filter((t) => pdu[t.field] !== undefined).map((t) => {
    const value = Buffer.alloc(t.octets);
    value.writeUIntBE(int(pdu[t.field]) & (t.octets === 2 ? 0xffff : 0xff), 0, t.octets);
    return { tag: t.tag, value: value.toString('hex') };
  });
}

/**
 * Reads a submit_sm: short_message, or message_payload when short_message is empty (SMPP 3.4
 * 5.3.2.32), its bytes and data_coding kept as they are; with esm_class UDHI, the customer's UDH
 * apart from the content, and the SAR TLVs as they came.
 */
export function readSubmit(pdu: SubmitFields, bytes: Buffer): SubmitPart {
  const { udh, body } = stripUdh(bytes, int(pdu.esm_class));
  const source = text(pdu.source_addr);
  return {
    to: text(pdu.destination_addr),
    from: source === '' ? undefined : source,
    coding: int(pdu.data_coding),
    body,
    udh: udh ?? undefined,
    sarTlvs: sarTlvs(pdu),
    receipt: (int(pdu.registered_delivery) & 0x03) !== 0,
    priority: pdu.priority_flag === undefined ? undefined : int(pdu.priority_flag),
    validityMinutes: validityMinutes(pdu.validity_period),
    sdt: scheduleTime(pdu.schedule_delivery_time),
  };
}

/**
 * The body of /secure/send for one submit_sm: its bytes as hex_content with its data_coding, and
 * its UDH as the `udh` a client of the HTTP interfaces may give, which the gateway sends in front
 * of the content in one part (what makes it a part of the customer's long message).
 */
export function sendBody(part: SubmitPart): Record<string, unknown> {
  return {
    to: part.to,
    ...(part.from !== undefined && { from: part.from }),
    hex_content: part.body.toString('hex'),
    coding: part.coding,
    ...(part.udh !== undefined && { udh: part.udh.toString('hex') }),
    ...(part.priority !== undefined && part.priority !== 0 && { priority: part.priority }),
    ...(part.validityMinutes !== undefined && { validity_period: part.validityMinutes }),
    ...(part.sdt !== undefined && { sdt: part.sdt }),
  };
}
