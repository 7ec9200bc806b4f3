import { z } from 'zod';

/**
 * SMPP optional parameters a client asks for, in Jasmin's `custom_tlvs` shape: a list of
 * `[tag, length, type, value]` (its encoder also takes `[tag, type, value]` and `[tag, value]`).
 * Each is checked and encoded here, at acceptance, so the dispatcher only copies octets: a TLV the
 * SMSC could not read is refused with a 400 before anything is charged.
 */

/** The value types Jasmin's TLV encoder knows; any other (or none) is sent as UTF-8 octets. */
export const TLV_TYPES = ['Int1', 'Int2', 'Int4', 'Int8', 'OctetString', 'COctetString'] as const;
export type TlvType = (typeof TLV_TYPES)[number];

/** Octets of each integer type (SMPP 3.4 integers are unsigned, big-endian). */
const INT_OCTETS: Partial<Record<TlvType, number>> = { Int1: 1, Int2: 2, Int4: 4, Int8: 8 };

/**
 * Tags the gateway writes itself (the sar_* parameters of long messages and message_payload): a
 * client's own value would contradict the gateway's.
 */
export const GATEWAY_TLV_TAGS: ReadonlySet<number> = new Set([0x020c, 0x020e, 0x020f, 0x0424]);

/** More than this per message is a client error, not a use. */
export const MAX_CUSTOM_TLVS = 16;
/** Octets of one value; vendor parameters (India's DLT ids among them) are a few dozen. */
export const MAX_TLV_VALUE_OCTETS = 255;

/** A TLV as checked and encoded at acceptance: what the SMSC receives, octet for octet. */
export interface CustomTlv {
  tag: number;
  /** The value's octets in lowercase hexadecimal; its length is the TLV's length. */
  value: string;
}

const tagSchema = z
  .union([
    z.number().int(),
    z
      .string()
      .regex(/^(?:\d{1,5}|0x[0-9a-fA-F]{1,4})$/, 'expected an integer tag')
      .transform(Number),
  ])
  .pipe(
    z
      .number()
      .int()
      .min(1, 'a TLV tag is between 0x0001 and 0xFFFF')
      .max(0xffff, 'a TLV tag is between 0x0001 and 0xFFFF')
      .refine((t) => !GATEWAY_TLV_TAGS.has(t), 'this TLV tag is set by the gateway itself'),
  );

const valueSchema = z.union([z.string().max(MAX_TLV_VALUE_OCTETS * 4), z.number()]);

/** The octets of `value` as Jasmin's encoder writes them for `type`; a string saying why not. */
export function encodeTlvValue(type: string | null, value: string | number): Buffer | string {
  const octets = type === null ? undefined : INT_OCTETS[type as TlvType];
  if (octets !== undefined) {
    const text = String(value);
    if (!/^\d{1,20}$/.test(text)) return `an ${type} value is an unsigned integer`;
    const n = BigInt(text);
    if (n >= 1n << BigInt(octets * 8)) return `${text} does not fit in ${octets} octet(s)`;
    const out = Buffer.alloc(octets);
    for (let i = octets - 1, rest = n; i >= 0; i--, rest >>= 8n) out[i] = Number(rest & 0xffn);
    return out;
  }
  const text = Buffer.from(String(value), 'utf8');
  return type === 'COctetString' ? Buffer.concat([text, Buffer.alloc(1)]) : text;
}

/** One TLV in any of the shapes Jasmin takes, checked and encoded. */
export const CustomTlvSchema = z
  .union([
    z.tuple([
      tagSchema,
      z.union([z.number().int(), z.null()]),
      z.union([z.enum(TLV_TYPES), z.null()]),
      valueSchema,
    ]),
    z.tuple([tagSchema, z.enum(TLV_TYPES), valueSchema]),
    z.tuple([tagSchema, valueSchema]),
  ])
  .transform((tlv, ctx): CustomTlv => {
    const [tag, length, type, value] =
      tlv.length === 4
        ? tlv
        : tlv.length === 3
          ? [tlv[0], null, tlv[1], tlv[2]]
          : [tlv[0], null, null, tlv[1]];
    const encoded = encodeTlvValue(type, value);
    if (typeof encoded === 'string') {
      ctx.addIssue({ code: 'custom', path: [3], message: encoded });
      return z.NEVER;
    }
    if (encoded.length > MAX_TLV_VALUE_OCTETS) {
      ctx.addIssue({
        code: 'custom',
        path: [3],
        message: `a TLV value is at most ${MAX_TLV_VALUE_OCTETS} octets`,
      });
      return z.NEVER;
    }
    // Jasmin recomputes the length; a length that disagrees with the value is refused here
    // rather than silently replaced, since it says the client meant something else.
    if (length !== null && length !== encoded.length) {
      ctx.addIssue({
        code: 'custom',
        path: [1],
        message: `length ${length} does not match the value's ${encoded.length} octet(s)`,
      });
      return z.NEVER;
    }
    return { tag, value: encoded.toString('hex') };
  });

/** `custom_tlvs` of a message: at most MAX_CUSTOM_TLVS, each tag once. */
export const CustomTlvsSchema = z
  .array(CustomTlvSchema)
  .max(MAX_CUSTOM_TLVS)
  .superRefine((tlvs, ctx) => {
    const seen = new Set<number>();
    tlvs.forEach((tlv, i) => {
      if (seen.has(tlv.tag)) {
        ctx.addIssue({ code: 'custom', path: [i, 0], message: 'a TLV tag is given once' });
      }
      seen.add(tlv.tag);
    });
  });
