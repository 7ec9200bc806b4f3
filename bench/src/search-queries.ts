import { timeIdFloor, type Db } from '@smsgw/kit';
import { HOUR_MS } from '@smsgw/store';
import { destinationsAfter, syntheticUsername } from '@smsgw/store';
import { ACCOUNT_PREFIX } from './search-history';

const DAY_MS = 24 * HOUR_MS;

/** One kind of question an operator asks, as requests with varied parameters. */
export interface QueryKind {
  name: string;
  /** The request's path and query (under the gateway's URL), for the i-th request. */
  path(i: number): string;
}

export interface KindFigures {
  name: string;
  requests: number;
  /** Rows per answer on average: messages of a page, or rows of the statistics. */
  rows: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The i-th of `count` accounts, spread so that the large first ones and the many small come up. */
const account = (i: number, count: number) =>
  syntheticUsername(ACCOUNT_PREFIX, 1 + ((i * 7919) % count));

/**
 * The questions of the issue, each over a range ending at the history's end: a destination's
 * messages of the last 30 days, an account's newest page, the undelivered of one day and of an
 * account's 30 days, the statistics of 30 days by day (by country), of one day by account, and of
 * an account's 30 days by hour. Destinations are real ones, read from the history.
 */
export async function queryKinds(
  db: Db,
  prefix: string,
  endMs: number,
  accounts: number,
  requests: number,
): Promise<QueryKind[]> {
  const until = endMs + 1;
  const since30 = until - 30 * DAY_MS;
  // Each request's own start time in the last 30 days, to find a destination there.
  const probes = Array.from({ length: requests }, (_, i) =>
    timeIdFloor(new Date(since30 + ((i + 0.5) * 30 * DAY_MS) / requests)),
  );
  const destinations = await destinationsAfter(db, probes);
  if (destinations.length === 0) throw new Error('the history has no messages in its last 30 days');
  const hourBack = (i: number) => (i % 24) * HOUR_MS;
  return [
    {
      name: 'destination, 30 days',
      path: (i) =>
        `${prefix}/messages?to=${destinations[i % destinations.length]}&since=${iso(since30)}&until=${iso(until)}`,
    },
    {
      name: "account's newest page, 30 days",
      path: (i) =>
        `${prefix}/messages?account=${account(i, accounts)}&since=${iso(since30)}&until=${iso(until)}`,
    },
    {
      name: 'state=undelivered, one day',
      path: (i) => {
        const to = until - ((i * 3 * HOUR_MS) % (29 * DAY_MS));
        return `${prefix}/messages?state=undelivered&since=${iso(to - DAY_MS)}&until=${iso(to)}`;
      },
    },
    {
      name: "account's undelivered, 30 days",
      path: (i) =>
        `${prefix}/messages?account=${account(i, accounts)}&state=undelivered&since=${iso(since30)}&until=${iso(until)}`,
    },
    {
      name: 'statistics, 30 days by day, by country',
      path: (i) =>
        `${prefix}/stats?period=day&group=country&since=${iso(since30 - hourBack(i))}&until=${iso(until - hourBack(i))}`,
    },
    {
      name: 'statistics, one day by account',
      path: (i) => {
        const to = until - ((i * 3 * HOUR_MS) % (29 * DAY_MS));
        return `${prefix}/stats?period=day&group=account&since=${iso(to - DAY_MS)}&until=${iso(to)}`;
      },
    },
    {
      name: "statistics, an account's 30 days by hour",
      path: (i) =>
        `${prefix}/stats?period=hour&account=${account(i, accounts)}&since=${iso(since30)}&until=${iso(until)}`,
    },
  ];
}

function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

const ms = (v: number) => Math.round(v * 10) / 10;

/** Rows of an answer: a search's page, or the statistics' rows. */
function rowsOf(body: unknown): number {
  const data = (body as { data?: { messages?: unknown; rows?: unknown } }).data;
  const rows = data?.messages ?? data?.rows;
  return Array.isArray(rows) ? rows.length : 0;
}

/**
 * Times `requests` requests of each kind one after another (one operator at a time), from the
 * request's start to its whole answer read, after a few unmeasured ones that warm the process.
 * Every answer must be 200.
 */
export async function timeKinds(
  baseUrl: string,
  headers: Record<string, string>,
  kinds: readonly QueryKind[],
  requests: number,
): Promise<KindFigures[]> {
  const ask = async (path: string) => {
    const reply = await fetch(`${baseUrl}${path}`, { headers });
    const body: unknown = await reply.json();
    if (reply.status !== 200)
      throw new Error(`${path}: HTTP ${reply.status} ${JSON.stringify(body)}`);
    return rowsOf(body);
  };
  const figures: KindFigures[] = [];
  for (const kind of kinds) {
    for (let i = 0; i < 5; i++) await ask(kind.path(requests + i));
    const took: number[] = [];
    let rows = 0;
    for (let i = 0; i < requests; i++) {
      const started = performance.now();
      rows += await ask(kind.path(i));
      took.push(performance.now() - started);
    }
    took.sort((a, b) => a - b);
    figures.push({
      name: kind.name,
      requests,
      rows: Math.round(rows / requests),
      p50: ms(percentile(took, 0.5)),
      p95: ms(percentile(took, 0.95)),
      p99: ms(percentile(took, 0.99)),
      max: ms(took[took.length - 1]),
    });
  }
  return figures;
}
