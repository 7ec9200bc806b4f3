import { z } from 'zod';
import { UsernameSchema } from './admin';
import { IsoTimeSchema } from './fields';

/** How an export is written: CSV (RFC 4180, a header row) or one JSON object per line. */
export const CDR_FORMATS = ['csv', 'ndjson'] as const;
export type CdrFormat = (typeof CDR_FORMATS)[number];

/** One row per message (the default: a message is what is billed), or one per part. */
export const CDR_PER = ['message', 'part'] as const;
export type CdrPer = (typeof CDR_PER)[number];

const DAY_MS = 86_400_000;

/**
 * GET /admin/v1/cdrs: the CDRs of the messages accepted in [since, until), a range of at most
 * `maxDays` days (SEARCH_MAX_DAYS), so that no export reads without bound.
 */
export function cdrQuerySchema(maxDays: number) {
  return z
    .strictObject({
      since: IsoTimeSchema,
      until: IsoTimeSchema,
      account: UsernameSchema.optional(),
      format: z
        .enum(CDR_FORMATS, { message: `expected ${CDR_FORMATS.join(' or ')}` })
        .default('csv'),
      per: z.enum(CDR_PER, { message: `expected ${CDR_PER.join(' or ')}` }).default('message'),
    })
    .superRefine((q, ctx) => {
      const span = Date.parse(q.until) - Date.parse(q.since);
      if (span <= 0)
        ctx.addIssue({ code: 'custom', path: ['until'], message: 'must be after since' });
      else if (span > maxDays * DAY_MS)
        ctx.addIssue({
          code: 'custom',
          path: ['until'],
          message: `the range from since to until may be at most ${maxDays} days (SEARCH_MAX_DAYS)`,
        });
    });
}
export type CdrQuery = z.output<ReturnType<typeof cdrQuerySchema>>;

/** The columns of a CDR, in order: the CSV header and the keys of an ndjson line. */
export const CDR_COLUMNS = [
  { name: 'id', meaning: 'the message id (a UUIDv7: its accepted time is in it)', format: 'UUID' },
  { name: 'account', meaning: "the account's username", format: 'text' },
  {
    name: 'entry',
    meaning: 'how it came in: rest, jasmin-http, kannel-sendsms, smpp, kannel-reply or batch',
    format: 'text; empty for messages accepted before entries were kept',
  },
  { name: 'sender', meaning: 'the sender (from)', format: 'text; empty for none' },
  { name: 'destination', meaning: 'the destination number (to)', format: 'digits' },
  {
    name: 'country_code',
    meaning: "the destination's E.164 country calling code",
    format: 'digits; empty when none matches',
  },
  { name: 'parts', meaning: 'the segments the message was sent in', format: 'integer' },
  {
    name: 'part',
    meaning: 'which part the row is (per=part only): its sequence number, 1 for a single part',
    format: 'integer',
  },
  {
    name: 'encoding',
    meaning: 'the data coding, by name (GSM 03.38, UCS-2, ...)',
    format: 'text',
  },
  {
    name: 'charged',
    meaning: 'what acceptance debited (per=part: on the first part only)',
    format: 'decimal string',
  },
  {
    name: 'refunded',
    meaning: 'what was given back of it: all of it, or 0 (per=part: on the first part only)',
    format: 'decimal string',
  },
  {
    name: 'price_version',
    meaning: 'the price list version that priced it (docs/billing.md)',
    format: "integer; empty when its route's price or its account's rate did",
  },
  {
    name: 'cost',
    meaning:
      "what it cost us: the supplier's price per part through the connector that took it, times its parts (per=part: on the first part only)",
    format: 'decimal string; empty when the connector has no cost list pricing it',
  },
  {
    name: 'cost_version',
    meaning: "the connector's cost list version that gave the cost",
    format: 'integer; empty with the cost',
  },
  {
    name: 'margin',
    meaning: 'charged less refunded less cost (per=part: on the first part only)',
    format: 'decimal string; empty with the cost',
  },
  { name: 'route', meaning: 'the MT route that took it', format: 'text; empty for none' },
  {
    name: 'connector',
    meaning: 'the connector that took it',
    format: 'text; empty when none did',
  },
  {
    name: 'smsc_id',
    meaning: "the SMSC's message id (per=part: the part's)",
    format: 'text; empty when none',
  },
  { name: 'batch_id', meaning: 'its batch', format: 'UUID; empty for none' },
  { name: 'accepted_at', meaning: 'when it was accepted', format: 'UTC ISO 8601' },
  {
    name: 'submitted_at',
    meaning: 'when the SMSC took it',
    format: 'UTC ISO 8601; empty when it never did',
  },
  { name: 'done_at', meaning: 'when it reached its final state', format: 'UTC ISO 8601' },
  {
    name: 'state',
    meaning: "its final state (per=part: the part's state)",
    format:
      'delivered, undelivered, expired, rejected, failed or cancelled (a part: submitted too)',
  },
  {
    name: 'error',
    meaning: "why it did not end delivered: the receipt's stat and err, or the failure",
    format: 'text; empty for none',
  },
] as const;
export type CdrColumn = (typeof CDR_COLUMNS)[number]['name'];

/** The columns of an export: `part` only in one of rows per part. */
export function cdrColumns(per: CdrPer): CdrColumn[] {
  return CDR_COLUMNS.map((c) => c.name).filter((name) => per === 'part' || name !== 'part');
}

/** One CDR as an export writes it; null where a CSV cell is empty. */
export type CdrRecord = Partial<Record<CdrColumn, string | number | null>>;
