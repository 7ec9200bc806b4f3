import { z } from 'zod';
import { AddressSchema, HttpUrlSchema, SenderSchema, intLike } from './fields';
import { storableText } from './text';
import { CustomTlvsSchema } from './tlvs';

/**
 * Both spellings of dashed names are accepted (docs/architecture.md § Wire compatibility);
 * internally we use underscores.
 */
export const FIELD_ALIASES: Record<string, string> = {
  'hex-content': 'hex_content',
  'dlr-url': 'dlr_url',
  'dlr-level': 'dlr_level',
  'dlr-method': 'dlr_method',
  'validity-period': 'validity_period',
  // Jasmin's REST interface turns every `_` of a field's name into `-` before its HTTP interface
  // reads it, so clients send this one in both spellings too.
  'custom-tlvs': 'custom_tlvs',
};

/**
 * Data codings an SMSC understands (SMPP 3.4 5.2.19); text content supports only some (see smsc
 * encoding).
 */
export const DATA_CODINGS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 14] as const;

/** Renames dashed aliases; a field given in both spellings is an error, not a silent choice. */
export function normalizeAliases(input: unknown, ctx: z.RefinementCtx): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    const canonical = FIELD_ALIASES[key] ?? key;
    if (canonical in out) {
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `given twice, as ${key} and ${canonical}`,
      });
      continue;
    }
    out[canonical] = value;
  }
  return out;
}

/** Message parameters other than the destination: what `globals` may carry too. */
export const messageParams = {
  from: SenderSchema.optional(),
  content: storableText({ lineBreaks: true }).min(1, 'must not be empty').max(20000).optional(),
  hex_content: z
    .string()
    .regex(/^(?:[0-9a-fA-F]{2})+$/, 'expected an even number of hexadecimal digits')
    .max(40000)
    .transform((s) => s.toLowerCase())
    .optional(),
  coding: intLike(0, 14)
    .refine((c) => (DATA_CODINGS as readonly number[]).includes(c), 'unknown data coding')
    .optional(),
  dlr: z.enum(['yes', 'no']).optional(),
  dlr_url: HttpUrlSchema.optional(),
  dlr_level: intLike(1, 3).optional(),
  dlr_method: z
    .string()
    .transform((s) => s.toUpperCase())
    .pipe(z.enum(['GET', 'POST']))
    .optional(),
  priority: intLike(0, 3).optional(),
  validity_period: intLike(1, 60 * 24 * 30).optional(),
  // p is one of '+', '-' (absolute, ahead of or behind UTC) or 'R' (relative); '-' goes first in
  // the class, where it cannot be read as a range.
  sdt: z
    .string()
    .regex(
      /^\d{12}\d[0-4]\d[-+R]$/,
      'expected an SMPP time string YYMMDDhhmmsstnnp, p one of +, - or R',
    )
    .optional(),
  // A list, or Jasmin's comma-separated string ("1,702,9901", which its send.py splits on ',').
  tags: z
    .union([
      z.array(z.union([storableText().max(64), z.number().int()])),
      storableText()
        .max(16 * 65)
        .transform((s) => s.split(',').filter((t) => t !== '')),
    ])
    .pipe(z.array(z.union([z.string().max(64), z.number()])).max(16))
    .optional(),
  /** SMPP optional parameters for the SMSC (Jasmin's shape), checked and encoded here. */
  custom_tlvs: CustomTlvsSchema.optional(),
  /** Flash SMS: message class 0, shown at once and not stored (messageClassOf). */
  flash: z.boolean().optional(),
  /** GSM message class 0–3 (Kannel's `mclass`); flash is class 0. */
  message_class: intLike(0, 3).optional(),
  /**
   * A user data header (hex, its length octet first) sent as it is in front of the content, in one
   * part (Kannel's `udh`: ports, WAP push, a concatenation the client made itself).
   */
  udh: z
    .string()
    .regex(/^(?:[0-9a-fA-F]{2})+$/, 'expected an even number of hexadecimal digits')
    .max(278)
    .transform((s) => s.toLowerCase())
    .optional(),
};

/**
 * Codings whose data_coding has a form carrying a message class (3GPP TS 23.038 coding group
 * 00xx with bit 4 set): the GSM default alphabet, 8-bit data and UCS-2. The others (IA5, Latin-1,
 * the national sets) have none, so a class cannot be asked for with them.
 */
export const MESSAGE_CLASS_CODINGS: readonly number[] = [0, 2, 4, 8];

/** The message class a message asks for, or undefined for none. */
export function messageClassOf(m: {
  flash?: boolean | undefined;
  message_class?: number | undefined;
}): number | undefined {
  if (m.message_class !== undefined) return m.message_class;
  return m.flash === true ? 0 : undefined;
}

type Params = {
  content?: string;
  hex_content?: string;
  dlr?: 'yes' | 'no';
  dlr_url?: string;
  coding?: number;
  flash?: boolean;
  message_class?: number;
};

/** Rules across fields that a single field's schema cannot say. */
export function checkMessageRules(m: Params, ctx: z.RefinementCtx): void {
  if (m.content === undefined && m.hex_content === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['content'],
      message: 'content or hex_content is required',
    });
  }
  if (m.content !== undefined && m.hex_content !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['hex_content'],
      message: 'give content or hex_content, not both',
    });
  }
  if (m.flash === true && m.message_class !== undefined && m.message_class !== 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['message_class'],
      message: 'flash is message class 0; give one of flash and message_class',
    });
  }
  if (
    messageClassOf(m) !== undefined &&
    m.coding !== undefined &&
    !MESSAGE_CLASS_CODINGS.includes(m.coding)
  ) {
    ctx.addIssue({
      code: 'custom',
      path: ['coding'],
      message: `a message class needs coding 0, 2, 4 or 8 (data coding ${m.coding} has no class form)`,
    });
  }
}

/**
 * Fields of Jasmin's requests that the gateway accepts and drops: its REST interface overwrites
 * `username` and `password` of the body with the Basic credentials, so a client may send them;
 * here the Authorization header alone authenticates, and a password is never stored.
 */
export const IGNORED_FIELDS = {
  username: z.unknown().optional(),
  password: z.unknown().optional(),
};

interface ReportParams {
  dlr?: 'yes' | 'no' | undefined;
  dlr_url?: string | undefined;
  dlr_level?: number | undefined;
  dlr_method?: 'GET' | 'POST' | undefined;
  username?: unknown;
  password?: unknown;
}

/**
 * Jasmin's report parameters as one meaning: `dlr: 'yes'` means a report goes to `dlr_url`
 * (level and method always set), and nothing else does; decideReportWish makes the message's
 * report wish of them at acceptance. Jasmin's rule (send.py): `dlr-url` or `dlr-level` present
 * means `dlr=yes`, level 1 and method POST by default; without a URL nobody is to be reported to.
 * Also drops the credentials Jasmin clients may repeat in the body (IGNORED_FIELDS).
 */
export function decideReport<T extends ReportParams>(
  m: T,
): Omit<T, 'dlr' | 'dlr_level' | 'dlr_method' | 'username' | 'password'> & {
  dlr?: 'yes';
  dlr_level?: number;
  dlr_method?: 'GET' | 'POST';
} {
  const { dlr: _dlr, dlr_level, dlr_method, username: _u, password: _p, ...rest } = m;
  if (m.dlr_url === undefined) return rest;
  return { ...rest, dlr: 'yes', dlr_level: dlr_level ?? 1, dlr_method: dlr_method ?? 'POST' };
}

/**
 * How the interface a message came in by reports, stored with its wish at acceptance: Jasmin's
 * HTTP interface wants `ACK/Jasmin` from the receiver; Kannel's sendsms calls its `dlr-url` as a
 * template, for the events its `dlr-mask` names (docs/compatibility.md). REST messages have none.
 */
export type InterfaceReport = { dlr_style: 'jasmin' } | { dlr_style: 'kannel'; dlr_mask: number };

/** Kannel's dlr-mask bits (gw/dlr.h): handset delivered, handset failed, queued, SMSC ack, SMSC nack. */
export const KANNEL_DLR = {
  success: 1,
  fail: 2,
  buffered: 4,
  smscSuccess: 8,
  smscFail: 16,
} as const;

/**
 * The report levels a Kannel dlr-mask asks for: the SMSC's answer (8, 16) is level 1, the
 * handset receipt (1, 2) level 2, both level 3; undefined when it asks for neither.
 */
export function kannelMaskLevel(mask: number): 1 | 2 | 3 | undefined {
  const smsc = (mask & (KANNEL_DLR.smscSuccess | KANNEL_DLR.smscFail)) !== 0;
  const handset = (mask & (KANNEL_DLR.success | KANNEL_DLR.fail)) !== 0;
  if (smsc && handset) return 3;
  if (smsc) return 1;
  return handset ? 2 : undefined;
}

/** A Message as documented (OpenAPI): one destination, underscore names. */
export const MessageObjectSchema = z.strictObject({ to: AddressSchema, ...messageParams });

/** The body of POST /secure/send: one Message with one destination. */
export const SendRequestSchema = z.preprocess(
  normalizeAliases,
  z
    .strictObject({
      to: z.union([
        AddressSchema,
        z.array(z.unknown()).transform((_v, ctx) => {
          ctx.addIssue({
            code: 'custom',
            message: 'a list of destinations is only accepted by /secure/sendbatch',
          });
          return z.NEVER;
        }),
      ]),
      ...messageParams,
      ...IGNORED_FIELDS,
    })
    .superRefine(checkMessageRules)
    .transform(decideReport),
);
export type SendRequest = z.output<typeof SendRequestSchema>;

/** A message after validation, with one destination: what the gateway records. */
export type MessageParams = Omit<SendRequest, 'to'>;
