import { cpuUsage } from 'node:process';
import type { MtRouteRow } from '@smsgw/store';
import type { Db, Logger } from '@smsgw/kit';
import { PriceBook, RouteTable, type RoutedMessage } from '@smsgw/routing';
import { rateCard } from './rate-card';
import { report } from './report';

/** Route tables the benchmarks use: the baseline is a gateway without routes. */
export function prefixRoutes(count: number, random: () => number): MtRouteRow[] {
  const rows: MtRouteRow[] = [];
  const seen = new Set<string>();
  while (rows.length < count) {
    // Country codes and operator prefixes: 2 to 6 digits, as a real table has them.
    const length = 2 + Math.floor(random() * 5);
    const prefix = String(Math.floor(random() * 10 ** length)).padStart(length, '1');
    if (seen.has(prefix)) continue;
    seen.add(prefix);
    rows.push({
      name: `r${rows.length}`,
      position: rows.length + 1,
      kind: rows.length % 3 === 0 ? 'failover' : 'static',
      targets:
        rows.length % 3 === 0
          ? [{ connector: `c${rows.length % 7}` }, { connector: 'default' }]
          : [{ connector: `c${rows.length % 7}` }],
      filters: { prefixes: [prefix] },
      reroute_on: [],
      price: rows.length % 2 === 0 ? '0.05' : null,
    });
  }
  rows.push({
    name: 'rest',
    position: count + 10,
    kind: 'static',
    targets: [{ connector: 'default' }],
    filters: {},
    reroute_on: [],
    price: null,
  });
  return rows;
}

/** A seeded generator, so every run measures the same table and destinations. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function measure(
  table: RouteTable,
  messages: RoutedMessage[],
): { nsPerMessage: number; cpuUsPerMessage: number } {
  // Warm the JIT on the same work, so both tables are measured compiled.
  for (let i = 0; i < 50_000; i++) table.decide(messages[i % messages.length]);
  const cpu = cpuUsage();
  const started = process.hrtime.bigint();
  let routed = 0;
  for (const m of messages) if (table.decide(m)) routed++;
  const ns = Number(process.hrtime.bigint() - started);
  const used = cpuUsage(cpu);
  if (routed !== messages.length) throw new Error(`only ${routed} of ${messages.length} routed`);
  return {
    nsPerMessage: Math.round(ns / messages.length),
    cpuUsPerMessage: Math.round(((used.user + used.system) / messages.length) * 1000) / 1000,
  };
}

const PRICE_PREFIXES = 100_000;

/** What a message's price costs with an account priced by the kannel bench's rate card. */
function measurePrices(messages: RoutedMessage[]): {
  nsPerMessage: number;
  cpuUsPerMessage: number;
} {
  const rows = rateCard(PRICE_PREFIXES)
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => {
      const [prefix, price] = line.split(',');
      return { version_id: '1', prefix: prefix!, price: price! };
    });
  const book = new PriceBook({} as Db, { info() {} } as unknown as Logger, { refreshMs: 1000 });
  book.install({
    versions: [{ id: '1', list_id: 'bench', effective_from: new Date(0) }],
    rows,
    accounts: [{ account_id: 'bench', list_id: 'bench' }],
    connectors: [],
    groups: [],
  });
  const at = Date.now();
  const price = (m: RoutedMessage) => book.priceFor('bench', m.to, at);
  for (let i = 0; i < 50_000; i++) price(messages[i % messages.length]!);
  const cpu = cpuUsage();
  const started = process.hrtime.bigint();
  let listed = 0;
  for (const m of messages) if (typeof price(m) === 'object') listed++;
  const ns = Number(process.hrtime.bigint() - started);
  const used = cpuUsage(cpu);
  if (listed !== messages.length) throw new Error(`only ${listed} of ${messages.length} priced`);
  return {
    nsPerMessage: Math.round(ns / messages.length),
    cpuUsPerMessage: Math.round(((used.user + used.system) / messages.length) * 1000) / 1000,
  };
}

/**
 * `pnpm bench routing`: what deciding a message's route costs the gateway with a table of 1,000
 * prefix routes (and a default route), against a gateway without routes, in the same run; a
 * 100,000-recipient batch routed in full; and a price looked up in a list of 100,000 prefixes
 * (the kannel bench's rate card). One JSON line.
 */
export function benchRouting(): Promise<void> {
  const random = seeded(42);
  const count = Number(process.env['BENCH_ROUTES'] ?? 1000);
  const messages: RoutedMessage[] = Array.from({ length: 1_000_000 }, () => ({
    to: String(Math.floor(random() * 1e11)).padStart(11, '3'),
    accountUsername: 'bench',
    from: 'BENCH',
    tags: undefined,
  }));
  const baseline = measure(new RouteTable([]), messages);
  const routed = measure(new RouteTable(prefixRoutes(count, random)), messages);
  const priced = measurePrices(messages);
  const batchStarted = process.hrtime.bigint();
  const table = new RouteTable(prefixRoutes(count, seeded(7)));
  for (let i = 0; i < 100_000; i++) table.decide(messages[i]);
  const batchMs = Number(process.hrtime.bigint() - batchStarted) / 1e6;
  report(
    {
      bench: 'routing',
      routes: count,
      messages: messages.length,
      baseline: { routes: 0, ...baseline },
      routed,
      extraNsPerMessage: routed.nsPerMessage - baseline.nsPerMessage,
      ratio: Math.round((routed.nsPerMessage / Math.max(1, baseline.nsPerMessage)) * 10) / 10,
      batchOf100000Ms: Math.round(batchMs * 10) / 10,
      priceList: { prefixes: PRICE_PREFIXES, ...priced },
    },
    [
      {
        columns: [
          'table',
          'CPU µs per decision',
          'wall ns per decision',
          'a 100,000 batch routed, ms',
        ],
        rows: [
          ['no routes', baseline.cpuUsPerMessage, baseline.nsPerMessage, undefined],
          [
            `${count} prefix routes`,
            routed.cpuUsPerMessage,
            routed.nsPerMessage,
            Math.round(batchMs),
          ],
          [
            `a price of a list of ${PRICE_PREFIXES.toLocaleString('en-US')} prefixes`,
            priced.cpuUsPerMessage,
            priced.nsPerMessage,
            undefined,
          ],
        ],
      },
    ],
  );
  return Promise.resolve();
}
