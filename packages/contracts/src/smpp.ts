import { z } from 'zod';
import { isIP } from 'node:net';
import { storableText } from './text';

/**
 * An account's SMPP password. SMPP 3.4 (5.2.2, `password`) gives it at most 9 octets with the
 * terminating NULL, so at most 8 characters, printable ASCII; fewer would be easier to guess than
 * the field allows, so it is exactly 8.
 */
export const SmppPasswordSchema = storableText()
  .min(8, 'SMPP passwords are 8 characters (SMPP 3.4 allows no more, and fewer are weaker)')
  .max(8, 'SMPP passwords are 8 characters (SMPP 3.4 allows no more)')
  .regex(/^[\x21-\x7e]+$/, 'expected printable ASCII without spaces');

/** An address a customer may bind from: one IP address, or a CIDR range of them. */
export const BindAddressSchema = z
  .string()
  .max(64)
  .refine((value) => {
    const [ip, bits, extra] = value.split('/');
    if (extra !== undefined || !ip || isIP(ip) === 0) return false;
    if (bits === undefined) return true;
    const max = isIP(ip) === 4 ? 32 : 128;
    return /^\d{1,3}$/.test(bits) && Number(bits) <= max;
  }, 'expected an IP address or a CIDR range');

/** PUT /admin/v1/accounts/{username}/smpp: the first PUT needs a password; later ones change what they give. */
export const SmppAccessSchema = z.strictObject({
  password: SmppPasswordSchema.optional(),
  max_sessions: z.number().int().min(1).max(1000).optional(),
  /** Messages per second over all of the account's sessions; null: no limit. */
  throughput: z.number().int().min(1).max(100_000).nullable().optional(),
  allowed_addresses: z.array(BindAddressSchema).max(100).optional(),
});
export type SmppAccessInput = z.output<typeof SmppAccessSchema>;

/** What the admin API shows of an account's SMPP access (never its password). */
export const SmppAccessViewSchema = z.object({
  system_id: z.string(),
  max_sessions: z.number().int(),
  throughput: z.number().int().nullable(),
  allowed_addresses: z.array(z.string()),
});
export type SmppAccessView = z.output<typeof SmppAccessViewSchema>;

/** The internal check of a bind (smpp-server → auth), and what it answers. */
export const SmppBindCheckSchema = z.strictObject({
  system_id: z.string().min(1).max(64),
  password: z.string().max(64),
  address: z.string().max(64).optional(),
});
export type SmppBindCheck = z.output<typeof SmppBindCheckSchema>;

export const SmppAccountSchema = z.object({
  accountId: z.string(),
  username: z.string(),
  maxSessions: z.number().int(),
  throughput: z.number().int().nullable(),
  allowedAddresses: z.array(z.string()),
  /**
   * Names the password the session bound with, so a new password can unbind it. Absent from an
   * auth of the release before (a rolling upgrade): such a session is not told from a new one.
   */
  credential: z.string().optional(),
});
export type SmppAccount = z.output<typeof SmppAccountSchema>;

/** A session bound to an smpp-server replica, as the admin API lists it. */
export const SmppSessionViewSchema = z.object({
  id: z.string(),
  system_id: z.string(),
  bind_type: z.enum(['transmitter', 'receiver', 'transceiver']),
  address: z.string(),
  since: z.string(),
  window_in_use: z.number().int(),
  submits_per_second: z.number().int(),
  replica: z.string(),
});
export type SmppSessionView = z.output<typeof SmppSessionViewSchema>;

/** GET /admin/v1/smpp/sessions. */
export const SmppSessionListSchema = z.object({ data: z.array(SmppSessionViewSchema) });

/** A session's id in a path. */
export const SmppSessionIdSchema = z.uuid();

/** What waits for one account's SMPP receiver sessions to take it (GET /admin/v1/smpp/waiting). */
export const SmppWaitingViewSchema = z.object({
  account: z.string(),
  receipts: z.number().int(),
  inbound: z.number().int(),
  /** When the one waiting longest was made. */
  oldest_at: z.string(),
  /** The most times one was sent without the session's answer. */
  max_attempts: z.number().int(),
});
export type SmppWaitingView = z.output<typeof SmppWaitingViewSchema>;

export const SmppWaitingListSchema = z.object({
  data: z.object({
    accounts: z.array(SmppWaitingViewSchema),
    /** Receipts and inbound messages waiting, over every account (the list holds at most 100). */
    receipts: z.number().int(),
    inbound: z.number().int(),
  }),
});
export type SmppWaitingList = z.output<typeof SmppWaitingListSchema>;
