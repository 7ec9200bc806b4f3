import { PgDb, migrate, timeOrderedId, type Db } from '@smsgw/kit';
import { dropSearchIndexes, searchIndexesOff } from './search-indexes';
import { createTestDatabase, insertTestAccount } from '@smsgw/kit/testing';
import {
  acceptMessages,
  addMessagePartition,
  claimMessages,
  markSubmitted,
  recordSinglePartReceipts,
} from '@smsgw/store';
import { processUsage, sharedServers } from './process-usage';
import { walBytes } from './wal';
import { span, type FigureTable } from './figure-table';
import { report } from './report';

const DAY = 86_400_000;
const MESSAGES = Number(process.env['BENCH_LIFECYCLE_MESSAGES'] ?? 20_000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
/** Group sizes: what `send` makes at 32 connections, and what a batch's window makes. */
const GROUPS = [10, 50];

type Step = 'insert' | 'claim' | 'answer' | 'receipt';

/** Postgres's CPU per message in one step, measured over the whole server's processes. */
async function timed(database: string, step: () => Promise<void>): Promise<number> {
  const usage = processUsage(sharedServers(database));
  await step();
  return (usage.stop().cpuSeconds['postgres'] ?? 0) * 1e6;
}

/**
 * One message's life in Postgres, for `count` messages: accepted (as `/secure/send` does),
 * claimed, answered and given its receipt in groups of `group` (receipts in groups twice as
 * large), through the dispatcher's own statements. `partition`: the suffix the claim and the
 * answers name (what the dispatcher does), or null for `messages` planned at each call.
 */
async function replay(
  db: Db,
  database: string,
  accountId: string,
  count: number,
  group: number,
  partition: string | null,
): Promise<Record<Step, number> & { walBytes: number; hotShare: number }> {
  const ids = Array.from({ length: count }, () => timeOrderedId());
  const smscIds = ids.map((id) => `s-${id}`);
  const stats = async () =>
    (
      await db.query<{ upd: string; hot: string }>(
        `SELECT COALESCE(sum(n_tup_upd), 0)::text AS upd, COALESCE(sum(n_tup_hot_upd), 0)::text AS hot
           FROM pg_stat_user_tables WHERE relname LIKE 'messages%'`,
      )
    ).rows[0];
  const before = await stats();
  const walBefore = await walBytes();
  const slices = (size: number) =>
    Array.from({ length: Math.ceil(count / size) }, (_, i) => [i * size, (i + 1) * size] as const);
  const cpu: Record<Step, number> = { insert: 0, claim: 0, answer: 0, receipt: 0 };
  cpu.insert = await timed(database, async () => {
    for (const [from, to] of slices(group)) {
      const slice = ids.slice(from, to);
      const each = <T>(value: T): T[] => slice.map(() => value);
      await acceptMessages(
        db,
        {
          id: slice,
          accountId: each(accountId),
          batchId: each(null),
          to: slice.map((_, k) => `4179${String(from + k).padStart(7, '0')}`),
          from: each('Bank'),
          content: each('Your code is 123456. It expires in ten minutes.'),
          hexContent: each(null),
          coding: each(0),
          segments: each(1),
          params: each('{}'),
          reportMask: each(0),
          reportUrl: each(null),
          reportMethod: each(null),
          reportStyle: each(null),
          route: each(null),
          connectors: each('default'),
          price: each(null),
          entry: each('rest'),
          priceVersion: each(null),
        },
        [],
      );
    }
  });
  cpu.claim = await timed(database, async () => {
    for (const [from, to] of slices(group))
      await db.transaction((tx) =>
        claimMessages(tx, ids.slice(from, to), 'default', partition).then(() => undefined),
      );
  });
  cpu.answer = await timed(database, async () => {
    for (const [from, to] of slices(group))
      await markSubmitted(
        db,
        ids.slice(from, to).map((id, k) => ({ id, smscIds: [smscIds[from + k]] })),
        'default',
        partition,
      );
  });
  cpu.receipt = await timed(database, async () => {
    for (const [from, to] of slices(group * 2)) {
      const smscId = smscIds.slice(from, to);
      await recordSinglePartReceipts(
        db,
        {
          smscId,
          state: smscId.map(() => 'delivered'),
          stat: smscId.map(() => 'DELIVRD'),
          err: smscId.map(() => '000'),
        },
        'default',
        smscId.map(() => '{}'),
      );
    }
  });
  const wal = (await walBytes()) - walBefore;
  // Statistics reach pg_stat_user_tables within a second of each statement.
  await new Promise((r) => setTimeout(r, 1_200));
  const after = await stats();
  const updates = Number(after.upd) - Number(before.upd);
  const per = (us: number) => Math.round(us / count);
  return {
    insert: per(cpu.insert),
    claim: per(cpu.claim),
    answer: per(cpu.answer),
    receipt: per(cpu.receipt),
    walBytes: Math.round(wal / count),
    hotShare:
      updates > 0 ? Number(((Number(after.hot) - Number(before.hot)) / updates).toFixed(2)) : 0,
  };
}

/** One row per group size and statement form: each step's range over the rounds. */
function lifecycleTable(
  results: Record<string, Awaited<ReturnType<typeof replay>>[]>,
): FigureTable {
  const of = (rounds: Awaited<ReturnType<typeof replay>>[], key: keyof (typeof rounds)[number]) =>
    span(rounds.map((r) => r[key]));
  return {
    columns: [
      'group, statements',
      'accept µs',
      'claim µs',
      'answers µs',
      'receipts µs',
      'WAL bytes',
      'share of updates HOT',
    ],
    rows: Object.entries(results).map(([key, rounds]) => [
      key,
      of(rounds, 'insert'),
      of(rounds, 'claim'),
      of(rounds, 'answer'),
      of(rounds, 'receipt'),
      of(rounds, 'walBytes'),
      of(rounds, 'hotShare'),
    ]),
  };
}

/**
 * `pnpm bench lifecycle`: Postgres's CPU per message in each of the dispatcher's statements on
 * `messages`, without services or broker around them, so that a change to a statement or an index
 * shows on a machine whose speed moves more than the change. The claim and the answers name the
 * day's partition (as the dispatcher does) and, as the baseline, go to `messages` planned at each
 * call, in turn, in rounds; ANALYZE runs between rounds. Also the WAL per message and the share of
 * updates of `messages` written as HOT.
 */
export async function benchLifecycle(): Promise<void> {
  const database = await createTestDatabase();
  const db = new PgDb({ connectionString: database.url, max: 1 });
  try {
    await migrate(db);
    if (searchIndexesOff()) await dropSearchIndexes(database.url);
    const day = new Date(Math.floor(Date.now() / DAY) * DAY);
    await addMessagePartition(db, day, new Date(day.getTime() + DAY));
    const suffix = `p${day.toISOString().slice(0, 10).replace(/-/g, '')}`;
    const accountId = await insertTestAccount(db);
    const name = new URL(database.url).pathname.slice(1);
    const results: Record<string, Awaited<ReturnType<typeof replay>>[]> = {};
    for (let round = 0; round < ROUNDS; round++)
      for (const group of GROUPS)
        for (const [label, partition] of [
          ['partition named', suffix],
          ['messages, planned each call', null],
        ] as const) {
          const key = `group ${group}, ${label}`;
          const figures = await replay(db, name, accountId, MESSAGES, group, partition);
          (results[key] ??= []).push(figures);
          await db.query('ANALYZE messages_default, ' + `messages_${suffix}`);
        }
    report({ bench: 'lifecycle', messages: MESSAGES, rounds: ROUNDS, microsPerMessage: results }, [
      lifecycleTable(results),
    ]);
  } finally {
    await db.close();
    await database.drop();
  }
}
