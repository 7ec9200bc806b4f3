import { z } from 'zod';
import { CustomTlvsSchema } from './tlvs';
import { intLike, IsoTimeSchema } from './fields';
import { routePatternProblem } from './route-pattern';

/**
 * Connectors (named links to SMSCs) and MT routes as the admin API takes and shows them
 * (docs/routing.md).
 */

/** A connector's name: also a word of its bus routing key and a metric label, so no dots. */
export const ConnectorNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected letters, digits, _ or - (at most 64)');

/** The connector SMSC_URL defines at start, and the one a gateway without routes sends through. */
export const DEFAULT_CONNECTOR = 'default';

export const BIND_MODES = ['transceiver', 'transmitter_receiver'] as const;

/** POST /admin/v1/connectors; PATCH takes the same fields but name, each optional. */
export const ConnectorInputSchema = z
  .object({
    name: ConnectorNameSchema,
    /** smpp://, smpps://, http:// or https:// with every parameter SMSC_URL takes. */
    url: z
      .string()
      .max(2000)
      .regex(/^(smpps?|https?):\/\//, 'expected an smpp://, smpps://, http:// or https:// URL'),
    binds: intLike(1, 64).default(1),
    bind: z.enum(BIND_MODES).default('transceiver'),
  })
  .strict();
export type ConnectorInput = z.infer<typeof ConnectorInputSchema>;

export const ConnectorUpdateSchema = z
  .object({
    url: ConnectorInputSchema.shape.url.optional(),
    binds: intLike(1, 64).optional(),
    bind: z.enum(BIND_MODES).optional(),
  })
  .strict();
export type ConnectorUpdate = z.infer<typeof ConnectorUpdateSchema>;

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof DAYS)[number];

const HourMinute = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected HH:MM');

/** Every filter a route may have; all present ones must match. None: the default route. */
export const RouteFiltersSchema = z
  .object({
    /** Destination prefixes, digits in international format without '+'. */
    prefixes: z
      .array(
        z
          .string()
          .regex(/^\+?\d{1,15}$/, 'expected digits')
          .transform((s) => s.replace(/^\+/, '')),
      )
      .min(1)
      .max(10_000)
      .optional(),
    /** A regular expression (RE2 syntax, run in linear time) the whole destination must match. */
    pattern: z
      .string()
      .superRefine((p, ctx) => {
        const problem = routePatternProblem(p);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional(),
    /** Account usernames. */
    accounts: z.array(z.string().min(1).max(100)).min(1).max(1000).optional(),
    /** Customer groups (docs/billing.md): the route serves the accounts in one of them. */
    groups: z.array(z.string().min(1).max(64)).min(1).max(100).optional(),
    /** Sender ids, exactly as sent. */
    senders: z.array(z.string().min(1).max(20)).min(1).max(1000).optional(),
    /**
     * The message carries at least one of these tags. Customers choose their tags, so a route with
     * tags also names the accounts that may use it (`accounts`) or says that any may (`any_account`).
     */
    tags: z.array(z.string().min(1).max(64)).min(1).max(100).optional(),
    /** A route with tags is open to every account that gives one of them. */
    any_account: z.literal(true).optional(),
    /** Days of week and hours (from inclusive, to exclusive; from > to spans midnight). */
    window: z
      .object({
        days: z.array(z.enum(DAYS)).min(1).max(7).optional(),
        from: HourMinute.optional(),
        to: HourMinute.optional(),
        time_zone: z
          .string()
          .max(64)
          .refine((tz) => {
            try {
              new Intl.DateTimeFormat('en-US', { timeZone: tz });
              return true;
            } catch {
              return false;
            }
          }, 'expected an IANA time zone')
          .default('UTC'),
      })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((f, ctx) => {
    if (f.tags && !f.accounts && !f.groups && !f.any_account)
      ctx.addIssue({
        code: 'custom',
        path: ['accounts'],
        message:
          'a route chosen by tags names the accounts that may use it (accounts or groups), or says that any may (any_account: true)',
      });
    if (f.any_account && (!f.tags || f.accounts || f.groups))
      ctx.addIssue({
        code: 'custom',
        path: ['any_account'],
        message: 'any_account applies to a route with tags and without accounts or groups',
      });
  });
export type RouteFilters = z.infer<typeof RouteFiltersSchema>;

export const ROUTE_KINDS = ['static', 'weighted', 'failover'] as const;
export type RouteKind = (typeof ROUTE_KINDS)[number];

/** PUT /admin/v1/routes/{name}: a whole route. */
export const MtRouteInputSchema = z
  .object({
    position: intLike(1, 1_000_000),
    kind: z.enum(ROUTE_KINDS),
    /** static: one; weighted: each with a weight; failover: in the order they are tried. */
    connectors: z
      .array(
        z
          .object({ connector: ConnectorNameSchema, weight: intLike(1, 1_000_000).optional() })
          .strict(),
      )
      .min(1)
      .max(16),
    filters: RouteFiltersSchema.default({}),
    /** SMPP command_status names that pass a message to the route's next connector. */
    reroute_on: z
      .array(
        z
          .string()
          .regex(/^ESME_R[A-Z0-9_]{2,40}$/, 'expected an SMPP status name such as ESME_RINVDSTADR'),
      )
      .max(50)
      .default([]),
    /** Price per message part, overriding the account's rate; absent keeps the rate. */
    price: z
      .union([z.number(), z.string()])
      .transform((v) => String(v))
      .pipe(
        z.string().regex(/^\d{1,14}(\.\d{1,6})?$/, 'expected a price ≥ 0 with at most 6 decimals'),
      )
      .optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.kind === 'static' && r.connectors.length !== 1)
      ctx.addIssue({
        code: 'custom',
        path: ['connectors'],
        message: 'a static route has one connector',
      });
    if (r.kind === 'weighted' && r.connectors.some((c) => c.weight === undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['connectors'],
        message: 'a weighted route gives each connector a weight',
      });
    if (r.kind !== 'weighted' && r.connectors.some((c) => c.weight !== undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['connectors'],
        message: 'only a weighted route has weights',
      });
    if (new Set(r.connectors.map((c) => c.connector)).size !== r.connectors.length)
      ctx.addIssue({ code: 'custom', path: ['connectors'], message: 'a connector appears twice' });
  });
export type MtRouteInput = z.infer<typeof MtRouteInputSchema>;

/** What GET /admin/v1/connectors shows of one dispatcher's session(s) of a connector. */
export const ConnectorStatusSchema = z.object({
  connector: z.string(),
  /** The dispatcher reporting it. */
  holder: z.string(),
  bound: z.number().int(),
  windowInUse: z.number().int(),
  waiting: z.number().int(),
  /** Submits per second over the last reporting interval. */
  rate: z.number(),
  lastError: z.string().nullable(),
  lastErrorAt: z.string().nullable(),
  /** Since when its session is up, or down. */
  upSince: z.string().nullable(),
  downSince: z.string().nullable(),
  reportedAt: z.string(),
});
export type ConnectorStatus = z.infer<typeof ConnectorStatusSchema>;

/**
 * A connector as the admin API shows it: the URL with its password and secret parameters as `***`,
 * the routes that use it, and its dispatchers' fresh status rows summed.
 */
export const ConnectorViewSchema = z.object({
  name: z.string(),
  url: z.string(),
  binds: z.number().int(),
  bind: z.enum(BIND_MODES),
  desiredState: z.enum(['started', 'stopped']),
  /** Names of the routes that send through it. */
  routes: z.array(z.string()),
  /** `stopped` by an operator, `up` while any session is bound, else `down`. */
  state: z.enum(['up', 'down', 'stopped']),
  /**
   * How its traffic crosses the network: `tls` (certificate checked), `tls-unverified`
   * (`tls_insecure=true`) or `plain` (smpp://, http://).
   */
  transport: z.enum(['tls', 'tls-unverified', 'plain']),
  /** Whether its transport exposes credentials and messages (not TLS-checked, not on loopback). */
  insecure: z.boolean(),
  /** Sessions bound, summed over its dispatchers; likewise windowInUse, waiting and rate. */
  sessions: z.number().int(),
  windowInUse: z.number().int(),
  waiting: z.number().int(),
  rate: z.number(),
  /** The latest error any dispatcher reported. */
  lastError: z.string().nullable(),
  lastErrorAt: z.string().nullable(),
  upSince: z.string().nullable(),
  downSince: z.string().nullable(),
  holders: z.array(ConnectorStatusSchema),
});
export type ConnectorView = z.infer<typeof ConnectorViewSchema>;

/** An MT route as the admin API shows it; the price as an exact decimal string. */
export const MtRouteViewSchema = z.object({
  name: z.string(),
  position: z.number().int(),
  kind: z.enum(ROUTE_KINDS),
  connectors: z.array(
    z.object({ connector: z.string(), weight: z.number().int().optional() }).strict(),
  ),
  filters: z.record(z.string(), z.unknown()),
  reroute_on: z.array(z.string()),
  price: z.string().nullable(),
});
export type MtRouteView = z.infer<typeof MtRouteViewSchema>;

/**
 * PUT /admin/v1/connectors/{name}/tlvs and /admin/v1/routes/{name}/tlvs: a connector's default
 * TLVs or a route's overrides, in the shapes `custom_tlvs` takes and under its checks. An empty
 * list removes them.
 */
export const TlvListInputSchema = z.strictObject({ tlvs: CustomTlvsSchema });

/**
 * GET /admin/v1/routes/match: which MT route would take a message, as the gateway decides at
 * acceptance (docs/routing.md).
 */
export const RouteMatchQuerySchema = z.strictObject({
  to: z
    .string()
    .trim()
    .regex(/^\+?\d{1,15}$/, 'expected international digits with an optional +, at most 15 digits')
    .transform((s) => s.replace(/^\+/, '')),
  account: z.string().min(1).max(100),
  from: z.string().min(1).max(20).optional(),
  /** Comma-separated, as a message's tags. */
  tags: z
    .string()
    .max(16 * 65)
    .transform((s) => s.split(',').filter((t) => t !== ''))
    .optional(),
  /** The time of sending, for routes with a time window; now by default. */
  at: IsoTimeSchema.optional(),
});
export type RouteMatchQuery = z.infer<typeof RouteMatchQuerySchema>;

export const RouteMatchSchema = z.object({
  data: z.object({
    /** The route, or null when none takes the message (it would be refused with NO_ROUTE). */
    route: MtRouteViewSchema.nullable(),
    /** True when the gateway has no routes: every message goes to the `default` connector. */
    no_routes: z.boolean(),
    /** Routes stored that take no message (a filter the gateway cannot use), with why. */
    unusable: z.array(z.object({ name: z.string(), reason: z.string() })),
  }),
});
export type RouteMatch = z.infer<typeof RouteMatchSchema>;
