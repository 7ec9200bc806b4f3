import { z } from 'zod';
import { intLike, MoneySchema, SenderSchema } from './fields';
import { ADMIN_SCOPES } from './scopes';
import { storableText } from './text';

/** The largest value of the bigint column that holds an SMS quota. */
export const MAX_SMS_COUNT = 9223372036854775807n;

/**
 * A number of SMS as the quota column holds it: an integer (a JSON integer, or a digit string for
 * values past what a JSON number holds exactly), within ±MAX_SMS_COUNT; a string out.
 */
function smsCountSchema(allowNegative: boolean) {
  return (
    z
      .union([
        z.number().int().transform(String),
        z.string().regex(/^-?\d{1,19}$/, 'expected an integer'),
      ])
      // Piped: zod runs a refinement even after the pattern failed, and BigInt throws on a non-integer.
      .pipe(
        z
          .string()
          .refine((s) => allowNegative || !s.startsWith('-'), 'must not be negative')
          .transform((s) => BigInt(s))
          .refine(
            (n) => n <= MAX_SMS_COUNT && n >= -MAX_SMS_COUNT,
            `must be at most ${MAX_SMS_COUNT} in size`,
          )
          .transform((n) => n.toString()),
      )
  );
}

export const UsernameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.@-]{1,64}$/, 'expected 1 to 64 letters, digits or _ . @ -');

export const PasswordSchema = storableText().min(8, 'must be at least 8 characters').max(256);

export const CreateAccountSchema = z.strictObject({
  username: UsernameSchema,
  password: PasswordSchema,
  /**
   * Omitted: 0, an account that cannot send until credited. Unlimited credit is asked for
   * explicitly, with null, so a forgotten field never gives an account free sending.
   */
  balance: MoneySchema.refine((s) => !s.startsWith('-'), 'must not be negative')
    .nullable()
    .default('0'),
  sms_count: smsCountSchema(false).nullable().optional(),
  /** Price of one SMS segment, debited from balance. */
  rate: MoneySchema.refine((s) => !s.startsWith('-'), 'must not be negative').optional(),
  default_from: SenderSchema.optional(),
  /** Messages per second for this account across the cluster; 0 = unlimited. */
  throughput: z.number().nonnegative().max(100000).optional(),
});
export type CreateAccount = z.output<typeof CreateAccountSchema>;

export const SetPasswordSchema = z.strictObject({ password: PasswordSchema });
export type SetPassword = z.output<typeof SetPasswordSchema>;

export const CreditSchema = z.strictObject({
  amount: MoneySchema,
  sms_count: smsCountSchema(true).optional(),
});
export type Credit = z.output<typeof CreditSchema>;

export const CreateApplicationSchema = z.strictObject({
  name: storableText().min(1).max(128).optional(),
});

/** An application's client_id as a path parameter. */
export const ClientIdSchema = storableText().min(1).max(128);

export const AccountViewSchema = z.object({
  id: z.string(),
  username: z.string(),
  balance: z.string(),
  sms_count: z.string(),
  rate: z.string(),
  default_from: z.string().nullable(),
  throughput: z.number(),
  created_at: z.string(),
  /** When an operator disabled the account; null while it is enabled. */
  disabled_at: z.string().nullable(),
});
export type AccountView = z.infer<typeof AccountViewSchema>;

export const ApplicationCreatedSchema = z.object({
  client_id: z.string(),
  client_secret: z.string(),
  name: z.string().nullable(),
});

/** A live application of an account; its secret is shown once, when it is made. */
export const ApplicationViewSchema = z.object({
  client_id: z.string(),
  name: z.string().nullable(),
  created_at: z.string(),
  /** When its secret was last replaced; null if never. */
  secret_changed_at: z.string().nullable(),
});
export type ApplicationView = z.infer<typeof ApplicationViewSchema>;

export const ApplicationListSchema = z.object({ data: z.array(ApplicationViewSchema) });
export type ApplicationList = z.infer<typeof ApplicationListSchema>;

/** What the gateway learns about a caller from auth. */
export const PrincipalSchema = z.object({
  accountId: z.string(),
  username: z.string(),
  via: z.enum(['basic', 'bearer', 'session']),
});
export type Principal = z.infer<typeof PrincipalSchema>;

/**
 * The header in which the gateway tells auth's verify endpoint where the client connected from;
 * auth believes it only from callers inside the deployment's network.
 */
export const CLIENT_ADDRESS_HEADER = 'x-smsgw-client-address';

export const AdminScopeSchema = z.enum(ADMIN_SCOPES);
export type AdminScope = z.infer<typeof AdminScopeSchema>;

/** An admin token's name: what the audit trail shows as the actor. */
export const AdminTokenNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.@-]{1,64}$/, 'expected 1 to 64 letters, digits or _ . @ -');

/** POST /admin/v1/tokens. */
export const CreateAdminTokenSchema = z.strictObject({
  name: AdminTokenNameSchema,
  scopes: z
    .array(AdminScopeSchema)
    .min(1, 'give at least one scope')
    .max(ADMIN_SCOPES.length)
    .transform((scopes) => [...new Set(scopes)]),
});

/** An admin token as the API shows it: never the token itself, which is shown once when made. */
export const AdminTokenViewSchema = z.object({
  name: z.string(),
  scopes: z.array(z.string()),
  created_by: z.string(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
});
export type AdminTokenView = z.infer<typeof AdminTokenViewSchema>;

/** GET /admin/v1/tokens. */
export const AdminTokenListSchema = z.object({ data: z.array(AdminTokenViewSchema) });
export type AdminTokenList = z.infer<typeof AdminTokenListSchema>;

/** POST /admin/v1/tokens: the token made, its secret shown this once. */
export const AdminTokenCreatedSchema = z.object({
  data: AdminTokenViewSchema.extend({ token: z.string() }),
});
export type AdminTokenCreated = z.infer<typeof AdminTokenCreatedSchema>;

/** DELETE /admin/v1/tokens/{name}: the token revoked, and the names of those revoked with it. */
export const AdminTokenRevokedSchema = z.object({
  data: AdminTokenViewSchema.extend({ revoked_with: z.array(z.string()) }),
});
export type AdminTokenRevoked = z.infer<typeof AdminTokenRevokedSchema>;

/** One entry of the audit trail: who did what to which target, from where, and how it ended. */
export const AuditEntryViewSchema = z.object({
  id: z.string(),
  at: z.string(),
  actor: z.string(),
  action: z.string(),
  target: z.string(),
  summary: z.record(z.string(), z.unknown()),
  address: z.string(),
  status: z.number().int(),
  result: z.string(),
});
export type AuditEntryView = z.infer<typeof AuditEntryViewSchema>;

/** GET /admin/v1/audit: a page of entries, newest first; `next` is the cursor of the next page. */
export const AuditPageSchema = z.object({
  data: z.array(AuditEntryViewSchema),
  next: z.string().nullable(),
});
export type AuditPage = z.infer<typeof AuditPageSchema>;

/** GET /admin/v1/audit: filters (each optional) and paging, newest first. */
export const AuditQuerySchema = z.strictObject({
  actor: z.string().min(1).max(128).optional(),
  action: z.string().min(1).max(200).optional(),
  /** Entries whose target starts with this (`/accounts/alice`). */
  target: z.string().min(1).max(300).optional(),
  result: z.string().min(1).max(64).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  limit: intLike(1, 500).default(100),
  cursor: z
    .string()
    .regex(/^\d{1,18}$/, 'expected the `next` value of a previous page')
    .optional(),
});
