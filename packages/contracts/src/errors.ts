import { z } from 'zod';

/**
 * Error codes of docs/architecture.md § Wire compatibility; the token endpoint's two are those of
 * the reference API.
 */
export const ERROR_STATUS = {
  UNAUTHORIZED: 401,
  ACCESS_TOKEN_EXPIRED: 401,
  APPLICATION_NOT_EXISTS: 404,
  INVALID_PARAMETER: 400,
  INSUFFICIENT_CREDIT: 402,
  QUOTA_EXCEEDED: 402,
  FORBIDDEN: 403,
  /** The account may not send from this sender (its sender rules). */
  SENDER_NOT_ALLOWED: 403,
  /** The recipient opted out of the account's messages (STOP), or the account put it on its list. */
  RECIPIENT_OPTED_OUT: 403,
  /** Right credentials of an account an operator has disabled. */
  ACCOUNT_DISABLED: 403,
  NOT_FOUND: 404,
  /** No MT route takes the message (docs/routing.md): refused, nothing charged. */
  NO_ROUTE: 400,
  /** The account's price list lists no price for the destination, and has no default row. */
  NO_PRICE: 400,
  CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  IDEMPOTENCY_KEY_IN_PROGRESS: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ErrorItemSchema = z.object({
  index: z.number().int().optional(),
  field: z.string(),
  message: z.string(),
});
export type ErrorItem = z.infer<typeof ErrorItemSchema>;

export const ErrorBodySchema = z.object({
  detail: z.object({
    code: z.string(),
    message: z.string(),
    field: z.string().optional(),
    errors: z.array(ErrorItemSchema).optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** The spec's exact wording for its two token-endpoint errors. */
export const SPEC_MESSAGES = {
  APPLICATION_NOT_EXISTS: 'Application not exists',
  ACCESS_TOKEN_EXPIRED: 'Access token signature has expired',
} as const;
