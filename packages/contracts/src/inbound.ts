import { z } from 'zod';
import { AddressSchema, HttpUrlSchema, intLike } from './fields';

/** An inbound (MO) message as the API shows it (GET /secure/inbound, webhooks in JSON). */
export const InboundMessageViewSchema = z.object({
  id: z.string(),
  from: z.string(),
  to: z.string(),
  connector: z.string(),
  /** SMPP data_coding as received. */
  coding: z.number().int(),
  /** The decoded text; null when the coding is not text (then `binary` holds the bytes in hex). */
  text: z.string().nullable(),
  binary: z.string().nullable(),
  keyword: z.string().nullable(),
  /** Parts still missing when it was delivered. */
  incomplete: z.boolean(),
  parts: z.object({ expected: z.number().int(), received: z.number().int() }),
  /** received, routed, delivered (its webhook answered), failed (given up), unrouted. */
  state: z.string(),
  receivedAt: z.string(),
});
export type InboundMessageView = z.infer<typeof InboundMessageViewSchema>;

/** GET /secure/inbound: a page of the account's inbound messages, newest first. */
export const InboundPageSchema = z.object({
  data: z.object({ messages: z.array(InboundMessageViewSchema), next: z.string().nullable() }),
});
export type InboundPage = z.infer<typeof InboundPageSchema>;

/** An opted-out number of an account, and how it came to be (a STOP keyword, the account, the admin). */
export const OptOutViewSchema = z.object({
  number: z.string(),
  source: z.string(),
  createdAt: z.string(),
});
export type OptOutView = z.infer<typeof OptOutViewSchema>;

/** GET /secure/optouts: a page of the account's opted-out numbers, in number order. */
export const OptOutPageSchema = z.object({
  data: z.object({ optouts: z.array(OptOutViewSchema), next: z.string().nullable() }),
});
export type OptOutPage = z.infer<typeof OptOutPageSchema>;

const IsoTime = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), 'expected an ISO 8601 time')
  .transform((s) => new Date(s));

/** GET /secure/inbound: newest first, `cursor` from the previous page's `next`. */
export const InboundListQuerySchema = z
  .object({
    limit: intLike(1, 500).default(50),
    cursor: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,200}$/, 'expected the `next` value of a previous page')
      .optional(),
    to: AddressSchema.optional(),
    from: AddressSchema.optional(),
    since: IsoTime.optional(),
    until: IsoTime.optional(),
  })
  .strict();

/** POST /secure/optouts and the admin's equivalent. */
export const OptOutRequestSchema = z.object({ number: AddressSchema }).strict();

/** GET /secure/optouts: in number order, `cursor` from the previous page's `next`. */
export const OptOutListQuerySchema = z
  .object({
    limit: intLike(1, 1000).default(100),
    cursor: z
      .string()
      .regex(/^\d{1,15}$/, 'expected the `next` value of a previous page')
      .optional(),
  })
  .strict();

/** An MO route as the admin API takes it (PUT /admin/v1/mo-routes/{name}). */
export const MoRouteSchema = z
  .object({
    position: intLike(1, 1_000_000),
    /** The number the message was sent to: a prefix, or the exact number with `exact`. */
    to: z
      .string()
      .regex(/^\+?\d{1,15}$/, 'expected digits')
      .transform((s) => s.replace(/^\+/, ''))
      .optional(),
    exact: z.boolean().default(false),
    keyword: z
      .string()
      .regex(/^\S{1,50}$/, 'expected one word')
      .transform((s) => s.toUpperCase())
      .optional(),
    /** The connector whose messages it takes; absent: `default`, the one SMSC_URL defines. */
    connector: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, 'expected a connector name')
      .optional(),
    /** Messages of any connector: any upstream may then claim any number and reach this route. */
    any_connector: z.boolean().default(false),
    account: z.string().min(1).max(100),
    webhook_url: HttpUrlSchema.optional(),
    /**
     * json: a JSON POST; jasmin: Jasmin's MO form fields; kannel: `webhook_url` is a Kannel
     * sms-service URL template, called with GET, its answer sent back to the sender as a reply.
     */
    webhook_format: z.enum(['json', 'jasmin', 'kannel']).default('json'),
    /** kannel: whether the service's answer goes back to the sender (Kannel's default: it does). */
    kannel_reply: z.boolean().default(true),
    /** Also deliver it to the account's SMPP receiver sessions as deliver_sm (docs/smpp-server.md). */
    smpp: z.boolean().default(false),
  })
  .strict()
  .refine((r) => !(r.any_connector === true && r.connector !== undefined), {
    message: 'give connector or any_connector, not both',
    path: ['any_connector'],
  })
  .refine((r) => r.webhook_format !== 'kannel' || r.webhook_url !== undefined, {
    message: 'a kannel route calls its webhook_url: give one',
    path: ['webhook_url'],
  });
export type MoRouteInput = z.infer<typeof MoRouteSchema>;

export const RouteNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'expected letters, digits, . _ - (at most 64)');

/** What an HTTP upstream posts for one inbound message (form fields or JSON). */
export const HttpInboundSchema = z
  .object({
    from: z.string().regex(/^\+?[0-9A-Za-z]{1,20}$/, 'expected the sender number'),
    to: z.string().regex(/^\+?[0-9]{1,20}$/, 'expected the number it was sent to'),
    text: z.string().max(10_000).optional(),
    binary: z
      .string()
      .regex(/^([0-9a-fA-F]{2}){1,10000}$/, 'expected hex bytes')
      .optional(),
    coding: z.coerce.number().int().min(0).max(255).optional(),
  })
  .strict()
  .refine((m) => (m.text === undefined) !== (m.binary === undefined), {
    message: 'give text or binary',
    path: ['text'],
  });

/** The connector an MO route names when it names none: the one SMSC_URL defines. */
export const DEFAULT_MO_CONNECTOR = 'default';

/** The secret an HTTP upstream presents as its connector (PUT …/connectors/{name}/inbound-secret). */
export const InboundSecretSchema = z
  .object({
    secret: z
      .string()
      .regex(/^[\x21-\x7e]{32,256}$/, 'expected 32 to 256 printable characters without spaces'),
  })
  .strict();

/** One opt-out or opt-in word: what a subscriber writes as the first word of a message. */
const OptOutWordSchema = z
  .string()
  .regex(/^\S{1,50}$/u, 'expected one word')
  .refine((w) => !w.includes('\u0000'), 'expected one word')
  .transform((s) => s.toUpperCase());

/**
 * An account's opt-out settings (PUT /admin/v1/accounts/{username}/optout-words). A list that is
 * null (or absent) is the gateway's default words; an empty list is none at all.
 */
export const OptOutSettingsSchema = z
  .object({
    optout: z.array(OptOutWordSchema).max(50).nullable().default(null),
    optin: z.array(OptOutWordSchema).max(50).nullable().default(null),
    /** One-time passwords and alerts: the opt-out list does not hold this account's sends. */
    transactional: z.boolean().default(false),
  })
  .strict()
  // Trusts no earlier check: a refinement may see a value its field refused.
  .refine(
    (s) =>
      !Array.isArray(s.optout) ||
      !Array.isArray(s.optin) ||
      !s.optout.some((w) => (s.optin as unknown[]).includes(w)),
    { message: 'a word cannot both opt out and opt in', path: ['optin'] },
  );
export type OptOutSettingsInput = z.infer<typeof OptOutSettingsSchema>;

/** An inbound message as it is recorded (the columns of inbound_messages). */
export interface InboundRecord {
  id: string;
  connector: string;
  from: string;
  to: string;
  coding: number;
  content: string | null;
  hexContent: string | null;
  partsExpected: number;
  partsReceived: number;
  incomplete: boolean;
  keyword: string | null;
  /** The duplicate keys in the current window and the one before (docs/inbound.md § Duplicates). */
  dedupKey: string;
  previousDedupKey: string;
}

/** An MO route as the admin API shows it. */
export const MoRouteViewSchema = z.object({
  name: z.string(),
  position: z.number().int(),
  to: z.string().nullable(),
  exact: z.boolean(),
  keyword: z.string().nullable(),
  connector: z.string().nullable(),
  any_connector: z.boolean(),
  account: z.string(),
  webhook_url: z.string().nullable(),
  webhook_format: z.enum(['json', 'jasmin', 'kannel']),
  kannel_reply: z.boolean(),
  smpp: z.boolean(),
});
export type MoRouteView = z.infer<typeof MoRouteViewSchema>;

export const MoRouteListSchema = z.object({ data: z.array(MoRouteViewSchema) });
export type MoRouteList = z.infer<typeof MoRouteListSchema>;

/** GET /admin/v1/mo-routes/match: which MO route would take a message sent to `to`. */
export const MoRouteMatchQuerySchema = z.strictObject({
  to: AddressSchema,
  /** The message's text: its first word is the keyword routes match. */
  text: z.string().max(1600).optional(),
  connector: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'expected a connector name')
    .default(DEFAULT_MO_CONNECTOR),
});

export const MoRouteMatchSchema = z.object({
  data: z.object({
    /** The route, or null: the message would be kept as unrouted. */
    route: MoRouteViewSchema.nullable(),
    /** The keyword read from the text (its first word, in capitals), or null. */
    keyword: z.string().nullable(),
  }),
});
export type MoRouteMatch = z.infer<typeof MoRouteMatchSchema>;
