import { ASCII, CODING_NAMES, GSM7, LATIN1, UCS2 } from './codings';
import { EncodingError } from './encoding-error';
import { decodeGsm7, encodeGsm7, firstNonGsm7 } from './gsm7';

/** The character starting at UTF-16 index `index`, its code point and its position counted in characters (from 1). */
function describeAt(text: string, index: number): string {
  const code = text.codePointAt(index)!;
  const char = String.fromCodePoint(code);
  const position = [...text.slice(0, index)].length + 1;
  const hex = code.toString(16).toUpperCase().padStart(4, '0');
  return `character "${char}" (U+${hex}) at position ${position}`;
}

function refuse(text: string, index: number, coding: number): never {
  throw new EncodingError(
    `${describeAt(text, index)} cannot be encoded in data_coding ${coding} (${CODING_NAMES[coding]})`,
  );
}

const NON_ASCII = /[\u0080-\uffff]/;
const NON_LATIN1 = /[\u0100-\uffff]/;
/** A surrogate that is not half of a pair: not a character, and not sendable in UCS-2. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** true when every character of the text fits GSM 03.38 with its extension table. */
export function fitsGsm7(text: string): boolean {
  return firstNonGsm7(text) === -1;
}

/**
 * Text → the bytes of short_message in that coding: GSM 03.38 as unpacked septets with 0x1B escapes,
 * ASCII, Latin-1, or UCS-2 as UTF-16BE (pairs kept). Anything the coding cannot carry is an error.
 */
export function encodeText(content: string, coding: number): Buffer {
  switch (coding) {
    case GSM7: {
      const encoded = encodeGsm7(content);
      if (encoded.bytes === null) refuse(content, encoded.badIndex, coding);
      return encoded.bytes;
    }
    case ASCII:
    case LATIN1: {
      const bad = (coding === ASCII ? NON_ASCII : NON_LATIN1).exec(content);
      if (bad) refuse(content, bad.index, coding);
      return Buffer.from(content, 'latin1');
    }
    case UCS2: {
      const bad = LONE_SURROGATE.exec(content);
      if (bad) {
        throw new EncodingError(
          `character U+${content.charCodeAt(bad.index).toString(16).toUpperCase()} at position ${[...content.slice(0, bad.index)].length + 1} is half of a surrogate pair (invalid UTF-16)`,
        );
      }
      return Buffer.from(content, 'utf16le').swap16();
    }
    default:
      throw new EncodingError(
        `data_coding ${coding} (${CODING_NAMES[coding] ?? 'unknown'}) is not supported for text content; send hex_content`,
      );
  }
}

/** The coding for text: the one asked for (if it can carry the text), else GSM 03.38 when it fits, else UCS-2. */
export function chooseCoding(content: string, requested?: number | null): number {
  if (requested !== undefined && requested !== null) {
    encodeText(content, requested);
    return requested;
  }
  return fitsGsm7(content) ? GSM7 : UCS2;
}

/** short_message bytes back to text, for the simulator and tests; unknown codings are shown as Latin-1. */
export function decodeText(bytes: Uint8Array, coding: number): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (coding) {
    case GSM7:
      return decodeGsm7(buffer);
    case ASCII:
      return buffer.toString('ascii');
    case UCS2: {
      const even = buffer.length - (buffer.length % 2);
      const text = Buffer.from(buffer.subarray(0, even)).swap16().toString('utf16le');
      return even === buffer.length ? text : `${text}\ufffd`;
    }
    default:
      return buffer.toString('latin1');
  }
}
