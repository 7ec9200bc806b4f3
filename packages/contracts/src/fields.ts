import { z } from 'zod';
import { refuseUnusable } from './text';

/** Deployed clients send numbers either as JSON numbers or as digit strings. */
export function intLike(min: number, max: number) {
  return z
    .union([
      z.number().int(),
      z
        .string()
        .regex(/^\d{1,9}$/, 'expected an integer')
        .transform(Number),
    ])
    .pipe(z.number().int().min(min).max(max));
}

/** A destination address: international digits, optional leading +, at most 15 digits. */
export const AddressSchema = z
  .union([
    z.string().trim(),
    z
      .number()
      .int()
      .nonnegative()
      .transform((n) => String(n)),
  ])
  .pipe(
    z
      .string()
      .regex(
        /^\+?\d{1,15}$/,
        'expected international digits with an optional +, at most 15 digits',
      ),
  )
  .transform((s) => s.replace(/^\+/, ''));

/** Sender: a number of up to 15 digits, or an alphanumeric sender of up to 11 characters. */
export const SenderSchema = z
  .union([
    z.string().trim(),
    z
      .number()
      .int()
      .nonnegative()
      .transform((n) => String(n)),
  ])
  .pipe(
    z
      .string()
      .refine((s) => /^\+?\d{1,15}$/.test(s) || /^[A-Za-z0-9 ._&@'!#%*+,/:?-]{1,11}$/.test(s), {
        message: 'expected up to 15 digits or up to 11 alphanumeric characters',
      }),
  );

// URL parsing drops tabs and line breaks silently, so they are refused before it.
export const HttpUrlSchema = z
  .string()
  .max(2048)
  .superRefine(refuseUnusable())
  .refine((s) => {
    try {
      const u = new URL(s);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'expected an http or https URL');

/** Money is a decimal string end to end, so no float ever rounds a cent. */
export const MoneySchema = z
  .union([
    z.number().finite(),
    z.string().regex(/^-?\d{1,14}(\.\d{1,6})?$/, 'expected a decimal number'),
  ])
  .transform((v) => String(v))
  .refine(
    (s) => /^-?\d{1,14}(\.\d{1,6})?$/.test(s),
    'expected a decimal number with at most 6 decimals',
  );

/** Trims a numeric(20,6) as Postgres prints it to what a person wrote: "10.500000" → "10.5". */
export function formatDecimal(value: string): string {
  return value.includes('.') ? value.replace(/\.?0+$/, '') : value;
}

/** A time as the query parameters of searches, exports and statistics take it. */
export const IsoTimeSchema = z.iso.datetime({
  offset: true,
  message: 'expected an ISO 8601 time with offset',
});

/** A UUID in any case (message, batch ids), as paths and queries carry it. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
