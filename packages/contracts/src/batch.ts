import { z } from 'zod';
import { AddressSchema, HttpUrlSchema } from './fields';
import {
  FIELD_ALIASES,
  IGNORED_FIELDS,
  checkMessageRules,
  decideReport,
  messageParams,
  normalizeAliases,
} from './message';
import { BATCH_STATES } from './states';

export const BatchMessageSchema = z.preprocess(
  normalizeAliases,
  z
    .strictObject({
      to: z.union([
        AddressSchema,
        z.array(AddressSchema).min(1, 'must list at least one destination'),
      ]),
      ...messageParams,
      ...IGNORED_FIELDS,
    })
    .superRefine(checkMessageRules)
    .transform(decideReport),
);
export type BatchMessage = z.output<typeof BatchMessageSchema>;

/** `globals` may carry any message parameter, `to` included (Jasmin merges them into each message). */
export const GlobalsSchema = z.preprocess(
  normalizeAliases,
  z.strictObject({
    to: z.union([AddressSchema, z.array(AddressSchema).min(1)]).optional(),
    ...messageParams,
    ...IGNORED_FIELDS,
  }),
);

export const ScheduleAtSchema = z
  .string()
  .regex(
    /^(?:\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}|\d{1,9}s)$/,
    'expected "YYYY-MM-DD HH:MM:SS" or "<seconds>s"',
  );

export const BatchConfigSchema = z.strictObject({
  callback_url: HttpUrlSchema.optional(),
  errback_url: HttpUrlSchema.optional(),
  schedule_at: ScheduleAtSchema.optional(),
});
export type BatchConfig = z.output<typeof BatchConfigSchema>;

/** Envelope of POST /secure/sendbatch; each message is validated after `globals` are merged in. */
export const BatchRequestSchema = z.strictObject({
  messages: z.array(z.record(z.string(), z.unknown())).min(1, 'must hold at least one message'),
  globals: z.record(z.string(), z.unknown()).optional(),
  batch_config: BatchConfigSchema.optional(),
});
export type BatchRequest = z.output<typeof BatchRequestSchema>;

/**
 * Renames dashed aliases to underscores (as normalizeAliases does), unless both spellings are in
 * the object: then it is left as given, so validation reports the field given twice.
 */
function canonicalKeys(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    const canonical = FIELD_ALIASES[key] ?? key;
    if (canonical in out || (canonical !== key && canonical in input)) return input;
    out[canonical] = value;
  }
  return out;
}

/**
 * A batch message with `globals` applied (docs/architecture.md § Wire compatibility): a parameter
 * the message sets wins. A message that chooses its content (text or binary) replaces both content
 * fields of the globals.
 */
export function applyGlobals(
  globals: Record<string, unknown> | undefined,
  message: Record<string, unknown>,
): Record<string, unknown> {
  const own = canonicalKeys(message);
  const inherited = { ...canonicalKeys(globals ?? {}) };
  if ('content' in own || 'hex_content' in own) {
    delete inherited['content'];
    delete inherited['hex_content'];
  }
  return { ...inherited, ...own };
}

/** GET /secure/batches/{batchId} */
export const BatchStatusSchema = z.object({
  data: z.object({
    batchId: z.string(),
    state: z.enum(BATCH_STATES),
    scheduledAt: z.string().nullable(),
    createdAt: z.string(),
    completedAt: z.string().nullable(),
    counts: z.object({
      total: z.number().int(),
      queued: z.number().int(),
      sent: z.number().int(),
      delivered: z.number().int(),
      failed: z.number().int(),
      /**
       * Of the failed, those with an unknown outcome (SUBMIT_OUTCOME_UNKNOWN): the SMSC may have
       * them, so they stay charged and are never sent again.
       */
      unknown: z.number().int(),
      cancelled: z.number().int(),
      /** Recipients left out at acceptance because they opted out: neither charged nor sent. */
      optedOut: z.number().int(),
    }),
  }),
});
export type BatchStatus = z.infer<typeof BatchStatusSchema>;
