import { z } from 'zod';
import { marginOf } from './money';
import { UsernameSchema } from './admin';
import { IsoTimeSchema } from './fields';
import { ConnectorNameSchema } from './routing';

/** Statistics by UTC hour or by UTC day. */
export const STATS_PERIODS = ['hour', 'day'] as const;
export type StatsPeriod = (typeof STATS_PERIODS)[number];

/** What a statistics query may group by, beside the state every row names. */
export const STATS_GROUPS = [
  'account',
  'customer_group',
  'connector',
  'route',
  'country',
  'state',
] as const;
export type StatsGroup = (typeof STATS_GROUPS)[number];

/**
 * The range a query names no start of (the last 24 hours), and the most rows an answer holds: a
 * query over more is refused, to be asked by day, for a shorter range or with a filter.
 */
export const STATS_DEFAULTS = { sinceHours: 24, maxRows: 10_000 } as const;

/** The refusal of an answer of more than STATS_DEFAULTS.maxRows rows. */
export const STATS_TOO_MANY_ROWS = `the answer has more than ${STATS_DEFAULTS.maxRows} rows: ask by day, for a shorter range or with a filter`;

const statsFilters = {
  since: IsoTimeSchema.optional(),
  until: IsoTimeSchema.optional(),
  period: z.enum(STATS_PERIODS, { message: 'expected hour or day' }).default('hour'),
  connector: ConnectorNameSchema.optional(),
  route: ConnectorNameSchema.optional(),
  /** The destination's E.164 calling code, such as 41. */
  country: z
    .string()
    .regex(/^\+?\d{1,3}$/, 'expected a calling code such as 41')
    .transform((s) => s.replace(/^\+/, ''))
    .optional(),
};

/** GET /secure/stats: the account's own statistics (account is no group there). */
export const StatsQuerySchema = z.strictObject({
  ...statsFilters,
  group: z
    .enum(['connector', 'route', 'country', 'state'], {
      message: 'expected connector, route, country or state',
    })
    .optional(),
});
export type StatsQuery = z.infer<typeof StatsQuerySchema>;

/** GET /admin/v1/stats: across accounts, or one account's. */
export const AdminStatsQuerySchema = z.strictObject({
  ...statsFilters,
  group: z.enum(STATS_GROUPS, { message: `expected ${STATS_GROUPS.join(', ')}` }).optional(),
  account: UsernameSchema.optional(),
});
export type AdminStatsQuery = z.infer<typeof AdminStatsQuerySchema>;

const HOUR_MS = 3_600_000;
const floorHour = (ms: number): number => Math.floor(ms / HOUR_MS) * HOUR_MS;

/**
 * The hours a query covers: `since` and `until` rounded down to the hour, by default the 24 hours
 * up to the end of the current one. Answers the refusal (field and text) of a range that runs
 * backwards or is longer than `maxDays`.
 */
export function statsRange(
  q: { since?: string | undefined; until?: string | undefined },
  now: Date,
  maxDays: number,
): { since: Date; until: Date } | { field: 'since' | 'until'; text: string } {
  const untilRaw = q.until === undefined ? floorHour(now.getTime()) + HOUR_MS : Date.parse(q.until);
  const sinceRaw =
    q.since === undefined ? untilRaw - STATS_DEFAULTS.sinceHours * HOUR_MS : Date.parse(q.since);
  if (untilRaw <= sinceRaw) return { field: 'until', text: 'must be after since' };
  const since = floorHour(sinceRaw);
  const until = floorHour(untilRaw);
  if (until - since > maxDays * 24 * HOUR_MS)
    return {
      field: q.since === undefined ? 'until' : 'since',
      text: `the range is at most ${maxDays} days (SEARCH_MAX_DAYS)`,
    };
  return { since: new Date(since), until: new Date(until) };
}

/** One row: a period, the group's value (null: none), a state, and what its messages came to. */
export const StatsRowSchema = z.object({
  /** The start of the UTC hour or day. */
  period: z.string(),
  account: z.string().optional(),
  /** The account's customer group as it is now (null: none). */
  customer_group: z.string().nullable().optional(),
  connector: z.string().nullable().optional(),
  route: z.string().nullable().optional(),
  country: z.string().nullable().optional(),
  /** A message state, or `unknown` for a failure whose outcome is unknown. */
  state: z.string(),
  messages: z.number().int(),
  /** Parts (segments) charged for. */
  parts: z.number().int(),
  /** The messages' cost, as debited at acceptance. */
  charged: z.string(),
  /** What of it was given back. */
  refunded: z.string(),
  /**
   * Operators only: what they cost us, as their connectors' cost lists priced them (a cost not
   * known counts 0), and charged less refunded less that.
   */
  cost: z.string().optional(),
  margin: z.string().optional(),
});
export type StatsRow = z.infer<typeof StatsRowSchema>;

export const StatsTotalsSchema = z.object({
  messages: z.number().int(),
  parts: z.number().int(),
  charged: z.string(),
  refunded: z.string(),
  cost: z.string().optional(),
  margin: z.string().optional(),
});
export type StatsTotals = z.infer<typeof StatsTotalsSchema>;

export const StatsResultSchema = z.object({
  data: z.object({
    /** The range's hours as counted: since and until rounded down to the hour. */
    since: z.string(),
    until: z.string(),
    period: z.enum(STATS_PERIODS),
    group: z.enum(STATS_GROUPS).nullable(),
    rows: z.array(StatsRowSchema),
    totals: StatsTotalsSchema,
    /**
     * The acceptance time up to which the messages are counted (those still pending aside); null
     * before the first count.
     */
    asOf: z.string().nullable(),
    /** Every hour of the range that has begun is counted for good: past the watermark, none pending. */
    settled: z.boolean(),
  }),
});
export type StatsResult = z.infer<typeof StatsResultSchema>;

/** A row as the statistics store reads it: counts as text (bigint and numeric sums). */
export interface StatsCount {
  period: Date;
  value: string | null;
  state: string;
  messages: string;
  parts: string;
  charged: string;
  refunded: string;
  cost: string;
}

/** The answer to a statistics query, from the rows, totals and freshness read. */
export function statsAnswer(read: {
  since: Date;
  until: Date;
  period: StatsPeriod;
  group?: StatsGroup | undefined;
  rows: readonly StatsCount[];
  totals: Omit<StatsCount, 'period' | 'value' | 'state'>;
  asOf: Date | null;
  settled: boolean;
  /** Cost and margin are the operator's business, not shown to customers. */
  costs: boolean;
}): StatsResult {
  const group = read.group;
  const money = (r: { charged: string; refunded: string; cost: string }) => ({
    charged: r.charged,
    refunded: r.refunded,
    ...(read.costs && { cost: r.cost, margin: marginOf(r.charged, r.refunded, r.cost) }),
  });
  const named = (value: string | null): Partial<StatsRow> => {
    if (group === undefined || group === 'state') return {};
    if (group === 'account') return { account: value ?? '' };
    return { [group]: value === '' ? null : value };
  };
  return {
    data: {
      since: read.since.toISOString(),
      until: read.until.toISOString(),
      period: read.period,
      group: group ?? null,
      rows: read.rows.map((r) => ({
        period: r.period.toISOString(),
        ...named(r.value),
        state: r.state,
        messages: Number(r.messages),
        parts: Number(r.parts),
        ...money(r),
      })),
      totals: {
        messages: Number(read.totals.messages),
        parts: Number(read.totals.parts),
        ...money(read.totals),
      },
      asOf: read.asOf?.toISOString() ?? null,
      settled: read.settled,
    },
  };
}

/** GET /admin/v1/stats/live: the last minutes, by minute (at most 3 hours). */
export const LiveStatsQuerySchema = z.strictObject({
  minutes: z
    .string()
    .regex(/^\d{1,3}$/, 'expected a number of minutes')
    .transform(Number)
    .pipe(z.number().int().min(1, 'at least 1').max(180, 'at most 180'))
    .default(60),
});

export const LiveMinuteSchema = z.object({
  /** The start of the UTC minute the messages were accepted in. */
  minute: z.string(),
  accepted: z.number().int(),
  delivered: z.number().int(),
  /** Ended without reaching the handset: refused, failed, expired or undelivered. */
  failed: z.number().int(),
  /** Not ended: waiting, being submitted, or at the SMSC awaiting its receipt. */
  waiting: z.number().int(),
  cancelled: z.number().int(),
});
export type LiveMinute = z.infer<typeof LiveMinuteSchema>;

export const LiveStatsSchema = z.object({
  data: z.object({
    /** The first minute covered, and the time of the reading. */
    since: z.string(),
    until: z.string(),
    /** Every minute of the range, oldest first, those without messages as zeros. */
    minutes: z.array(LiveMinuteSchema),
  }),
});
export type LiveStats = z.infer<typeof LiveStatsSchema>;
