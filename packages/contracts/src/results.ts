import { z } from 'zod';
import { storableText } from './text';

/**
 * `Success "<id>`: no closing quote, exactly as the deployed API answers (docs/architecture.md §
 * Wire compatibility).
 */
export const sendSuccessText = (messageId: string): string => `Success "${messageId}`;
/** Batch callbacks quote the id on both sides (docs/architecture.md § Wire compatibility). */
export const callbackSuccessText = (messageId: string): string => `Success "${messageId}"`;

export const SendResultSchema = z.object({ data: z.string() });
export type SendResult = z.infer<typeof SendResultSchema>;

export const BatchResultSchema = z.object({
  data: z.object({
    batchId: z.string(),
    messageCount: z.number().int(),
    /** A scheduled batch: the seconds until it starts, as Jasmin answers it ("3600s"). */
    scheduled: z.string().optional(),
  }),
});
export type BatchResult = z.infer<typeof BatchResultSchema>;

/** `"ND"` stands for an unlimited balance or quota, as the deployed API says it. */
export const UNLIMITED = 'ND';
export const BalanceResultSchema = z.object({
  data: z.object({ balance: z.string(), sms_count: z.string() }),
});
export type BalanceResult = z.infer<typeof BalanceResultSchema>;

export const TokenResponseSchema = z.object({
  access_token: z.string(),
  token_type: z.literal('bearer'),
  expires_in: z.number().int(),
});
export type TokenResponse = z.infer<typeof TokenResponseSchema>;

export const TokenRequestSchema = z.object({
  client_id: storableText({}, { error: 'client_id is required' })
    .min(1, 'client_id is required')
    .max(128),
  client_secret: storableText({}, { error: 'client_secret is required' })
    .min(1, 'client_secret is required')
    .max(256),
});
