import { z } from 'zod';
import { MoneySchema, SenderSchema } from './fields';

export const UsernameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.@-]{1,64}$/, 'expected 1 to 64 letters, digits or _ . @ -');

export const CreateAccountSchema = z.strictObject({
  username: UsernameSchema,
  password: z.string().min(8, 'must be at least 8 characters').max(256),
  /** Omitted or null: unlimited. */
  balance: MoneySchema.refine((s) => !s.startsWith('-'), 'must not be negative')
    .nullable()
    .optional(),
  sms_count: z.number().int().nonnegative().nullable().optional(),
  /** Price of one SMS segment, debited from balance. */
  rate: MoneySchema.refine((s) => !s.startsWith('-'), 'must not be negative').optional(),
  default_from: SenderSchema.optional(),
  /** Messages per second for this account across the cluster; 0 = unlimited. */
  throughput: z.number().nonnegative().max(100000).optional(),
});
export type CreateAccount = z.output<typeof CreateAccountSchema>;

export const CreditSchema = z.strictObject({
  amount: MoneySchema,
  sms_count: z.number().int().optional(),
});
export type Credit = z.output<typeof CreditSchema>;

export const CreateApplicationSchema = z.strictObject({
  name: z.string().min(1).max(128).optional(),
});

export const AccountViewSchema = z.object({
  id: z.string(),
  username: z.string(),
  balance: z.string(),
  sms_count: z.string(),
  rate: z.string(),
  default_from: z.string().nullable(),
  throughput: z.number(),
  created_at: z.string(),
});
export type AccountView = z.infer<typeof AccountViewSchema>;

export const ApplicationCreatedSchema = z.object({
  client_id: z.string(),
  client_secret: z.string(),
  name: z.string().nullable(),
});

/** What the gateway learns about a caller from auth. */
export const PrincipalSchema = z.object({
  accountId: z.string(),
  username: z.string(),
  via: z.enum(['basic', 'bearer']),
});
export type Principal = z.infer<typeof PrincipalSchema>;

/**
 * The header in which the gateway tells auth's verify endpoint where the client connected from;
 * auth believes it only from callers inside the deployment's network.
 */
export const CLIENT_ADDRESS_HEADER = 'x-smsgw-client-address';
