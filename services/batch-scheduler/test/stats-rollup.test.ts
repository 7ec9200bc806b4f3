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
    outcomes: () => Promise<Record<string, number>>;
  } {
    const messages = new Counter({
      name: 'messages',
      help: 'x',
      labelNames: ['outcome'],
      registers: [new Registry()],
    });
    const roller = new StatsRollup(
      suite.db,
      logger,
      { statsMessages: messages },
      {
        intervalMs: 60_000,
        lagMs: 120_000,
        settleAgeMs: 3 * DAY_MS,
        slicesPerRound: 24,
        backfillDays: 366,
        cdrRetentionDays: undefined,
        ...over,
      },
    );
    const outcomes = async () =>
      Object.fromEntries(
        (await messages.get()).values.map((v) => [String(v.labels['outcome']), v.value]),
      );
    return { roller, outcomes };
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

  const pending = async () =>
    (await suite.db.query<{ n: number }>('SELECT count(*)::int AS n FROM message_stats_pending'))
      .rows[0].n;
  /** Half past the current hour: the lag then ends within the hour, as the tests count on. */
  const halfPast = () => new Date(hourOf(new Date()).getTime() + 30 * 60_000);
  /** A time `minutes` into the hour `hours` before now's. */
  const at = (now: Date, hours: number, minutes = 10) =>
    new Date(hourOf(now).getTime() - hours * HOUR_MS + minutes * 60_000);

  it('counts every message from the oldest one on up to the lag: the statistics match the messages per account', async () => {
    const now = halfPast();
    const a = await account('stats-a');
    const b = await account('stats-b');
    const earlier = at(now, 5);
    const recent = new Date(now.getTime() - 3 * 60_000);
    await message(a, earlier, 'delivered', { segments: 3, cost: '3' });
    await message(a, recent, 'delivered', { segments: 1, cost: '0.25' });
    await message(a, recent, 'failed', { cost: '2', refund: true });
    await message(a, recent, 'failed', { error: UNKNOWN_OUTCOME_ERROR });
    await message(b, earlier, 'undelivered', { segments: 2, cost: '2' });
    await message(b, recent, 'cancelled', { cost: '4' });
    // Within the lag: not counted yet.
    await message(b, new Date(now.getTime() - 60_000), 'delivered');
    const { roller, outcomes } = rollup();

    const round = await roller.round(now);
    expect(round).toMatchObject({ slices: 6, counted: 6, pending: 0 });
    expect(await statsOf(a)).toEqual({
      delivered: ['2', '4', '3.250000', '0.000000'],
      failed: ['1', '1', '2.000000', '2.000000'],
      unknown: ['1', '1', '1.000000', '0.000000'],
    });
    expect(await statsOf(b)).toEqual({
      cancelled: ['1', '1', '4.000000', '4.000000'],
      undelivered: ['1', '2', '2.000000', '0.000000'],
    });
    expect(await outcomes()).toEqual({ counted: 6 });
    // A minute on: the message that was within the lag is counted, nothing twice.
    expect(await roller.round(new Date(now.getTime() + 61_000))).toMatchObject({ counted: 1 });
    expect((await statsOf(b))['delivered']).toEqual(['1', '1', '1.000000', '0.000000']);
    expect(await outcomes()).toEqual({ counted: 7 });
  });

  it('counts a message that ends after its slice once, when it ends, and not before', async () => {
    const now = new Date();
    const id = await message(suite.accountId, new Date(now.getTime() - 5 * 60_000), 'submitted');
    const { roller, outcomes } = rollup();
    expect(await roller.round(now)).toMatchObject({ counted: 0, pending: 1, late: 0 });
    expect(await statsOf(suite.accountId)).toEqual({});
    expect(await roller.round(new Date(now.getTime() + 60_000))).toMatchObject({ late: 0 });
    expect(await statsOf(suite.accountId)).toEqual({});

    await suite.db.query(`UPDATE messages SET state = 'delivered' WHERE id = $1`, [id]);
    expect(await roller.round(new Date(now.getTime() + 120_000))).toMatchObject({ late: 1 });
    expect(await statsOf(suite.accountId)).toEqual({
      delivered: ['1', '1', '1.000000', '0.000000'],
    });
    expect(await roller.round(new Date(now.getTime() + 180_000))).toMatchObject({ late: 0 });
    expect(await statsOf(suite.accountId)).toEqual({
      delivered: ['1', '1', '1.000000', '0.000000'],
    });
    expect(await outcomes()).toEqual({ pending: 1, late: 1 });
    expect(await pending()).toBe(0);
  });

  it('counts a message whose receipt never comes as it is once past the settle age', async () => {
    const now = new Date();
    const old = at(now, 2);
    await message(suite.accountId, old, 'submitted');
    const { roller, outcomes } = rollup({ settleAgeMs: 6 * HOUR_MS });
    await roller.round(now);
    expect(await pending()).toBe(1);
    await roller.round(new Date(now.getTime() + 2 * HOUR_MS));
    expect(await pending()).toBe(1);
    expect(await statsOf(suite.accountId)).toEqual({});
    expect(await roller.round(new Date(now.getTime() + 5 * HOUR_MS))).toMatchObject({
      settled: 1,
    });
    expect(await pending()).toBe(0);
    expect(await statsOf(suite.accountId)).toEqual({
      submitted: ['1', '1', '1.000000', '0.000000'],
    });
    expect(await outcomes()).toEqual({ pending: 1, settled: 1 });
  });

  it('two schedulers at once count each message once', async () => {
    const now = halfPast();
    const ids: string[] = [];
    for (let h = 0; h < 10; h++) {
      await message(suite.accountId, at(now, h + 1), 'delivered');
      ids.push(await message(suite.accountId, at(now, h + 1, 40), 'submitted'));
    }
    const first = rollup();
    const second = rollup();
    // Until both have caught up: one passes the other by while it counts.
    for (let i = 0; i < 3; i++)
      await Promise.all([first.roller.round(now), second.roller.round(now)]);
    expect(await statsOf(suite.accountId)).toEqual({
      delivered: ['10', '10', '10.000000', '0.000000'],
    });
    expect(await pending()).toBe(10);
    await suite.db.query(`UPDATE messages SET state = 'delivered' WHERE id = ANY($1)`, [ids]);
    // Their hours grew older by more than a tenth: each pending message is looked at.
    const later = new Date(now.getTime() + 3 * HOUR_MS);
    for (let i = 0; i < 3; i++)
      await Promise.all([first.roller.round(later), second.roller.round(later)]);
    expect(await statsOf(suite.accountId)).toEqual({
      delivered: ['20', '20', '20.000000', '0.000000'],
    });
    expect(await pending()).toBe(0);
  });

  it('gives the messages of a period a last count before the retention drops it: the statistics stay', async () => {
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
    const ended = await message(suite.accountId, t0, 'submitted', { segments: 2, cost: '2' });
    const open = await message(suite.accountId, t0, 'submitted');
    // Counted within the lag: not yet; the last count before the drop counts it.
    await message(suite.accountId, new Date(t0.getTime() + 1000), 'delivered', { cost: '3' });
    await roller.round(new Date(t0.getTime() + 121_000));
    expect(await pending()).toBe(2);
    // The receipt comes after the last round; the last count before the drop sees it.
    await suite.db.query(`UPDATE messages SET state = 'delivered' WHERE id = $1`, [ended]);

    const t5 = new Date(t0.getTime() + 5 * DAY_MS);
    await keeper.round(t5);
    expect((await expired.get()).values[0].value).toBe(3);
    const gone = await suite.db.query('SELECT 1 FROM messages WHERE id = ANY($1)', [[ended, open]]);
    expect(gone.rowCount).toBe(0);
    expect(await pending()).toBe(0);
    await roller.round(t5);
    expect(await statsOf(suite.accountId)).toEqual({
      delivered: ['2', '3', '5.000000', '0.000000'],
      submitted: ['1', '1', '1.000000', '0.000000'],
    });
  });

  it('deletes the hours past CDR_RETENTION_DAYS and never counts them again', async () => {
    const now = new Date();
    await message(suite.accountId, new Date(now.getTime() - 3 * DAY_MS), 'delivered');
    await message(suite.accountId, at(now, 1), 'delivered');
    await rollup({ slicesPerRound: 100 }).roller.round(now);
    expect(await statsOf(suite.accountId)).toEqual({
      delivered: ['2', '2', '2.000000', '0.000000'],
    });
    const { roller } = rollup({ cdrRetentionDays: 2 });
    expect((await roller.round(now)).deleted).toBe(1);
    expect(await statsOf(suite.accountId)).toEqual({
      delivered: ['1', '1', '1.000000', '0.000000'],
    });
  });

  it('works a long history off over several rounds, a bounded number of slices each', async () => {
    const now = halfPast();
    for (let h = 1; h <= 30; h++) await message(suite.accountId, at(now, h), 'delivered');
    const { roller } = rollup({ slicesPerRound: 12 });
    const rounds = [];
    for (let i = 0; i < 4; i++) rounds.push((await roller.round(now)).slices);
    // Thirty hours and the current one up to the lag; then nothing new.
    expect(rounds).toEqual([12, 12, 7, 0]);
    expect(await statsOf(suite.accountId)).toEqual({
      delivered: ['30', '30', '30.000000', '0.000000'],
    });
  });
});
