import { timeIdFloor, type Queryable } from '@smsgw/kit';
import {
  HOUR_MS,
  destinationsAfter,
  findAccountByUsername,
  readStatsReport,
  searchMessages,
  syntheticUsername,
} from '@smsgw/store';
import { STATS_DEFAULTS } from '@smsgw/contracts';
import { ACCOUNT_PREFIX } from './search-history';

const DAY_MS = 24 * HOUR_MS;

/**
 * A Queryable that runs each statement under EXPLAIN (ANALYZE, BUFFERS) instead and keeps the
 * plans: the store's own statements, with the parameters the service gives them, explained.
 */
function explaining(db: Queryable, plans: string[]): Queryable {
  return {
    async query<R>(sql: string, params?: readonly unknown[]) {
      const result = await db.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, BUFFERS) ${sql}`,
        params,
      );
      plans.push(result.rows.map((r) => r['QUERY PLAN']).join('\n'));
      return { rows: [] as R[], rowCount: 0 };
    },
  };
}

/**
 * The plans of the search and statistics statements the benchmark times, each with one set of
 * parameters: the largest account (the first) and a destination of the history.
 */
export async function explainQueries(db: Queryable, endMs: number): Promise<string> {
  const until = new Date(endMs + 1);
  const since30 = new Date(until.getTime() - 30 * DAY_MS);
  const range = {
    fromId: timeIdFloor(since30),
    untilId: timeIdFloor(new Date(until.getTime() + 1)),
  };
  const large = await findAccountByUsername(db, syntheticUsername(ACCOUNT_PREFIX, 1));
  const [destination] = await destinationsAfter(db, [timeIdFloor(new Date(endMs - DAY_MS))]);
  const sections: [string, (q: Queryable) => Promise<unknown>][] = [
    [
      'destination, 30 days',
      (q) => searchMessages(q, { ...range, to: { exact: destination }, limit: 50 }),
    ],
    [
      "largest account's undelivered, 30 days",
      (q) =>
        searchMessages(q, { ...range, accountId: large?.id, states: ['undelivered'], limit: 50 }),
    ],
    [
      'state=undelivered, one day',
      (q) =>
        searchMessages(q, {
          fromId: timeIdFloor(new Date(until.getTime() - DAY_MS)),
          untilId: range.untilId,
          states: ['undelivered'],
          limit: 50,
        }),
    ],
    [
      'statistics, 30 days by day, by country',
      (q) =>
        readStatsReport(
          q,
          { since: since30, until, period: 'day', group: 'country' },
          STATS_DEFAULTS.maxRows,
          until,
        ),
    ],
    [
      "statistics, the largest account's 30 days by hour",
      (q) =>
        readStatsReport(
          q,
          { since: since30, until, period: 'hour', accountId: large?.id },
          STATS_DEFAULTS.maxRows,
          until,
        ),
    ],
  ];
  const out: string[] = [];
  for (const [name, run] of sections) {
    const plans: string[] = [];
    await run(explaining(db, plans)).catch(() => undefined);
    out.push(`== ${name}\n${plans.join('\n--\n')}`);
  }
  return out.join('\n\n');
}
