import { UNKNOWN_OUTCOME_ERROR } from '@smsgw/contracts';
import { createLogger, timeOrderedId } from '@smsgw/kit';
import { DAY_MS, migratedDatabases, useMigratedAccount } from '@smsgw/kit/testing';
import { HOUR_MS, hourOf } from '@smsgw/store';
import { Counter, Registry } from 'prom-client';
import { MessageRetention } from '../src/message-retention';
import { StatsRollup, type StatsRollupSettings } from '../src/stats-rollup';

const logger = createLogger('test', 'silent');

describe.each(migratedDatabases())('statistics rollup on %s', (_name, open) => {
  const suite = useMigratedAccount(open);

  function rollup(over: Partial<StatsRollupSettings> = {}): {
    roller: StatsRollup;
    hours: Counter;
  } {
    const hours = new Counter({
      name: 'hours',
      help: 'x',
      labelNames: ['outcome'],
      registers: [new Registry()],
    });
    const roller = new StatsRollup(
      suite.db,
      logger,
      { statsHours: hours },
      {
        intervalMs: 60_000,
        graceMs: 300_000,
        settleAgeMs: 3 * DAY_MS,
        maxWaitMs: HOUR_MS,
        hoursPerRound: 24,
        backfillDays: 366,
        cdrRetentionDays: undefined,
        ...over,
      },
    );
    return { roller, hours };
  }

  async function account(name: string): Promise<string> {
    const { rows } = await suite.db.query<{ id: string }>(
      `INSERT INTO accounts (username, password_hash, balance, rate) VALUES ($1, 'x', 100, 1) RETURNING id`,
      [name],
    );
    return rows[0].id;
  }

  async function message(
    accountId: string,
    at: Date,
    state: string,
    more: { segments?: number; cost?: string; error?: string; refund?: boolean } = {},
  ): Promise<string> {
    const id = timeOrderedId(at);
    await suite.db.query(
      `INSERT INTO messages (id, account_id, state, to_addr, content, coding, segments, cost, error, connector, route)
       VALUES ($1, $2, $3, '41790000001', 'hi', 0, $4, $5, $6, 'default', 'ch')`,
      [id, accountId, state, more.segments ?? 1, more.cost ?? '1', more.error ?? null],
    );
    if (more.refund === true)
      await suite.db.query(
        `INSERT INTO credit_ledger (account_id, amount, sms_count, reason, message_id) VALUES ($1, $2, 0, 'refund', $3)`,
        [accountId, more.cost ?? '1', id],
      );
    return id;
  }

  /** The statistics of an account by state, summed over all hours, as the table holds them. */
  async function statsOf(accountId: string): Promise<Record<string, string[]>> {
    const { rows } = await suite.db.query<{ state: string; v: string[] }>(
      `SELECT state, ARRAY[sum(messages)::text, sum(parts)::text, sum(charged)::text, sum(refunded)::text] AS v
         FROM message_stats WHERE account_id = $1 GROUP BY state ORDER BY state`,
      [accountId],
    );
    return Object.fromEntries(rows.map((r) => [r.state, r.v]));
  }

  async function hourRow(hour: Date) {
    const { rows } = await suite.db.query<{ settled: boolean; unended: string }>(
      'SELECT settled, unended::text FROM message_stats_hours WHERE hour = $1',
      [hour],
    );
    return rows[0];
  }

  it('counts every hour from the oldest message on: the statistics match the messages per account', async () => {
    const now = new Date();
    const a = await account('stats-a');
    const b = await account('stats-b');
    const fiveHoursAgo = new Date(now.getTime() - 5 * HOUR_MS);
    await message(a, fiveHoursAgo, 'delivered', { segments: 3, cost: '3' });
    await message(a, now, 'delivered', { segments: 1, cost: '0.25' });
    await message(a, now, 'failed', { cost: '2', refund: true });
    await message(a, now, 'failed', { error: UNKNOWN_OUTCOME_ERROR });
    await message(b, fiveHoursAgo, 'undelivered', { segments: 2, cost: '2' });
    await message(b, now, 'cancelled', { cost: '4' });
    const { roller, hours } = rollup();

    const round = await roller.round(now);
    expect(round).toMatchObject({ added: 6, counted: 6 });
    expect(await statsOf(a)).toEqual({
      delivered: ['2', '4', '3.250000', '0.000000'],
      failed: ['1', '1', '2.000000', '2.000000'],
      unknown: ['1', '1', '1.000000', '0.000000'],
    });
    expect(await statsOf(b)).toEqual({
      cancelled: ['1', '1', '4.000000', '4.000000'],
      undelivered: ['1', '2', '2.000000', '0.000000'],
    });
    // Ended hours with all their messages ended settle; the current hour stays open.
    expect(await hourRow(hourOf(fiveHoursAgo))).toEqual({ settled: true, unended: '0' });
    expect(await hourRow(hourOf(now))).toEqual({ settled: false, unended: '0' });
    expect((await hours.get()).values.reduce((n, v) => n + v.value, 0)).toBe(6);
  });

  it('counts the current hour again after a receipt changes a message', async () => {
    const now = new Date();
    const id = await message(suite.accountId, now, 'submitted');
    const { roller } = rollup();
    await roller.round(now);
    expect(await statsOf(suite.accountId)).toEqual({
      submitted: ['1', '1', '1.000000', '0.000000'],
    });
    expect(await hourRow(hourOf(now))).toEqual({ settled: false, unended: '1' });

    await suite.db.query(`UPDATE messages SET state = 'delivered' WHERE id = $1`, [id]);
    expect((await roller.round(new Date(now.getTime() + 1000))).counted).toBe(1);
    expect(await statsOf(suite.accountId)).toEqual({
      delivered: ['1', '1', '1.000000', '0.000000'],
    });
    expect(await hourRow(hourOf(now))).toEqual({ settled: false, unended: '0' });
  });

  it('settles an hour whose receipt never comes once it is past the settle age', async () => {
    const now = new Date();
    const old = new Date(now.getTime() - 2 * HOUR_MS);
    await message(suite.accountId, old, 'submitted');
    const { roller } = rollup({ settleAgeMs: 6 * HOUR_MS });
    await roller.round(now);
    expect(await hourRow(hourOf(old))).toEqual({ settled: false, unended: '1' });
    await roller.round(new Date(now.getTime() + 2 * HOUR_MS));
    expect(await hourRow(hourOf(old))).toEqual({ settled: false, unended: '1' });
    await roller.round(new Date(now.getTime() + 5 * HOUR_MS));
    expect(await hourRow(hourOf(old))).toEqual({ settled: true, unended: '1' });
  });

  it('two schedulers at once count each hour exactly', async () => {
    const now = new Date();
    for (let h = 0; h < 10; h++)
      await message(suite.accountId, new Date(now.getTime() - h * HOUR_MS), 'delivered');
    const first = rollup();
    const second = rollup();
    await Promise.all([first.roller.round(now), second.roller.round(now)]);
    expect(await statsOf(suite.accountId)).toEqual({
      delivered: ['10', '10', '10.000000', '0.000000'],
    });
    const { rows } = await suite.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM message_stats_hours WHERE rolled_at IS NULL',
    );
    expect(rows[0].n).toBe(0);
  });

  it('gives the hours of a period a last count before the retention drops it: the statistics stay', async () => {
    const t0 = new Date();
    const { roller } = rollup();
    const expired = new Counter({ name: 'expired', help: 'x', registers: [new Registry()] });
    const keeper = new MessageRetention(
      suite.db,
      logger,
      { expired },
      { retentionDays: 2, intervalMs: 3_600_000, deleteChunk: 100, maxChunksPerRound: 10 },
      roller,
    );
    await keeper.round(t0);
    const id = await message(suite.accountId, t0, 'submitted', { segments: 2, cost: '2' });
    await roller.round(t0);
    expect(await hourRow(hourOf(t0))).toEqual({ settled: false, unended: '1' });
    // The receipt comes after the last round; the last count before the drop sees it.
    await suite.db.query(`UPDATE messages SET state = 'delivered' WHERE id = $1`, [id]);

    const t5 = new Date(t0.getTime() + 5 * DAY_MS);
    await keeper.round(t5);
    expect((await expired.get()).values[0].value).toBe(1);
    const gone = await suite.db.query('SELECT 1 FROM messages WHERE id = $1', [id]);
    expect(gone.rowCount).toBe(0);
    expect(await hourRow(hourOf(t0))).toEqual({ settled: true, unended: '0' });
    await roller.round(t5);
    expect(await statsOf(suite.accountId)).toEqual({
      delivered: ['1', '2', '2.000000', '0.000000'],
    });
  });

  it('deletes the hours past CDR_RETENTION_DAYS and never adds them again', async () => {
    const now = new Date();
    await message(suite.accountId, new Date(now.getTime() - 3 * DAY_MS), 'delivered');
    await message(suite.accountId, now, 'delivered');
    await rollup({ hoursPerRound: 100 }).roller.round(now);
    expect(await statsOf(suite.accountId)).toEqual({
      delivered: ['2', '2', '2.000000', '0.000000'],
    });
    const { roller } = rollup({ cdrRetentionDays: 2 });
    expect((await roller.round(now)).deleted).toBe(24);
    expect(await statsOf(suite.accountId)).toEqual({
      delivered: ['1', '1', '1.000000', '0.000000'],
    });
    const { rows } = await suite.db.query<{ oldest: Date }>(
      'SELECT min(hour) AS oldest FROM message_stats_hours',
    );
    expect(rows[0].oldest.getTime()).toBe(hourOf(new Date(now.getTime() - 2 * DAY_MS)).getTime());
  });
});
