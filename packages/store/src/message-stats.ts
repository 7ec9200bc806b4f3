import {
  FINAL_STATES,
  UNKNOWN_OUTCOME_ERROR,
  type StatsGroup,
  type StatsPeriod,
} from '@smsgw/contracts';
import { timeIdFloor, type Db, type Queryable } from '@smsgw/kit';
import { refundedAmount } from './messages';
import { sqlList } from './sql-list';

/**
 * Statements on `message_stats` and `message_stats_hours`: the statistics by hour of acceptance
 * (docs/operators.md § Statistics). An hour's rows are counted again from `messages` until the
 * hour is settled; the query reads only these tables, never the messages.
 * rollStatsHour reads `messages` (and, through refundedAmount, `credit_ledger` and
 * `message_parts`); firstMessageHour reads the oldest message id; statsRows reads the names of
 * `accounts`.
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

/** States whose messages may still change: an hour holding any is counted again. */
const ENDED = sqlList([...FINAL_STATES, 'unknown']);

/** The hour of the oldest message (read in id order, off the primary key), if any. */
export async function firstMessageHour(db: Queryable): Promise<Date | undefined> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM messages ORDER BY id LIMIT 1');
  if (rows[0] === undefined) return undefined;
  const ms = parseInt(rows[0].id.replace(/-/g, '').slice(0, 12), 16);
  return hourOf(new Date(ms));
}

/** The newest hour with a row, if any: where the next hours begin. */
export async function lastStatsHour(db: Queryable): Promise<Date | undefined> {
  const { rows } = await db.query<{ hour: Date | null }>(
    'SELECT max(hour) AS hour FROM message_stats_hours',
  );
  return rows[0]?.hour ?? undefined;
}

/** Gives every hour from `from` to `to` (both hour starts, inclusive) a row; answers how many were new. */
export async function addStatsHours(db: Queryable, from: Date, to: Date): Promise<number> {
  if (to.getTime() < from.getTime()) return 0;
  const { rowCount } = await db.query(
    `INSERT INTO message_stats_hours (hour)
     SELECT generate_series($1::timestamptz, $2::timestamptz, interval '1 hour')
     ON CONFLICT (hour) DO NOTHING`,
    [from, to],
  );
  return rowCount;
}

export interface DueStatsHour {
  hour: Date;
  rolled_at: Date | null;
}

/**
 * The unsettled hours begun by `now` that are due for a count, newest first: never counted, or
 * last counted longer ago than a tenth of the time since the hour ended (at most `maxWaitMs`). The
 * current hour is so due at every round, an hour long ended only now and then.
 */
export async function dueStatsHours(
  db: Queryable,
  now: Date,
  maxWaitMs: number,
  limit: number,
): Promise<DueStatsHour[]> {
  const { rows } = await db.query<DueStatsHour>(
    `SELECT hour, rolled_at FROM message_stats_hours
      WHERE NOT settled AND hour <= $1
        AND (rolled_at IS NULL
             OR rolled_at <= $1::timestamptz - LEAST(
                  GREATEST($1::timestamptz - (hour + interval '1 hour'), interval '0') / 10,
                  $2::float8 * interval '1 millisecond'))
      ORDER BY hour DESC
      LIMIT $3`,
    [now, maxWaitMs, limit],
  );
  return rows;
}

/** The unsettled hours from `from` (inclusive) to `to` (exclusive), oldest first. */
export async function unsettledStatsHours(db: Queryable, from: Date, to: Date): Promise<Date[]> {
  const { rows } = await db.query<{ hour: Date }>(
    `SELECT hour FROM message_stats_hours WHERE NOT settled AND hour >= $1 AND hour < $2 ORDER BY hour`,
    [from, to],
  );
  return rows.map((r) => r.hour);
}

export interface StatsRoll {
  /** When the hour had a row to count (false: settled or taken by another scheduler meanwhile). */
  counted: boolean;
  unended: number;
  settled: boolean;
}

export interface RollOptions {
  now: Date;
  /** The hour settles once it ended this long ago with none of its messages unended. */
  graceMs: number;
  /** The hour settles once it is this old whatever its messages. */
  settleAgeMs: number;
  /**
   * Counted and settled whatever it holds (its messages are about to be dropped); waits for a
   * count in progress instead of passing the hour by.
   */
  final?: boolean;
  /** The last count's time the caller saw: the hour is passed by when it was counted since. */
  seenRolledAt?: Date | null;
}

/**
 * Counts one hour again in one transaction: its rows replaced by a GROUP BY over the messages of
 * its id range, which reads the primary key of the one partition that holds them. The country is
 * named once per group of the destinations' first three digits (all a calling code can span),
 * not once per message. The hour's row is locked first; another scheduler counting it has it
 * passed by (SKIP LOCKED).
 */
export async function rollStatsHour(db: Db, hour: Date, options: RollOptions): Promise<StatsRoll> {
  const lo = timeIdFloor(hour);
  const hi = timeIdFloor(new Date(hour.getTime() + HOUR_MS));
  return db.transaction(async (tx) => {
    const locked = await tx.query<{ rolled_at: Date | null }>(
      `SELECT rolled_at FROM message_stats_hours WHERE hour = $1 AND NOT settled
          FOR UPDATE${options.final === true ? '' : ' SKIP LOCKED'}`,
      [hour],
    );
    const row = locked.rows[0];
    const seen = options.seenRolledAt;
    if (
      row === undefined ||
      (seen !== undefined && (row.rolled_at?.getTime() ?? null) !== (seen?.getTime() ?? null))
    )
      return { counted: false, unended: 0, settled: false };
    await tx.query('DELETE FROM message_stats WHERE hour = $1', [hour]);
    const { rows } = await tx.query<{ unended: string }>(
      `WITH by_prefix AS (
         SELECT m.account_id, COALESCE(m.connector, '') AS connector, COALESCE(m.route, '') AS route,
                left(m.to_addr, 3) AS prefix, ${STATS_STATE} AS state,
                count(*) AS messages, COALESCE(sum(m.segments), 0) AS parts,
                COALESCE(sum(m.cost), 0) AS charged, COALESCE(sum(${refundedAmount('m')}), 0) AS refunded
           FROM messages m
          WHERE m.id >= $2::uuid AND m.id < $3::uuid
          GROUP BY 1, 2, 3, 4, 5
       ), counted AS (
         SELECT account_id, connector, route, smsgw_calling_code(prefix) AS country, state,
                sum(messages)::bigint AS messages, sum(parts)::bigint AS parts,
                sum(charged) AS charged, sum(refunded) AS refunded
           FROM by_prefix
          GROUP BY 1, 2, 3, 4, 5
       ), stored AS (
         INSERT INTO message_stats (hour, account_id, connector, route, country, state, messages, parts, charged, refunded)
         SELECT $1, account_id, connector, route, country, state, messages, parts, charged, refunded FROM counted
       )
       SELECT COALESCE(sum(messages) FILTER (WHERE state NOT IN (${ENDED})), 0)::text AS unended FROM counted`,
      [hour, lo, hi],
    );
    const unended = Number(rows[0].unended);
    const ended = hour.getTime() + HOUR_MS + options.graceMs <= options.now.getTime();
    const settled =
      options.final === true ||
      (ended && unended === 0) ||
      hour.getTime() + options.settleAgeMs <= options.now.getTime();
    await tx.query(
      'UPDATE message_stats_hours SET rolled_at = $2, unended = $3, settled = $4 WHERE hour = $1',
      [hour, options.now, unended, settled],
    );
    return { counted: true, unended, settled };
  });
}

/** Removes the statistics of the hours before `before`; answers how many hours. */
export async function deleteStatsBefore(db: Db, before: Date): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.query('DELETE FROM message_stats WHERE hour < $1', [before]);
    const { rowCount } = await tx.query('DELETE FROM message_stats_hours WHERE hour < $1', [
      before,
    ]);
    return rowCount;
  });
}

/** Seconds since the least recently counted unsettled hour was counted (0: none unsettled). */
export async function statsRollupLagSeconds(db: Queryable, now: Date): Promise<number> {
  const { rows } = await db.query<{ lag: number | null }>(
    `SELECT extract(epoch FROM $1::timestamptz - min(COALESCE(rolled_at, hour)))::float8 AS lag
       FROM message_stats_hours WHERE NOT settled AND hour <= $1`,
    [now],
  );
  return Math.max(0, rows[0]?.lag ?? 0);
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

export interface StatsCountRow {
  period: Date;
  /** The group's value ('' for none; an account's name for `account`); null without a group. */
  value: string | null;
  state: string;
  messages: string;
  parts: string;
  charged: string;
  refunded: string;
}

/** The column each group reads; an account is named by its username. */
const GROUP_COLUMN: Record<StatsGroup, string> = {
  account: `COALESCE(a.username, s.account_id::text)`,
  connector: 's.connector',
  route: 's.route',
  country: 's.country',
  state: 'NULL::text',
};

function statsWhere(f: StatsFilter): { where: string; params: unknown[] } {
  const params: unknown[] = [f.since, f.until];
  const terms = ['s.hour >= $1', 's.hour < $2'];
  const add = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    params.push(value);
    terms.push(`${column} = $${params.length}`);
  };
  add('s.account_id', f.accountId);
  add('s.connector', f.connector);
  add('s.route', f.route);
  add('s.country', f.country);
  return { where: terms.join(' AND '), params };
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
  const { where, params } = statsWhere(f);
  const value = f.group === undefined ? 'NULL::text' : GROUP_COLUMN[f.group];
  const period = f.period === 'day' ? `date_trunc('day', s.hour, 'UTC')` : 's.hour';
  params.push(limit);
  const { rows } = await db.query<StatsCountRow>(
    `SELECT ${period} AS period, ${value} AS value, s.state,
            sum(s.messages)::text AS messages, sum(s.parts)::text AS parts,
            sum(s.charged)::text AS charged, sum(s.refunded)::text AS refunded
       FROM message_stats s${f.group === 'account' ? ' LEFT JOIN accounts a ON a.id = s.account_id' : ''}
      WHERE ${where}
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
}

export async function statsTotals(db: Queryable, f: StatsFilter): Promise<StatsSums> {
  const { where, params } = statsWhere(f);
  const { rows } = await db.query<StatsSums>(
    `SELECT COALESCE(sum(s.messages), 0)::text AS messages, COALESCE(sum(s.parts), 0)::text AS parts,
            COALESCE(sum(s.charged), 0)::text AS charged, COALESCE(sum(s.refunded), 0)::text AS refunded
       FROM message_stats s WHERE ${where}`,
    params,
  );
  return rows[0];
}

export interface StatsFreshness {
  /** Every hour of the range that has begun is settled. */
  settled: boolean;
  /**
   * When the range's counts were made: the oldest last count of an unsettled hour, or, all
   * settled, the newest count; null while an hour of the range has not been counted yet.
   */
  asOf: Date | null;
}

export async function statsFreshness(
  db: Queryable,
  since: Date,
  until: Date,
  now: Date,
): Promise<StatsFreshness> {
  const { rows } = await db.query<{
    settled: boolean | null;
    oldest: Date | null;
    newest: Date | null;
    uncounted: boolean | null;
  }>(
    `SELECT bool_and(settled) AS settled, min(rolled_at) FILTER (WHERE NOT settled) AS oldest,
            max(rolled_at) AS newest, bool_or(rolled_at IS NULL) AS uncounted
       FROM message_stats_hours WHERE hour >= $1 AND hour < $2 AND hour <= $3`,
    [since, until, now],
  );
  const r = rows[0];
  if (r === undefined || r.settled === null) return { settled: false, asOf: null };
  if (r.uncounted === true) return { settled: false, asOf: null };
  return { settled: r.settled, asOf: r.settled ? r.newest : r.oldest };
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
    totals: await statsTotals(db, f),
    freshness: await statsFreshness(db, f.since, f.until, now),
  };
}
