import { z } from 'zod';
import { ConnectorNameSchema } from './routing';
import { SENDER_POLICIES, SenderRulesSchema } from './senders';

/**
 * Selling by destination (docs/billing.md): price lists of prefixes in versions, customer groups
 * carrying a list, and an account's group and own list.
 */

/** A price list's or a customer group's name. */
export const PricingNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'expected letters, digits, . _ - (at most 64)');

export const CURRENCY_PATTERN = /^[A-Z]{3}$/;

/** POST /admin/v1/price-lists. */
export const CreatePriceListSchema = z.strictObject({
  name: PricingNameSchema,
  currency: z
    .string()
    .regex(CURRENCY_PATTERN, 'expected an ISO 4217 code such as EUR')
    .default('EUR'),
});

/** POST /admin/v1/price-lists/{name}/versions: when the CSV body's version takes effect. */
export const PriceVersionQuerySchema = z.strictObject({
  /** ISO 8601 with offset; now by default. */
  effective_from: z.iso
    .datetime({ offset: true, message: 'expected an ISO 8601 time with offset' })
    .optional(),
});

/** GET /admin/v1/price-lists/{name}/csv: a version's rows; the one in effect now by default. */
export const PriceExportQuerySchema = z.strictObject({
  version: z
    .string()
    .regex(/^\d{1,18}$/, 'expected a version id')
    .optional(),
});

/** The default row's prefix: the price of a destination no other prefix matches. */
export const DEFAULT_PRICE_PREFIX = '*';

/** A price list file's rows at most (a list of every network prefix has tens of thousands). */
export const MAX_PRICE_ROWS = 500_000;

export const PriceListVersionViewSchema = z.object({
  id: z.string(),
  effective_from: z.string(),
  rows: z.number().int(),
  created_by: z.string(),
  created_at: z.string(),
  /** in effect now, to come, or past (kept for the messages priced under it). */
  status: z.enum(['current', 'future', 'past']),
});
export type PriceListVersionView = z.infer<typeof PriceListVersionViewSchema>;

export const PriceListViewSchema = z.object({
  name: z.string(),
  currency: z.string(),
  created_at: z.string(),
  versions: z.array(PriceListVersionViewSchema),
});
export type PriceListView = z.infer<typeof PriceListViewSchema>;

export const PriceListListSchema = z.object({ data: z.array(PriceListViewSchema) });
export type PriceListList = z.infer<typeof PriceListListSchema>;

/** PUT /admin/v1/groups/{name}. */
export const CustomerGroupInputSchema = z.strictObject({
  /** The list that prices its accounts' messages; null or absent: none (the route's price or rate). */
  price_list: PricingNameSchema.nullable().default(null),
  /** Messages per second each of its accounts without a cap of its own may send; 0: none. */
  throughput: z.number().nonnegative().max(100000).default(0),
  /** The sender rules of its accounts without a list of their own; null or absent: none. */
  senders: SenderRulesSchema.nullable().default(null),
});

export const CustomerGroupViewSchema = z.object({
  name: z.string(),
  price_list: z.string().nullable(),
  accounts: z.number().int(),
  throughput: z.number(),
  senders: z.object({ policy: z.enum(SENDER_POLICIES), senders: z.array(z.string()) }).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type CustomerGroupView = z.infer<typeof CustomerGroupViewSchema>;

export const CustomerGroupListSchema = z.object({ data: z.array(CustomerGroupViewSchema) });
export const CustomerGroupResultSchema = z.object({ data: CustomerGroupViewSchema });
export const PriceListResultSchema = z.object({ data: PriceListViewSchema });
export const PriceListVersionResultSchema = z.object({ data: PriceListVersionViewSchema });

export const ConnectorCostParamsSchema = z.strictObject({ connector: ConnectorNameSchema });

/** PUT /admin/v1/connector-costs/{connector}: the list of the supplier's prices (null: none). */
export const ConnectorCostInputSchema = z.strictObject({
  price_list: PricingNameSchema.nullable(),
});

export const ConnectorCostViewSchema = z.object({
  connector: z.string(),
  price_list: z.string(),
  currency: z.string(),
  updated_at: z.string(),
});
export type ConnectorCostView = z.infer<typeof ConnectorCostViewSchema>;
export const ConnectorCostListSchema = z.object({ data: z.array(ConnectorCostViewSchema) });
export type ConnectorCostList = z.infer<typeof ConnectorCostListSchema>;

/** PUT /admin/v1/accounts/{username}/pricing: each field given changes, null takes it away. */
export const AccountPricingInputSchema = z
  .strictObject({
    group: PricingNameSchema.nullable().optional(),
    /** A list of the account's own, over its group's. */
    price_list: PricingNameSchema.nullable().optional(),
    /** Postpaid: how far below zero its balance may go; 0 makes it prepaid. */
    credit_limit: z
      .union([z.number(), z.string()])
      .transform((v) => String(v))
      .pipe(
        z
          .string()
          .regex(/^\d{1,14}(\.\d{1,6})?$/, 'expected an amount ≥ 0 with at most 6 decimals'),
      )
      .optional(),
  })
  .refine(
    (v) => v.group !== undefined || v.price_list !== undefined || v.credit_limit !== undefined,
    {
      message: 'give group, price_list, credit_limit or several',
      path: ['group'],
    },
  );

export const AccountPricingViewSchema = z.object({
  data: z.object({
    username: z.string(),
    group: z.string().nullable(),
    price_list: z.string().nullable(),
    /** The list that prices its messages: its own, else its group's; null: the route or the rate. */
    priced_by: z.string().nullable(),
    /** Postpaid: how far below zero its balance may go (0: prepaid). */
    credit_limit: z.string(),
  }),
});
export type AccountPricingView = z.infer<typeof AccountPricingViewSchema>;
