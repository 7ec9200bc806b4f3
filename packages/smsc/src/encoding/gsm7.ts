/** GSM 03.38 default alphabet, indexed by septet value; 0x1B is the escape to the extension table. */
export const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';

export const GSM7_ESCAPE = 0x1b;

/** The extension table: each costs two septets (escape + value). */
export const GSM7_EXTENSION: Readonly<Record<string, number>> = {
  '\f': 0x0a,
  '^': 0x14,
  '{': 0x28,
  '}': 0x29,
  '\\': 0x2f,
  '[': 0x3c,
  '~': 0x3d,
  ']': 0x3e,
  '|': 0x40,
  '€': 0x65,
};

const EXTENDED = 0x100;
const NONE = -1;

/**
 * UTF-16 code unit → septet (0–0x7F), EXTENDED | septet for the extension table, NONE otherwise.
 * Every GSM 03.38 character is in the BMP, so one code unit is one character here.
 */
const lookup = new Int16Array(0x10000).fill(NONE);
for (let i = 0; i < GSM7_BASIC.length; i++)
  if (i !== GSM7_ESCAPE) lookup[GSM7_BASIC.charCodeAt(i)] = i;
for (const [char, value] of Object.entries(GSM7_EXTENSION))
  lookup[char.charCodeAt(0)] = EXTENDED | value;

const extensionChar = new Map<number, string>(
  Object.entries(GSM7_EXTENSION).map(([c, v]) => [v, c]),
);

/** The septets of one character (one or two), or undefined when GSM 03.38 cannot carry it. */
export function gsm7Septets(char: string): number[] | undefined {
  if (char.length !== 1) return undefined;
  const value = lookup[char.charCodeAt(0)];
  if (value === NONE) return undefined;
  return value & EXTENDED ? [GSM7_ESCAPE, value & 0x7f] : [value];
}

/** Index (UTF-16) of the first character GSM 03.38 cannot carry, or -1. */
export function firstNonGsm7(text: string): number {
  for (let i = 0; i < text.length; i++) if (lookup[text.charCodeAt(i)] === NONE) return i;
  return -1;
}

/** Unpacked septets, one per octet (as SMPP carries data_coding 0); null at the first unencodable character. */
export function encodeGsm7(
  text: string,
): { bytes: Buffer; badIndex: -1 } | { bytes: null; badIndex: number } {
  const out = Buffer.allocUnsafe(text.length * 2);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const value = lookup[text.charCodeAt(i)];
    if (value === NONE) return { bytes: null, badIndex: i };
    if (value & EXTENDED) {
      out[n++] = GSM7_ESCAPE;
      out[n++] = value & 0x7f;
    } else {
      out[n++] = value;
    }
  }
  return { bytes: out.subarray(0, n), badIndex: -1 };
}

/** Unpacked septets back to text. An unknown escape shows the base character, as handsets do. */
export function decodeGsm7(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i++) {
    const value = bytes[i] & 0x7f;
    if (value === GSM7_ESCAPE && i + 1 < bytes.length) {
      const next = bytes[++i] & 0x7f;
      text += extensionChar.get(next) ?? GSM7_BASIC[next];
    } else {
      text += GSM7_BASIC[value];
    }
  }
  return text;
}
