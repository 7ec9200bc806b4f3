import {
  FINAL_STATES,
  UNKNOWN_OUTCOME_ERROR,
  type StatsCount,
  type StatsGroup,
  type StatsPeriod,
} from '@smsgw/contracts';
import { timeIdFloor, type Db, type Queryable } from '@smsgw/kit';
import { refundedAmount } from './messages';
import { sqlList } from './sql-list';

/**
 * Statements on `message_stats`, `message_stats_accounts`, `message_stats_daily`,
 * `message_stats_watermark` and `message_stats_pending`: the statistics by hour of acceptance, the
 * same by hour, account and state alone, and by UTC day without the account (docs/operators.md §
 * Statistics). Each message is counted once:
 * in the slice of acceptance time it falls in when it had ended by then, else once it ends (or
 * settles); the query reads only these tables, never the messages.
 * countStatsSlice and countPendingStats read `messages` (and, through refundedAmount,
 * `credit_ledger` and `message_parts`); firstMessageHour reads the oldest message id; statsSource
 * reads the names of `accounts` and of their `customer_groups`.
 */

export const HOUR_MS = 3_600_000;

/** The start of the UTC hour `at` falls in. */
export function hourOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
}

/**
 * The state a statistics row names: a message's state, and `unknown` for a failure whose outcome
 * is unknown, as the search names it.
 */
const STATS_STATE = `CASE WHEN m.state = 'failed' AND m.error = '${UNKNOWN_OUTCOME_ERROR}' THEN 'unknown' ELSE m.state END`;

/** Message states that never change again: a message in one is counted for good. */
const ENDED = sqlList(FINAL_STATES);

/** The hour of the oldest message (read in id order, off the primary key), if any. */
export async function firstMessageHour(db: Queryable): Promise<Date | undefined> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM messages ORDER BY id LIMIT 1');
  if (rows[0] === undefined) return undefined;
  const ms = parseInt(rows[0].id.replace(/-/g, '').slice(0, 12), 16);
  return hourOf(new Date(ms));
}

/** The acceptance time up to which messages are counted; undefined before the first slice. */
export async function statsWatermark(db: Queryable): Promise<Date | undefined> {
  const { rows } = await db.query<{ counted_until: Date | null }>(
    'SELECT counted_until FROM message_stats_watermark',
  );
  return rows[0]?.counted_until ?? undefined;
}

/**
 * Adds counted messages to their hours' rows, their accounts' hourly rows and their days' rows, in
 * one statement: `source`
 * names rows of (hour, account_id, connector, route, prefix, state, messages, parts, charged,
 * refunded, supplier_cost), grouped by them. The country is named once per group of the
 * destinations' first three digits (all a calling code can span), not once per message; an
 * existing row is added to.
 */
function addToStats(source: string): string {
  return `counted AS (
         SELECT hour, account_id, connector, route, smsgw_calling_code(prefix) AS country, state,
                sum(messages)::bigint AS messages, sum(parts)::bigint AS parts,
                sum(charged) AS charged, sum(refunded) AS refunded, sum(supplier_cost) AS supplier_cost
           FROM ${source}
          GROUP BY 1, 2, 3, 4, 5, 6
       ), stored AS (
         INSERT INTO message_stats AS s (hour, account_id, connector, route, country, state, messages, parts, charged, refunded, supplier_cost)
         SELECT hour, account_id, connector, route, country, state, messages, parts, charged, refunded, supplier_cost FROM counted
         ON CONFLICT (hour, account_id, connector, route, country, state) DO UPDATE
            SET messages = s.messages + EXCLUDED.messages, parts = s.parts + EXCLUDED.parts,
                charged = s.charged + EXCLUDED.charged, refunded = s.refunded + EXCLUDED.refunded,
                supplier_cost = s.supplier_cost + EXCLUDED.supplier_cost
       ), stored_accounts AS (
         INSERT INTO message_stats_accounts AS t (hour, account_id, state, messages, parts, charged, refunded, supplier_cost)
         SELECT hour, account_id, state, sum(messages), sum(parts), sum(charged), sum(refunded), sum(supplier_cost)
           FROM counted
          GROUP BY 1, 2, 3
         ON CONFLICT (hour, account_id, state) DO UPDATE
            SET messages = t.messages + EXCLUDED.messages, parts = t.parts + EXCLUDED.parts,
                charged = t.charged + EXCLUDED.charged, refunded = t.refunded + EXCLUDED.refunded,
                supplier_cost = t.supplier_cost + EXCLUDED.supplier_cost
       ), stored_daily AS (
         INSERT INTO message_stats_daily AS d (day, connector, route, country, state, messages, parts, charged, refunded, supplier_cost)
         SELECT date_trunc('day', hour, 'UTC'), connector, route, country, state,
                sum(messages), sum(parts), sum(charged), sum(refunded), sum(supplier_cost)
           FROM counted
          GROUP BY 1, 2, 3, 4, 5
         ON CONFLICT (day, connector, route, country, state) DO UPDATE
            SET messages = d.messages + EXCLUDED.messages, parts = d.parts + EXCLUDED.parts,
                charged = d.charged + EXCLUDED.charged, refunded = d.refunded + EXCLUDED.refunded,
                supplier_cost = d.supplier_cost + EXCLUDED.supplier_cost
       )`;
}

/** The columns a message is grouped by and summed into, from messages alias `m`. */
const GROUPED = `COALESCE(m.connector, '') AS connector, COALESCE(m.route, '') AS route,
                left(m.to_addr, 3) AS prefix, ${STATS_STATE} AS state`;

export interface StatsSlice {
  /** The acceptance times counted: from (inclusive) to (exclusive), within one hour. */
  from: Date;
  to: Date;
  /** Messages that had ended, added to the statistics. */
  counted: number;
  /** Messages not ended yet, left to countPendingStats. */
  pending: number;
}

export interface SliceOptions {
  /** Count up to this acceptance time at most (the present less STATS_LAG_SECONDS). */
  until: Date;
  /** Nothing before this is counted: where a first slice starts, and what retention keeps. */
  floor: Date;
  /** Wait for a slice another scheduler is counting, instead of passing by. */
  wait?: boolean;
}

/**
 * Counts the next slice of messages by acceptance time, from the watermark to `until` but within
 * one hour, in one transaction and one pass over the slice's id range (the primary key of the
 * partition that holds it): the ended ones are added to their hour's rows, the others go to
 * `message_stats_pending`, and the watermark moves to the slice's end. The watermark's row is
 * locked first, so no slice is counted twice; undefined when another scheduler holds it or there
 * is nothing to count yet.
 */
export async function countStatsSlice(
  db: Db,
  options: SliceOptions,
): Promise<StatsSlice | undefined> {
  return db.transaction(async (tx) => {
    const locked = await tx.query<{ counted_until: Date | null }>(
      `SELECT counted_until FROM message_stats_watermark
          FOR UPDATE${options.wait === true ? '' : ' SKIP LOCKED'}`,
    );
    const row = locked.rows[0];
    if (row === undefined) return undefined;
    const watermark = row.counted_until;
    const from =
      watermark === null || watermark.getTime() < options.floor.getTime()
        ? options.floor
        : watermark;
    const hour = hourOf(from);
    const to = new Date(Math.min(options.until.getTime(), hour.getTime() + HOUR_MS));
    if (to.getTime() <= from.getTime()) return undefined;
    const { rows } = await tx.query<{ counted: string; pending: string }>(
      `WITH slice AS MATERIALIZED (
         SELECT m.id, m.account_id, m.connector, m.route, m.to_addr, m.state, m.error, m.segments,
                m.cost, m.supplier_cost, m.unanswered_submits, m.state IN (${ENDED}) AS ended
           FROM messages m
          WHERE m.id >= $2::uuid AND m.id < $3::uuid
       ), pending AS (
         INSERT INTO message_stats_pending (id, hour)
         SELECT id, $1 FROM slice WHERE NOT ended
         ON CONFLICT (id) DO NOTHING
         RETURNING id
       ), by_prefix AS (
         SELECT $1::timestamptz AS hour, m.account_id, ${GROUPED},
                count(*) AS messages, COALESCE(sum(m.segments), 0) AS parts,
                COALESCE(sum(m.cost), 0) AS charged, COALESCE(sum(${refundedAmount('m')}), 0) AS refunded,
                COALESCE(sum(m.supplier_cost), 0) AS supplier_cost
           FROM slice m
          WHERE m.ended
          GROUP BY 1, 2, 3, 4, 5, 6
       ), ${addToStats('by_prefix')}
       SELECT (SELECT COALESCE(sum(messages), 0) FROM counted)::text AS counted,
              (SELECT count(*) FROM pending)::text AS pending`,
      [hour, timeIdFloor(from), timeIdFloor(to)],
    );
    await tx.query('UPDATE message_stats_watermark SET counted_until = $1', [to]);
    return { from, to, counted: Number(rows[0].counted), pending: Number(rows[0].pending) };
  });
}

export interface PendingCount {
  /** Pending messages that have ended since, added to the statistics. */
  ended: number;
  /** Pending messages of hours before `settleBefore`, added as the state they have now. */
  settled: number;
}

export interface PendingOptions {
  now: Date;
  /** The pending messages of the hours before this are counted as they are: their hours are final. */
  settleBefore: Date;
  /** Wait for a count another scheduler is making, instead of passing by. */
  wait?: boolean;
}

/**
 * Whether pending messages of hour `p.hour` are looked at now ($2) after a look at $3: every time
 * within their hour's first two hours, then each time the hour's age has grown by a tenth, so a
 * message whose receipt never comes is looked at some forty times after those two hours before
 * it settles, not at every round.
 */
const PENDING_DUE = `(p.hour > $2::timestamptz - interval '2 hours' OR $3::timestamptz IS NULL
       OR floor(ln(extract(epoch FROM $2::timestamptz - p.hour)) / ln(1.1))
          <> floor(ln(greatest(extract(epoch FROM $3::timestamptz - p.hour), 1)) / ln(1.1)))`;

/**
 * Counts the due pending messages (PENDING_DUE) that have ended since their slice was counted, and
 * those of the hours before `settleBefore` whatever their state, and removes them from
 * `message_stats_pending`, in one transaction. A message found by id: an index probe each.
 * Deleting is what claims a message; the watermark's row is locked first as by a slice, so that
 * two counts never add to the same rows at once (undefined: another scheduler holds it). A pending
 * message whose row is gone is removed uncounted once its hour is before `settleBefore`.
 */
export async function countPendingStats(
  db: Db,
  options: PendingOptions,
): Promise<PendingCount | undefined> {
  return db.transaction(async (tx) => {
    const locked = await tx.query<{ pending_checked_at: Date | null }>(
      `SELECT pending_checked_at FROM message_stats_watermark
          FOR UPDATE${options.wait === true ? '' : ' SKIP LOCKED'}`,
    );
    const row = locked.rows[0];
    if (row === undefined) return undefined;
    const { rows } = await tx.query<{ ended: string; settled: string }>(
      `WITH claimed AS (
         DELETE FROM message_stats_pending p USING messages m
          WHERE m.id = p.id
            AND (p.hour < $1 OR (${PENDING_DUE} AND m.state IN (${ENDED})))
         RETURNING p.hour, m.account_id, ${GROUPED}, m.segments, m.cost, m.supplier_cost,
                   ${refundedAmount('m')} AS refunded, m.state IN (${ENDED}) AS ended
       ), by_prefix AS (
         SELECT hour, account_id, connector, route, prefix, state,
                count(*) AS messages, COALESCE(sum(segments), 0) AS parts,
                COALESCE(sum(cost), 0) AS charged, COALESCE(sum(refunded), 0) AS refunded,
                COALESCE(sum(supplier_cost), 0) AS supplier_cost
           FROM claimed
          GROUP BY 1, 2, 3, 4, 5, 6
       ), ${addToStats('by_prefix')}
       SELECT count(*) FILTER (WHERE ended)::text AS ended,
              count(*) FILTER (WHERE NOT ended)::text AS settled
         FROM claimed`,
      [options.settleBefore, options.now, row.pending_checked_at],
    );
    await tx.query('DELETE FROM message_stats_pending WHERE hour < $1', [options.settleBefore]);
    await tx.query('UPDATE message_stats_watermark SET pending_checked_at = $1', [options.now]);
    return { ended: Number(rows[0].ended), settled: Number(rows[0].settled) };
  });
}

/**
 * Removes the statistics of the hours before `before`, and their pending messages, and the days
 * all of whose hours are before it; answers how many rows of hourly statistics.
 */
export async function deleteStatsBefore(db: Db, before: Date): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.query('DELETE FROM message_stats_pending WHERE hour < $1', [before]);
    await tx.query(
      `DELETE FROM message_stats_daily WHERE day + interval '23 hours' < $1::timestamptz`,
      [before],
    );
    await tx.query('DELETE FROM message_stats_accounts WHERE hour < $1', [before]);
    const { rowCount } = await tx.query('DELETE FROM message_stats WHERE hour < $1', [before]);
    return rowCount;
  });
}

/** Removes all statistics and starts the count over (a benchmark's roll from nothing). */
export async function restartStats(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('DELETE FROM message_stats_pending');
    await tx.query('DELETE FROM message_stats');
    await tx.query('DELETE FROM message_stats_accounts');
    await tx.query('DELETE FROM message_stats_daily');
    await tx.query(
      'UPDATE message_stats_watermark SET counted_until = NULL, pending_checked_at = NULL',
    );
  });
}

/**
 * Whether the daily rows and the accounts' rows hold what the hourly rows hold: a database whose
 * days were never filled (its statistics counted before the days were kept) does not.
 */
export async function dailyStatsAgree(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ agree: boolean }>(
    `WITH hourly AS (SELECT COALESCE(sum(messages), 0) AS n FROM message_stats)
     SELECT (SELECT n FROM hourly) = (SELECT COALESCE(sum(messages), 0) FROM message_stats_daily)
        AND (SELECT n FROM hourly) = (SELECT COALESCE(sum(messages), 0) FROM message_stats_accounts)
            AS agree`,
  );
  return rows[0].agree;
}

/** Seconds from the watermark to `now` (0 before the first slice). */
export async function statsRollupLagSeconds(db: Queryable, now: Date): Promise<number> {
  const watermark = await statsWatermark(db);
  if (watermark === undefined) return 0;
  return Math.max(0, (now.getTime() - watermark.getTime()) / 1000);
}

/** Messages waiting in `message_stats_pending` for their end. */
export async function pendingStatsCount(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    'SELECT count(*)::text AS n FROM message_stats_pending',
  );
  return Number(rows[0].n);
}

export interface StatsFilter {
  /** Hour starts: the hours at or after `since` and before `until`. */
  since: Date;
  until: Date;
  period: StatsPeriod;
  group?: StatsGroup | undefined;
  accountId?: string | undefined;
  connector?: string | undefined;
  route?: string | undefined;
  country?: string | undefined;
}

/** A statistics row as read: the counts as text (bigint and numeric sums). */
export type StatsCountRow = StatsCount;

const DAY_MS = 24 * HOUR_MS;

/** The filter's terms but the time, on `s`, with their parameters numbered after `params`. */
function statsTerms(f: StatsFilter, params: unknown[]): string[] {
  const terms: string[] = [];
  const add = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    params.push(value);
    terms.push(`${column} = $${params.length}`);
  };
  add('s.account_id', f.accountId);
  add('s.connector', f.connector);
  add('s.route', f.route);
  add('s.country', f.country);
  return terms;
}

/**
 * The hourly table a query reads: the rows by account and state alone when it neither names nor
 * groups by a connector, a route or a country, else the full rows.
 */
function hoursTable(f: StatsFilter): string {
  const byAccount =
    f.connector === undefined &&
    f.route === undefined &&
    f.country === undefined &&
    (f.group === undefined || f.group === 'state' || groupsByAccount(f.group));
  return byAccount ? 'message_stats_accounts' : 'message_stats';
}

/** The hourly rows of `f` in [from, to), by the filter's terms. */
function hoursWhere(f: StatsFilter, from: Date, to: Date, params: unknown[]): string {
  params.push(from, to);
  const time = [`s.hour >= $${params.length - 1}`, `s.hour < $${params.length}`];
  return [...time, ...statsTerms(f, params)].join(' AND ');
}

/**
 * The whole UTC days of a query by day that names no account, read off `message_stats_daily`; the
 * hours at either end outside them are read off `message_stats`. Undefined when the hours serve.
 */
function dailySpan(f: StatsFilter): { from: Date; to: Date } | undefined {
  if (f.period !== 'day' || f.accountId !== undefined || groupsByAccount(f.group)) return undefined;
  const from = Math.ceil(f.since.getTime() / DAY_MS) * DAY_MS;
  const to = Math.floor(f.until.getTime() / DAY_MS) * DAY_MS;
  return from < to ? { from: new Date(from), to: new Date(to) } : undefined;
}

/** The column a statistics row names for the group, as read by statsSource. */
function groupValue(group: StatsGroup | undefined): string {
  if (group === undefined || group === 'state') return 'NULL::text';
  if (group === 'customer_group') return `COALESCE(g.name, '')`;
  return group === 'account' ? `COALESCE(a.username, s.account_id::text)` : `s.${group}`;
}

/** Whether a group is read off each row's account (the daily rows have none). */
function groupsByAccount(group: StatsGroup | undefined): boolean {
  return group === 'account' || group === 'customer_group';
}

/** The names a group needs joined to the hourly rows `s`: an account's, or its group's now. */
function groupJoin(group: StatsGroup | undefined): string {
  if (group === 'account') return ' LEFT JOIN accounts a ON a.id = s.account_id';
  if (group === 'customer_group')
    return ' LEFT JOIN accounts a ON a.id = s.account_id LEFT JOIN customer_groups g ON g.id = a.group_id';
  return '';
}

/**
 * The rows a query sums, as (period, value, state, messages, parts, charged, refunded, cost): the hours'
 * rows, or for a query by day over every account the days' rows and the hours at the ends.
 */
function statsSource(f: StatsFilter, params: unknown[]): string {
  const value = groupValue(f.group);
  const sums = 's.messages, s.parts, s.charged, s.refunded, s.supplier_cost';
  const hours = (from: Date, to: Date) =>
    `SELECT ${f.period === 'day' ? `date_trunc('day', s.hour, 'UTC')` : 's.hour'} AS period,
            ${value} AS value, s.state, ${sums}
       FROM ${hoursTable(f)} s${groupJoin(f.group)}
      WHERE ${hoursWhere(f, from, to, params)}`;
  const days = dailySpan(f);
  if (days === undefined) return hours(f.since, f.until);
  params.push(days.from, days.to);
  const dayTerms = [`s.day >= $${params.length - 1}`, `s.day < $${params.length}`];
  const daily = `SELECT s.day AS period, ${value} AS value, s.state, ${sums}
       FROM message_stats_daily s
      WHERE ${[...dayTerms, ...statsTerms(f, params)].join(' AND ')}`;
  const parts = [daily];
  if (f.since < days.from) parts.push(hours(f.since, days.from));
  if (days.to < f.until) parts.push(hours(days.to, f.until));
  return parts.join('\n      UNION ALL\n      ');
}

/**
 * The statistics of a range by period (UTC hours or days), state and the group's value, in period
 * order; at most `limit` rows (the caller asks one more to see that there are more).
 */
export async function statsRows(
  db: Queryable,
  f: StatsFilter,
  limit: number,
): Promise<StatsCountRow[]> {
  const params: unknown[] = [];
  const source = statsSource(f, params);
  params.push(limit);
  const { rows } = await db.query<StatsCountRow>(
    `SELECT period, value, state,
            sum(messages)::text AS messages, sum(parts)::text AS parts,
            sum(charged)::text AS charged, sum(refunded)::text AS refunded,
            sum(supplier_cost)::text AS cost
       FROM (${source}) s
      GROUP BY 1, 2, 3
      ORDER BY 1, 2, 3
      LIMIT $${params.length}`,
    params,
  );
  return rows;
}

export interface StatsSums {
  messages: string;
  parts: string;
  charged: string;
  refunded: string;
  cost: string;
}

/** The totals of a query's rows, all of them: the sums as exact decimal text. */
export function sumStatsRows(rows: readonly StatsCountRow[]): StatsSums {
  const total = (pick: (r: StatsCountRow) => string) => addDecimals(rows.map(pick));
  return {
    messages: total((r) => r.messages),
    parts: total((r) => r.parts),
    charged: total((r) => r.charged),
    refunded: total((r) => r.refunded),
    cost: total((r) => r.cost),
  };
}

/** The sum of decimal texts, exactly (in millionths: the sums' scale is at most six digits). */
function addDecimals(values: readonly string[]): string {
  let sum = 0n;
  let scale = 0;
  for (const v of values) scale = Math.max(scale, v.split('.')[1]?.length ?? 0);
  for (const v of values) {
    const [whole, fraction = ''] = v.split('.');
    const negative = whole.startsWith('-');
    const units = BigInt(whole.replace('-', '') + fraction.padEnd(scale, '0'));
    sum += negative ? -units : units;
  }
  if (scale === 0) return sum.toString();
  const negative = sum < 0n;
  const digits = (negative ? -sum : sum).toString().padStart(scale + 1, '0');
  const text = `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}

/** The totals of a query, summed in the database (a query whose rows are not all read). */
export async function statsTotals(db: Queryable, f: StatsFilter): Promise<StatsSums> {
  const params: unknown[] = [];
  const where = hoursWhere(f, f.since, f.until, params);
  const { rows } = await db.query<StatsSums>(
    `SELECT COALESCE(sum(s.messages), 0)::text AS messages, COALESCE(sum(s.parts), 0)::text AS parts,
            COALESCE(sum(s.charged), 0)::text AS charged, COALESCE(sum(s.refunded), 0)::text AS refunded,
            COALESCE(sum(s.supplier_cost), 0)::text AS cost
       FROM ${hoursTable(f)} s WHERE ${where}`,
    params,
  );
  return rows[0];
}

export interface StatsFreshness {
  /** Every hour of the range that has begun is settled: counted past its end, none pending. */
  settled: boolean;
  /**
   * The acceptance time up to which the messages are counted (the watermark), stragglers aside;
   * null before the first slice.
   */
  asOf: Date | null;
}

export async function statsFreshness(
  db: Queryable,
  since: Date,
  until: Date,
  now: Date,
): Promise<StatsFreshness> {
  const { rows } = await db.query<{ counted_until: Date | null; pending: boolean }>(
    `SELECT w.counted_until,
            EXISTS (SELECT 1 FROM message_stats_pending p WHERE p.hour >= $1 AND p.hour < $2) AS pending
       FROM message_stats_watermark w`,
    [since, until],
  );
  const r = rows[0];
  if (r === undefined || r.counted_until === null) return { settled: false, asOf: null };
  const begun = Math.min(until.getTime(), hourOf(now).getTime() + HOUR_MS);
  return { settled: r.counted_until.getTime() >= begun && !r.pending, asOf: r.counted_until };
}

export interface StatsReport {
  rows: StatsCountRow[];
  totals: StatsSums;
  freshness: StatsFreshness;
}

/**
 * A query's rows, totals and freshness; undefined when it has more than `maxRows` rows, which the
 * caller refuses.
 */
export async function readStatsReport(
  db: Queryable,
  f: StatsFilter,
  maxRows: number,
  now: Date,
): Promise<StatsReport | undefined> {
  const rows = await statsRows(db, f, maxRows + 1);
  if (rows.length > maxRows) return undefined;
  return {
    rows,
    totals: sumStatsRows(rows),
    freshness: await statsFreshness(db, f.since, f.until, now),
  };
}
