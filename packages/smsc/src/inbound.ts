import { createHash } from 'node:crypto';
import { timeOrderedId } from '@smsgw/kit';
import type { InboundRecord } from '@smsgw/contracts';
import { decodeText, stripUdh } from './encoding';
import { TEXT_CODINGS } from './encoding';

/** A mobile-originated message as one deliver_sm or data_sm carried it (one part of it, if long). */
export interface InboundPdu {
  /** Sender, the subscriber's number (digits, as the SMSC wrote it). */
  from: string;
  /** The number the subscriber wrote to (a short code, a long number). */
  to: string;
  dataCoding: number;
  esmClass: number;
  /** short_message, or message_payload when short_message is empty, UDH included. */
  bytes: Buffer;
  /** The SAR TLVs, when the SMSC carries concatenation in them instead of a UDH. */
  sar?: { ref: number; total: number; seq: number };
}

/** Where a part belongs: its message's reference and its place. */
export interface Concatenation {
  ref: number;
  total: number;
  seq: number;
}

/** The part's body without UDH, and its concatenation if it is one part of several. */
export interface InboundPart {
  body: Buffer;
  concatenation: Concatenation | null;
}

/**
 * Reads the concatenation of a part: a UDH information element 0x00 (8-bit reference) or 0x08
 * (16-bit reference), else the SAR TLVs. A "message" of one part is not concatenated.
 */
export function inboundPart(pdu: InboundPdu): InboundPart {
  const { udh, body } = stripUdh(pdu.bytes, pdu.esmClass);
  let concatenation: Concatenation | null = null;
  if (udh) {
    // udh[0] is the header's length; then IEI, length, data, repeated.
    for (let at = 1; at + 1 < udh.length;) {
      const iei = udh[at];
      const length = udh[at + 1];
      const data = udh.subarray(at + 2, at + 2 + length);
      if (iei === 0x00 && length === 3 && data.length === 3)
        concatenation = { ref: data[0], total: data[1], seq: data[2] };
      if (iei === 0x08 && length === 4 && data.length === 4)
        concatenation = { ref: data.readUInt16BE(0), total: data[2], seq: data[3] };
      at += 2 + length;
    }
  } else if (pdu.sar) {
    concatenation = pdu.sar;
  }
  if (concatenation && (concatenation.total < 2 || concatenation.seq < 1)) concatenation = null;
  return { body, concatenation };
}

/** Text of a whole message's bytes, or null when its coding is not text (kept as hex). */
export function inboundText(bytes: Buffer, dataCoding: number): string | null {
  if (!TEXT_CODINGS.includes(dataCoding)) return null;
  return decodeText(bytes, dataCoding);
}

/** The first word of a text, upper-cased: what keyword routing and opt-out look at. */
export function keywordOf(text: string | null): string | null {
  const word = text?.trim().split(/\s+/)[0];
  return word ? word.toUpperCase() : null;
}

/**
 * Text as Postgres can keep it: each NUL replaced by U+FFFD. A handset can send NUL (UCS-2 U+0000,
 * 0x00 in ASCII or Latin-1), and Postgres text refuses it.
 */
export const withoutNul = (text: string): string => text.replaceAll('\u0000', '\ufffd');

/**
 * The record of a whole inbound message: its bytes as received (joined, for a long one), and its
 * text when it has one (decoded from the bytes by default). A text with NUL in it is recorded with
 * U+FFFD in its place, beside the bytes as received, so that it is never refused (and redelivered
 * for ever). The duplicate keys hash what identifies a repeat: connector, sender, number, coding
 * and bytes, in fixed windows of `dedupWindowMs`.
 */
export function inboundRecord(m: {
  connector: string;
  from: string;
  to: string;
  coding: number;
  bytes: Buffer;
  content?: string | null;
  partsExpected: number;
  partsReceived: number;
  dedupWindowMs: number;
  now: number;
}): InboundRecord {
  const decoded = m.content !== undefined ? m.content : inboundText(m.bytes, m.coding);
  const hasNul = decoded?.includes('\u0000') === true;
  const content = decoded !== null && hasNul ? withoutNul(decoded) : decoded;
  const window = Math.floor(m.now / m.dedupWindowMs);
  const digest = createHash('sha256')
    .update([m.connector, m.from, m.to, m.coding, m.bytes.toString('hex')].join('\u0000'))
    .digest('hex');
  return {
    id: timeOrderedId(),
    connector: m.connector,
    // An SMSC's address fields may carry NUL too: kept, as U+FFFD.
    from: withoutNul(m.from),
    to: withoutNul(m.to),
    coding: m.coding,
    content,
    hexContent: content === null || hasNul ? m.bytes.toString('hex') : null,
    partsExpected: m.partsExpected,
    partsReceived: m.partsReceived,
    incomplete: m.partsReceived < m.partsExpected,
    keyword: keywordOf(content),
    dedupKey: `${digest}:${window}`,
    previousDedupKey: `${digest}:${window - 1}`,
  };
}
