import { z } from 'zod';
import { AddressSchema, HttpUrlSchema, SenderSchema, intLike } from './fields';
import { storableText } from './text';

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
  tags: z
    .array(z.union([storableText().max(64), z.number().int()]))
    .max(16)
    .optional(),
};

type Params = { content?: string; hex_content?: string; dlr?: 'yes' | 'no'; dlr_url?: string };

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
  if (m.dlr === 'yes' && m.dlr_url === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['dlr_url'],
      message: 'dlr-url is required when dlr is yes',
    });
  }
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
    })
    .superRefine(checkMessageRules),
);
export type SendRequest = z.output<typeof SendRequestSchema>;

/** A message after validation, with one destination: what the gateway records. */
export type MessageParams = Omit<SendRequest, 'to'>;
