import { z } from 'zod';

/** The header a client sets so that a retried send is carried out at most once. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Set on an answer replayed from an earlier request with the same Idempotency-Key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * Up to 255 characters that survive any proxy and log unchanged: letters, digits and - _ . : ~
 * (a UUID fits, as most client libraries generate).
 */
export const IdempotencyKeySchema = z
  .string()
  .regex(
    /^[A-Za-z0-9._:~-]{1,255}$/,
    'expected 1 to 255 letters, digits or - _ . : ~ (a UUID, for example)',
  );

/** The header on every outgoing callback: `t=<unix seconds>,v1=<hex HMAC-SHA256>[,v1=…]`. */
export const CALLBACK_SIGNATURE_HEADER = 'X-Smsgw-Signature';

/**
 * The header on every outgoing callback naming it: the same on every attempt of one callback, so a
 * receiver that keeps the ids it processed handles a callback once even when it is sent again
 * (a notifier that died after the receiver answered and before recording it sends it again).
 */
export const CALLBACK_ID_HEADER = 'X-Smsgw-Callback-Id';

/** How long the previous callback secret keeps signing after a rotation, unless the call says. */
export const DEFAULT_SECRET_GRACE_SECONDS = 86_400;

export const RotateCallbackSecretSchema = z.strictObject({
  /** 0 ends the previous secret at once (after a leak); at most a week. */
  grace_seconds: z.number().int().min(0).max(604_800).optional(),
});
export type RotateCallbackSecret = z.output<typeof RotateCallbackSecretSchema>;

export const CallbackSecretViewSchema = z.object({
  secret: z.string(),
  /** The previous secret, while it still signs during a rotation's grace period. */
  previous_secret: z.string().nullable(),
  previous_secret_expires_at: z.string().nullable(),
});
export type CallbackSecretView = z.infer<typeof CallbackSecretViewSchema>;
