import { randomInt } from 'node:crypto';
import { ASCII, BINARY, CODING_NAMES, GSM7, UCS2 } from './codings';
import { EncodingError } from './encoding-error';
import { GSM7_ESCAPE } from './gsm7';
import { chooseCoding, encodeText } from './text';

export interface MessageInput {
  content?: string | null | undefined;
  hexContent?: string | null | undefined;
  coding?: number | null | undefined;
  /**
   * A user data header the client gave (hex, its length octet first: Kannel's `udh`), sent as it
   * is in front of the content of a single part.
   */
  udh?: string | null | undefined;
}

export interface MessagePlan {
  coding: number;
  segments: number;
}

export interface EncodedMessage {
  dataCoding: number;
  /** short_message of each part, with the concatenation UDH when there are several. */
  parts: Buffer[];
  /** 0x40 (UDHI) when the parts carry a UDH. */
  esmClass: number;
}

/** 05 00 03 ref total seq: 8-bit reference concatenation (3GPP TS 23.040 9.2.3.24.1). */
const UDH_LENGTH = 6;
/** total and seq are single octets. */
const MAX_PARTS_WITH_UDH = 255;
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/**
 * Coding used for hex_content without one: 0, as the reference API (Jasmin) and Kannel do, so
 * existing clients sending septets keep working; bytes that cannot be septets are refused with a
 * hint to send coding 4, never passed on mislabelled.
 */
export const HEX_DEFAULT_CODING = GSM7;

/** One part: 160 septets (one octet each, unpacked) for GSM 03.38, else 140 octets. With a UDH: 153, else 134. */
function limits(coding: number): { single: number; multi: number } {
  return coding === GSM7 ? { single: 160, multi: 153 } : { single: 140, multi: 134 };
}

/** Octets of the indivisible unit starting at i: an escape sequence, a surrogate pair, else one character. */
function unitWidth(bytes: Buffer, i: number, coding: number): number {
  if (coding === GSM7) return bytes[i] === GSM7_ESCAPE && i + 1 < bytes.length ? 2 : 1;
  if (coding !== UCS2) return 1;
  const high = bytes[i];
  if (high >= 0xd8 && high <= 0xdb && i + 3 < bytes.length) {
    const next = bytes[i + 2];
    if (next >= 0xdc && next <= 0xdf) return 4;
  }
  return 2;
}

function messageBytes(input: MessageInput): { coding: number; bytes: Buffer } {
  if (input.hexContent !== undefined && input.hexContent !== null) {
    const coding = input.coding ?? HEX_DEFAULT_CODING;
    if (CODING_NAMES[coding] === undefined)
      throw new EncodingError(`unknown data_coding ${coding}`);
    if (!HEX.test(input.hexContent))
      throw new EncodingError('hex_content must be an even number of hexadecimal digits');
    const bytes = Buffer.from(input.hexContent, 'hex');
    if (coding === GSM7 || coding === ASCII) {
      const bad = bytes.findIndex((b) => b > 0x7f);
      if (bad >= 0) {
        throw new EncodingError(
          `byte ${bad + 1} (0x${bytes[bad].toString(16)}) is not a ${coding === GSM7 ? 'GSM 03.38 septet' : '7-bit ASCII character'} (00–7F); use coding ${BINARY} for binary content`,
        );
      }
    }
    if (coding === UCS2 && bytes.length % 2 !== 0)
      throw new EncodingError('UCS-2 content must be a whole number of 2-byte code units');
    return { coding, bytes };
  }
  if (input.content === undefined || input.content === null)
    throw new EncodingError('content or hex_content is required');
  const coding = chooseCoding(input.content, input.coding);
  return { coding, bytes: encodeText(input.content, coding) };
}

/** End offset of each part; one part when everything fits in one SMS, and no unit is ever cut in two. */
function partEnds(bytes: Buffer, coding: number): number[] {
  const { single, multi } = limits(coding);
  if (bytes.length <= single) return [bytes.length];
  const ends: number[] = [];
  let start = 0;
  let i = 0;
  while (i < bytes.length) {
    const width = unitWidth(bytes, i, coding);
    if (i + width - start > multi) {
      ends.push(i);
      start = i;
    }
    i += width;
  }
  ends.push(bytes.length);
  return ends;
}

function checkParts(count: number, maxParts: number): void {
  const allowed = Math.min(maxParts, MAX_PARTS_WITH_UDH);
  if (count > allowed)
    throw new EncodingError(`message needs ${count} parts; at most ${allowed} are allowed`);
}

/**
 * The client's UDH, checked: its first octet is the length of the rest (3GPP TS 23.040 9.2.3.24,
 * UDHL), and it leaves room for content in one part.
 */
function clientUdh(hex: string): Buffer {
  if (!HEX.test(hex) || hex.length === 0)
    throw new EncodingError('udh must be an even number of hexadecimal digits');
  const udh = Buffer.from(hex, 'hex');
  if (udh[0] !== udh.length - 1)
    throw new EncodingError(
      `udh starts with its length: the first octet is ${udh[0]}, but ${udh.length - 1} octets follow`,
    );
  if (udh.length >= 140) throw new EncodingError('udh leaves no room in the part');
  return udh;
}

/**
 * Room for content beside a UDH in the one part it goes in: 140 octets in all, the GSM 03.38
 * septets counted as the handset packs them (the UDH padded to a septet boundary).
 */
function roomBeside(udh: Buffer, coding: number): number {
  return coding === GSM7 ? 160 - Math.ceil((udh.length * 8) / 7) : 140 - udh.length;
}

/** A message with the client's UDH: one part, never split (the UDH may say how it is joined). */
function withClientUdh(input: MessageInput & { udh: string }): {
  coding: number;
  bytes: Buffer;
  udh: Buffer;
} {
  const udh = clientUdh(input.udh);
  const { coding, bytes } = messageBytes(input);
  const room = roomBeside(udh, coding);
  if (bytes.length > room)
    throw new EncodingError(
      `with a udh the message is sent in one part: at most ${room} ${coding === GSM7 ? 'septets' : 'octets'} of content fit beside it, this has ${bytes.length}`,
    );
  return { coding, bytes, udh };
}

const hasUdh = (input: MessageInput): input is MessageInput & { udh: string } =>
  input.udh !== undefined && input.udh !== null;

/** Coding and number of parts: what is billed. Always agrees with splitMessage (same code path). */
export function planMessage(input: MessageInput, maxParts: number): MessagePlan {
  if (hasUdh(input)) return { coding: withClientUdh(input).coding, segments: 1 };
  const { coding, bytes } = messageBytes(input);
  const segments = partEnds(bytes, coding).length;
  checkParts(segments, maxParts);
  return { coding, segments };
}

/** The short_message bodies to send, with a concatenation UDH (05 00 03 ref total seq) when several. */
export function splitMessage(
  input: MessageInput,
  options: { maxParts: number; ref?: number },
): EncodedMessage {
  if (hasUdh(input)) {
    const { coding, bytes, udh } = withClientUdh(input);
    return { dataCoding: coding, parts: [Buffer.concat([udh, bytes])], esmClass: 0x40 };
  }
  const { coding, bytes } = messageBytes(input);
  const ends = partEnds(bytes, coding);
  checkParts(ends.length, options.maxParts);
  if (ends.length === 1) return { dataCoding: coding, parts: [Buffer.from(bytes)], esmClass: 0 };
  const ref = (options.ref ?? randomInt(0, 256)) & 0xff;
  let start = 0;
  const parts = ends.map((end, i) => {
    const part = Buffer.allocUnsafe(UDH_LENGTH + end - start);
    part[0] = UDH_LENGTH - 1;
    part[1] = 0x00;
    part[2] = 0x03;
    part[3] = ref;
    part[4] = ends.length;
    part[5] = i + 1;
    bytes.copy(part, UDH_LENGTH, start, end);
    start = end;
    return part;
  });
  return { dataCoding: coding, parts, esmClass: 0x40 };
}

/** The text behind a short_message, with its UDH (if any) removed. */
export function stripUdh(
  shortMessage: Buffer,
  esmClass: number,
): { udh: Buffer | null; body: Buffer } {
  if ((esmClass & 0x40) === 0 || shortMessage.length === 0)
    return { udh: null, body: shortMessage };
  const length = shortMessage[0] + 1;
  return { udh: shortMessage.subarray(0, length), body: shortMessage.subarray(length) };
}
