import { z } from 'zod';
import { AddressSchema, HttpUrlSchema } from './fields';
import { checkMessageRules, messageParams, normalizeAliases } from './message';

export const BatchMessageSchema = z.preprocess(
  normalizeAliases,
  z
    .strictObject({
      to: z.union([AddressSchema, z.array(AddressSchema).min(1, 'must list at least one destination')]),
      ...messageParams,
    })
    .superRefine(checkMessageRules),
);
export type BatchMessage = z.output<typeof BatchMessageSchema>;

export const GlobalsSchema = z.preprocess(normalizeAliases, z.strictObject(messageParams));

export const ScheduleAtSchema = z
  .string()
  .regex(/^(?:\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}|\d{1,9}s)$/, 'expected "YYYY-MM-DD HH:MM:SS" or "<seconds>s"');

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
