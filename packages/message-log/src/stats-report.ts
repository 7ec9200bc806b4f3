import {
  STATS_DEFAULTS,
  STATS_TOO_MANY_ROWS,
  statsAnswer,
  statsRange,
  type AdminStatsQuery,
  type StatsResult,
} from '@smsgw/contracts';
import { HttpError, type Queryable } from '@smsgw/kit';
import { readStatsReport } from '@smsgw/store';

/**
 * A statistics query's answer, for the admin API (any account, or one) and the customer API (its
 * own), read from the hourly rollup (docs/operators.md § Statistics).
 */
export async function statsReport(
  db: Queryable,
  query: Omit<AdminStatsQuery, 'account'>,
  accountId: string | undefined,
  maxDays: number,
  /** The operator's answer has what messages cost us and the margin; a customer's has not. */
  audience: 'operator' | 'customer',
): Promise<StatsResult> {
  const now = new Date();
  const range = statsRange(query, now, maxDays);
  if ('field' in range) throw HttpError.invalid(range.field, range.text);
  const filter = { ...query, ...range, accountId };
  const report = await readStatsReport(db, filter, STATS_DEFAULTS.maxRows, now);
  if (!report) throw HttpError.invalid('period', STATS_TOO_MANY_ROWS);
  return statsAnswer({
    ...filter,
    rows: report.rows,
    totals: report.totals,
    ...report.freshness,
    costs: audience === 'operator',
  });
}
