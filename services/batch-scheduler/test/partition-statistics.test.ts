import type { Db } from '@smsgw/kit';
import { insertTestAccount, migratedDatabases, loggedLines } from '@smsgw/kit/testing';
import { addMessagePartition, autovacuumEnabled } from '@smsgw/store';
import { Registry } from 'prom-client';
import { createSchedulerMetrics } from '../src/metrics';
import { PartitionStatistics } from '../src/partition-statistics';

const DAY = 86_400_000;
/** Small, so that the test writes a few hundred rows rather than the default's thousands. */
const MIN_BYTES = 65_536;

describe.each(migratedDatabases())('partition statistics on %s', (_name, open) => {
  let db: Db;
  let drop: () => Promise<void>;
  let accountId: string;
  let partition: string;
  beforeEach(async () => {
    ({ db, drop } = await open());
    accountId = await insertTestAccount(db);
    const from = new Date(Math.floor(Date.now() / DAY) * DAY);
    await addMessagePartition(db, from, new Date(from.getTime() + DAY));
    partition = `messages_p${from.toISOString().slice(0, 10).replace(/-/g, '')}`;
  });
  afterEach(() => drop());

  /** Messages of today, so they land in today's partition; ids ordered by time as the gateway's. */
  async function insertMessages(n: number): Promise<void> {
    await db.query(
      `INSERT INTO messages (id, account_id, state, to_addr, coding, segments, cost, smsc_id)
       SELECT (lpad(to_hex((extract(epoch FROM now()) * 1000)::bigint), 12, '0') || '7000' ||
               lpad(to_hex(i), 16, '0'))::uuid,
              $1, 'delivered', '41790000001', 0, 1, 1, 'smsc-' || i
         FROM generate_series($2::int, $3::int) AS i`,
      [accountId, 1, n],
    );
  }

  async function reltuples(): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      `SELECT reltuples::float8 AS n FROM pg_class WHERE relname = $1`,
      [partition],
    );
    return rows[0].n;
  }

  it('analyzes a fresh partition once it has rows, and again only when it has doubled', async () => {
    const { logger } = loggedLines('test', 'info');
    const keeper = new PartitionStatistics(db, logger, { intervalMs: 60_000, minBytes: MIN_BYTES });
    await insertMessages(10);
    expect(await keeper.round()).toEqual([]);
    // Never analyzed: Postgres has no statistics of it (reltuples -1 since Postgres 14).
    expect(await reltuples()).toBeLessThan(0);

    await db.query('DELETE FROM messages');
    await insertMessages(2000);
    expect(await keeper.round()).toContain(`public.${partition}`);
    const { rows } = await db.query<{ analyzed: boolean }>(
      `SELECT last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE relname = $1`,
      [partition],
    );
    expect(rows[0]?.analyzed).toBe(true);
    expect(await reltuples()).toBeGreaterThanOrEqual(1000);
    // Analyzed at this size: not again until it is twice as large.
    expect(await keeper.round()).not.toContain(`public.${partition}`);
  });

  it('reports whether the server runs autovacuum, and warns at start when it does not', async () => {
    const { rows } = await db.query<{ autovacuum: string }>('SHOW autovacuum');
    const on = rows[0].autovacuum === 'on';
    const { logger, lines } = loggedLines('test', 'info');
    const keeper = new PartitionStatistics(db, logger, { intervalMs: 60_000, minBytes: MIN_BYTES });
    await keeper.start();
    await keeper.stop();
    expect(lines.some((l) => l.includes('autovacuum off'))).toBe(!on);

    const registry = new Registry();
    createSchedulerMetrics(registry, {
      // Read only by the queue gauges, which this test does not collect.
      bus: {} as never,
      openBatches: () => Promise.resolve({ scheduled: 0, running: 0 }),
      autovacuum: () => autovacuumEnabled(db),
    });
    const gauge = await registry.getSingleMetric('smsgw_postgres_autovacuum_enabled')!.get();
    expect(gauge.values[0]?.value).toBe(on ? 1 : 0);
  });
});
