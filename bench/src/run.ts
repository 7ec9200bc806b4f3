import { BENCH_NAMES, type BenchName } from './bench-names';
import { benchBatch } from './batch';
import { benchCredentials } from './credentials';
import { benchEmbedded } from './embedded';
import { benchKannel } from './kannel';
import { benchLegacy } from './legacy';
import { benchLifecycle } from './lifecycle';
import { benchPacing } from './pacing';
import { benchStarting } from './report';
import { benchRouting } from './routing';
import { benchScale } from './scale';
import { benchSearch } from './search';
import { benchSend } from './send';
import { benchSmppServer } from './smpp-server';
import { benchSoak } from './soak';

/**
 * `pnpm bench [send|send-noreceipt|batch|batch-noreceipt|embedded|legacy|lifecycle|pacing|routing|scale|credentials|soak [--chaos] [--minutes N]|kannel|smpp-server|search]`: starts what it needs (services as processes against the
 * Postgres, RabbitMQ and Redis of DATABASE_URL, AMQP_URL, REDIS_URL or the local defaults) and
 * prints one JSON line per benchmark, with its baseline measured in the same run. With
 * `--write-docs` each also writes its figures into docs/performance.md.
 */
const benches: Record<BenchName, () => Promise<void>> = {
  send: () => benchSend(),
  'send-noreceipt': () => benchSend(false),
  batch: () => benchBatch(),
  'batch-noreceipt': () => benchBatch(false),
  embedded: () => benchEmbedded(),
  legacy: () => benchLegacy(),
  lifecycle: () => benchLifecycle(),
  pacing: () => benchPacing(),
  routing: () => benchRouting(),
  credentials: () => benchCredentials(),
  scale: () => benchScale(),
  soak: () => benchSoak(process.argv.slice(2)),
  kannel: () => benchKannel(),
  'smpp-server': () => benchSmppServer(),
  search: () => benchSearch(),
};

function isBench(name: string): name is BenchName {
  return (BENCH_NAMES as readonly string[]).includes(name);
}

async function main(): Promise<void> {
  process.env['DATABASE_URL'] ??= 'postgres://postgres@127.0.0.1:5432/postgres';
  // Names come first; what follows the first `--option` is the benchmarks' own (soak --chaos).
  const args = process.argv.slice(2);
  const firstOption = args.findIndex((a) => a.startsWith('--'));
  const chosen = firstOption < 0 ? args : args.slice(0, firstOption);
  // The soak runs only when named (it takes half an hour), the variants without receipts too: send
  // and batch measure them as their baselines; kannel too (it installs a package and waits for
  // Kannel's queue to drain), search too (it writes millions of messages on its first run).
  const every = BENCH_NAMES.filter(
    (name) =>
      name !== 'soak' && name !== 'kannel' && name !== 'search' && !name.endsWith('-noreceipt'),
  );
  for (const name of chosen.length > 0 ? chosen : every) {
    if (!isBench(name))
      throw new Error(`unknown benchmark ${name}; choose from ${BENCH_NAMES.join(', ')}`);
    benchStarting();
    await benches[name]();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
