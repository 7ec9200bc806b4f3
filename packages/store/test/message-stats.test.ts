import { UNKNOWN_OUTCOME_ERROR } from '@smsgw/contracts';
import { timeOrderedId, type Queryable } from '@smsgw/kit';
import { migratedDatabases, useMigratedAccount } from '@smsgw/kit/testing';
import {
  HOUR_MS,
  countPendingStats,
  countStatsSlice,
  deleteStatsBefore,
  firstMessageHour,
  hourOf,
  pendingStatsCount,
  statsFreshness,
  statsRows,
  statsTotals,
  statsWatermark,
} from '@smsgw/store';

interface Message {
  at: Date;
  state: string;
  to?: string;
  segments?: number;
  cost?: string;
  route?: string | null;
  connector?: string | null;
  error?: string | null;
  unansweredSubmits?: number;
  /** A refund row of its own in the ledger. */
  refund?: boolean;
  /** An accepted part (the SMSC holds some of it). */
  part?: boolean;
}

async function insertMessage(db: Queryable, accountId: string, m: Message): Promise<string> {
  const id = timeOrderedId(m.at);
  await db.query(
    `INSERT INTO messages (id, account_id, state, to_addr, content, coding, segments, cost, route, connector, error, unanswered_submits)
     VALUES ($1, $2, $3, $4, 'hi', 0, $5, $6, $7, $8, $9, $10)`,
    [
      id,
      accountId,
      m.state,
      m.to ?? '41790000001',
      m.segments ?? 1,
      m.cost ?? '1',
      m.route ?? null,
      m.connector ?? null,
      m.error ?? null,
      m.unansweredSubmits ?? 0,
    ],
  );
  if (m.refund === true)
    await db.query(
      `INSERT INTO credit_ledger (account_id, amount, sms_count, reason, message_id) VALUES ($1, $2, 0, 'refund', $3)`,
      [accountId, m.cost ?? '1', id],
    );
  if (m.part === true)
    await db.query(`INSERT INTO message_parts (message_id, seq, smsc_id) VALUES ($1, 1, $2)`, [
      id,
      `smsc-${id}`,
    ]);
  return id;
}

describe.each(migratedDatabases())('message statistics on %s', (_engine, open) => {
  const suite = useMigratedAccount(open);
  const now = new Date();
  const thisHour = hourOf(now);
  const hoursAgo = (n: number, minutes = 10) =>
    new Date(thisHour.getTime() - n * HOUR_MS + minutes * 60_000);
  const hourEnd = (hour: Date) => new Date(hour.getTime() + HOUR_MS);
  /** Counts slices from `floor` up to `until`; answers them. */
  const countUpTo = async (floor: Date, until: Date) => {
    const slices = [];
    for (;;) {
      const slice = await countStatsSlice(suite.db, { until, floor });
      if (!slice) return slices;
      slices.push(slice);
    }
  };
  const byState = async (hour: Date) =>
    Object.fromEntries(
      (
        await statsRows(
          suite.db,
          { since: hour, until: hourEnd(hour), period: 'hour', group: 'state' },
          100,
        )
      ).map((r) => [r.state, [r.messages, r.parts, r.charged, r.refunded]]),
    );

  it("counts a slice's ended messages by state, parts, cost charged and refunded as the ledger says", async () => {
    const { db, accountId } = suite;
    const hour = hourOf(hoursAgo(2));
    for (const m of [
      { state: 'delivered', segments: 2, cost: '2' },
      { state: 'delivered', segments: 1, cost: '0.5' },
      { state: 'failed', cost: '1', refund: true },
      { state: 'failed', cost: '1', error: UNKNOWN_OUTCOME_ERROR },
      // A batch's cancel: refunded, unless the SMSC may hold some of it.
      { state: 'cancelled', cost: '3' },
      { state: 'cancelled', cost: '4', unansweredSubmits: 1 },
      { state: 'cancelled', cost: '5', part: true },
    ])
      await insertMessage(db, accountId, { at: hoursAgo(2), ...m });
    // Neighbouring hours' messages are not this slice's.
    await insertMessage(db, accountId, { at: new Date(hour.getTime() - 1), state: 'delivered' });
    await insertMessage(db, accountId, { at: hourEnd(hour), state: 'delivered' });

    expect(await countStatsSlice(db, { until: now, floor: hour })).toEqual({
      from: hour,
      to: hourEnd(hour),
      counted: 7,
      pending: 0,
    });
    expect(await statsWatermark(db)).toEqual(hourEnd(hour));
    expect(await byState(hour)).toEqual({
      delivered: ['2', '3', '2.500000', '0.000000'],
      failed: ['1', '1', '1.000000', '1.000000'],
      unknown: ['1', '1', '1.000000', '0.000000'],
      cancelled: ['3', '3', '12.000000', '3.000000'],
    });
    expect(await statsTotals(db, { since: hour, until: thisHour, period: 'hour' })).toEqual({
      messages: '7',
      parts: '8',
      charged: '16.500000',
      refunded: '4.000000',
      cost: '0.000000',
    });
  });

  it('groups by hour and day, by connector, route, country and account, and filters', async () => {
    const { db, accountId } = suite;
    const other = (
      await db.query<{ id: string }>(
        `INSERT INTO accounts (username, password_hash, balance, rate) VALUES ('stats-other', 'x', 100, 1) RETURNING id`,
      )
    ).rows[0].id;
    const first = hourOf(hoursAgo(30));
    const second = hourOf(hoursAgo(29));
    await insertMessage(db, accountId, {
      at: hoursAgo(30),
      state: 'delivered',
      to: '41791234567',
      route: 'ch',
      connector: 'smsc-a',
    });
    await insertMessage(db, accountId, {
      at: hoursAgo(29),
      state: 'delivered',
      to: '4915112345678',
      route: 'de',
      connector: 'smsc-b',
    });
    await insertMessage(db, other, {
      at: hoursAgo(29),
      state: 'undelivered',
      to: '12025550123',
      route: null,
      connector: 'smsc-b',
    });
    expect((await countUpTo(first, hourEnd(second))).length).toBe(2);
    const range = { since: first, until: hourEnd(second) };
    const rows = async (f: Partial<Parameters<typeof statsRows>[1]>) =>
      (await statsRows(db, { ...range, period: 'hour', ...f }, 100)).map((r) => [
        r.period.toISOString(),
        r.value,
        r.state,
        r.messages,
      ]);

    expect(await rows({ group: 'country' })).toEqual([
      [first.toISOString(), '41', 'delivered', '1'],
      [second.toISOString(), '1', 'undelivered', '1'],
      [second.toISOString(), '49', 'delivered', '1'],
    ]);
    expect(await rows({ group: 'route' })).toEqual([
      [first.toISOString(), 'ch', 'delivered', '1'],
      [second.toISOString(), '', 'undelivered', '1'],
      [second.toISOString(), 'de', 'delivered', '1'],
    ]);
    const day = (hour: Date) => `${hour.toISOString().slice(0, 10)}T00:00:00.000Z`;
    expect(await rows({ group: 'connector', period: 'day' })).toEqual([
      [day(first), 'smsc-a', 'delivered', '1'],
      [day(second), 'smsc-b', 'delivered', '1'],
      [day(second), 'smsc-b', 'undelivered', '1'],
    ]);
    const accountName = (
      await db.query<{ username: string }>('SELECT username FROM accounts WHERE id = $1', [
        accountId,
      ])
    ).rows[0].username;
    const sorted = (list: (string | null)[][]) => list.map((r) => r.join(' ')).sort();
    expect(sorted(await rows({ group: 'account', period: 'day', since: second }))).toEqual(
      sorted([
        [day(second), accountName, 'delivered', '1'],
        [day(second), 'stats-other', 'undelivered', '1'],
      ]),
    );
    expect(await rows({ accountId: other })).toEqual([
      [second.toISOString(), null, 'undelivered', '1'],
    ]);
    expect(await rows({ connector: 'smsc-b', country: '49' })).toEqual([
      [second.toISOString(), null, 'delivered', '1'],
    ]);
    expect(await rows({ route: 'ch' })).toEqual([[first.toISOString(), null, 'delivered', '1']]);
  });

  it('counts a message that ends after its slice once, when it ends; the hour settles then', async () => {
    const { db, accountId } = suite;
    const hour = hourOf(hoursAgo(1));
    const id = await insertMessage(db, accountId, { at: hoursAgo(1), state: 'submitted' });
    await insertMessage(db, accountId, { at: hoursAgo(1), state: 'delivered' });
    const slice = await countStatsSlice(db, { until: hourEnd(hour), floor: hour });
    expect(slice).toMatchObject({ counted: 1, pending: 1 });
    expect(await byState(hour)).toEqual({ delivered: ['1', '1', '1.000000', '0.000000'] });
    const pendingAt = (at: Date) =>
      countPendingStats(db, { now: at, settleBefore: new Date(at.getTime() - 3 * 24 * HOUR_MS) });
    // Not ended yet: not counted.
    expect(await pendingAt(now)).toEqual({ ended: 0, settled: 0 });
    expect(await statsFreshness(db, hour, hourEnd(hour), now)).toEqual({
      settled: false,
      asOf: hourEnd(hour),
    });

    await db.query(`UPDATE messages SET state = 'delivered' WHERE id = $1`, [id]);
    const later = new Date(now.getTime() + 60_000);
    expect(await pendingAt(later)).toEqual({ ended: 1, settled: 0 });
    expect(await byState(hour)).toEqual({ delivered: ['2', '2', '2.000000', '0.000000'] });
    expect(await pendingStatsCount(db)).toBe(0);
    // Counted once: not again.
    expect(await pendingAt(new Date(later.getTime() + 60_000))).toEqual({ ended: 0, settled: 0 });
    expect(await byState(hour)).toEqual({ delivered: ['2', '2', '2.000000', '0.000000'] });
    expect(await statsFreshness(db, hour, hourEnd(hour), now)).toEqual({
      settled: true,
      asOf: hourEnd(hour),
    });
    // A range with the current hour is not settled: it has not ended.
    expect((await statsFreshness(db, hour, hourEnd(thisHour), now)).settled).toBe(false);
  });

  it('looks at an old pending message each time its hour grew a tenth older, not at every call', async () => {
    const { db, accountId } = suite;
    const hour = hourOf(hoursAgo(10));
    const id = await insertMessage(db, accountId, { at: hoursAgo(10), state: 'submitted' });
    await countStatsSlice(db, { until: hourEnd(hour), floor: hour });
    const settleBefore = new Date(0);
    expect(await countPendingStats(db, { now, settleBefore })).toEqual({ ended: 0, settled: 0 });
    await db.query(`UPDATE messages SET state = 'delivered' WHERE id = $1`, [id]);
    const soon = new Date(now.getTime() + 60_000);
    expect(await countPendingStats(db, { now: soon, settleBefore })).toEqual({
      ended: 0,
      settled: 0,
    });
    const age = now.getTime() - hour.getTime();
    const tenthOlder = new Date(hour.getTime() + age * 1.1 + 60_000);
    expect(await countPendingStats(db, { now: tenthOlder, settleBefore })).toEqual({
      ended: 1,
      settled: 0,
    });
    expect(await byState(hour)).toEqual({ delivered: ['1', '1', '1.000000', '0.000000'] });
  });

  it('counts the pending messages of an hour before the settle bound as they are, and forgets vanished ones', async () => {
    const { db, accountId } = suite;
    const hour = hourOf(hoursAgo(5));
    await insertMessage(db, accountId, { at: hoursAgo(5), state: 'submitted' });
    const gone = await insertMessage(db, accountId, { at: hoursAgo(5), state: 'queued' });
    const young = hourOf(hoursAgo(1));
    await insertMessage(db, accountId, { at: hoursAgo(1), state: 'submitted' });
    await countUpTo(hour, hourEnd(young));
    expect(await pendingStatsCount(db)).toBe(3);
    await db.query('DELETE FROM messages WHERE id = $1', [gone]);
    expect(await countPendingStats(db, { now, settleBefore: hourEnd(hour) })).toEqual({
      ended: 0,
      settled: 1,
    });
    expect(await byState(hour)).toEqual({ submitted: ['1', '1', '1.000000', '0.000000'] });
    // The younger hour's message still waits for its end.
    expect(await pendingStatsCount(db)).toBe(1);
    expect(await byState(young)).toEqual({});
    expect((await statsFreshness(db, hour, hourEnd(hour), now)).settled).toBe(true);
    expect((await statsFreshness(db, young, hourEnd(young), now)).settled).toBe(false);
  });

  it('counts a history of several hours in slices of one hour at most, from the floor on', async () => {
    const { db, accountId } = suite;
    for (let h = 6; h >= 1; h--)
      for (let i = 0; i < 3; i++)
        await insertMessage(db, accountId, { at: hoursAgo(h, 10 + i * 15), state: 'delivered' });
    const floor = hourOf(hoursAgo(6));
    expect(await firstMessageHour(db)).toEqual(floor);
    expect(await statsFreshness(db, floor, now, now)).toEqual({ settled: false, asOf: null });
    const until = new Date(thisHour.getTime() - HOUR_MS + 20 * 60_000);
    const slices = await countUpTo(floor, until);
    // Six hours, the last one up to until: its message at :40 is not counted yet.
    expect(slices.map((s) => [s.from.getTime() - floor.getTime(), s.counted])).toEqual([
      [0, 3],
      [HOUR_MS, 3],
      [2 * HOUR_MS, 3],
      [3 * HOUR_MS, 3],
      [4 * HOUR_MS, 3],
      [5 * HOUR_MS, 1],
    ]);
    const total = async () =>
      (await statsTotals(db, { since: floor, until: thisHour, period: 'hour' })).messages;
    expect(await total()).toBe('16');
    await countUpTo(floor, thisHour);
    expect(await total()).toBe('18');
    expect(await statsWatermark(db)).toEqual(thisHour);
    expect(await statsFreshness(db, floor, thisHour, now)).toEqual({
      settled: true,
      asOf: thisHour,
    });
  });

  it('two slices counted at once count each message once', async () => {
    const { db, accountId } = suite;
    const floor = hourOf(hoursAgo(4));
    for (let h = 4; h >= 1; h--)
      await insertMessage(db, accountId, { at: hoursAgo(h), state: 'delivered' });
    await insertMessage(db, accountId, { at: hoursAgo(1), state: 'submitted' });
    const counts = await Promise.all(Array.from({ length: 4 }, () => countUpTo(floor, thisHour)));
    expect(counts.flat().reduce((n, s) => n + s.counted, 0)).toBe(4);
    expect(await pendingStatsCount(db)).toBe(1);
    await db.query(`UPDATE messages SET state = 'delivered' WHERE state = 'submitted'`);
    const ended = await Promise.all(
      Array.from({ length: 4 }, () =>
        countPendingStats(db, { now, settleBefore: new Date(0), wait: true }),
      ),
    );
    expect(ended.reduce((n, p) => n + (p?.ended ?? 0), 0)).toBe(1);
    expect(
      (await statsTotals(db, { since: floor, until: thisHour, period: 'hour' })).messages,
    ).toBe('5');
  });

  it('deletes old hours with their rows and pending messages', async () => {
    const { db, accountId } = suite;
    const hour = hourOf(hoursAgo(4));
    await insertMessage(db, accountId, { at: hoursAgo(4), state: 'queued' });
    await insertMessage(db, accountId, { at: hoursAgo(4), state: 'delivered' });
    await countUpTo(hour, thisHour);
    expect(await pendingStatsCount(db)).toBe(1);
    expect(await deleteStatsBefore(db, hourEnd(hour))).toBe(1);
    expect(await pendingStatsCount(db)).toBe(0);
    expect(await byState(hour)).toEqual({});
  });

  /** The daily rows, and the hourly rows summed by UTC day without the account, alike. */
  const dailyAndHoursByDay = async (db: Queryable) => {
    const cols = `connector, route, country, state, sum(messages)::text AS messages,
                  sum(parts)::text AS parts, sum(charged)::text AS charged, sum(refunded)::text AS refunded`;
    const daily = await db.query(
      `SELECT day, ${cols} FROM message_stats_daily GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`,
    );
    const hours = await db.query(
      `SELECT date_trunc('day', hour, 'UTC') AS day, ${cols} FROM message_stats
        GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`,
    );
    return { daily: daily.rows, hours: hours.rows };
  };

  /** The accounts' hourly rows, and the hourly rows summed by hour, account and state, alike. */
  const accountsAndHours = async (db: Queryable) => {
    const cols = `hour, account_id, state, sum(messages)::text AS messages, sum(parts)::text AS parts,
                  sum(charged)::text AS charged, sum(refunded)::text AS refunded`;
    const order = 'GROUP BY 1, 2, 3 ORDER BY 1, 2, 3';
    const accounts = await db.query(`SELECT ${cols} FROM message_stats_accounts ${order}`);
    const hours = await db.query(`SELECT ${cols} FROM message_stats ${order}`);
    return { accounts: accounts.rows, hours: hours.rows };
  };

  it('keeps the days without the account, and the hours by account and state alone, equal to the hours summed, after slices and after pending messages end', async () => {
    const { db, accountId } = suite;
    const other = (
      await db.query<{ id: string }>(
        `INSERT INTO accounts (username, password_hash, balance, rate) VALUES ('stats-daily', 'x', 100, 1) RETURNING id`,
      )
    ).rows[0].id;
    const floor = hourOf(hoursAgo(60));
    const pending: string[] = [];
    for (let h = 60; h >= 1; h -= 7)
      for (const [i, to] of ['41791234567', '4915112345678', '12025550123'].entries()) {
        const account = i === 1 ? other : accountId;
        const common = { to, connector: `smsc-${h % 2}`, route: i === 2 ? null : 'r', cost: '1.5' };
        await insertMessage(db, account, { at: hoursAgo(h, 5 + i), state: 'delivered', ...common });
        await insertMessage(db, account, {
          at: hoursAgo(h, 20 + i),
          state: 'failed',
          refund: true,
          ...common,
        });
        pending.push(
          await insertMessage(db, account, {
            at: hoursAgo(h, 40 + i),
            state: 'submitted',
            ...common,
          }),
        );
      }
    await countUpTo(floor, thisHour);
    const afterSlices = await dailyAndHoursByDay(db);
    expect(afterSlices.daily.length).toBeGreaterThan(0);
    expect(afterSlices.daily).toEqual(afterSlices.hours);
    const accountsAfterSlices = await accountsAndHours(db);
    expect(accountsAfterSlices.accounts.length).toBeGreaterThan(0);
    expect(accountsAfterSlices.accounts).toEqual(accountsAfterSlices.hours);

    await db.query(`UPDATE messages SET state = 'delivered' WHERE id = ANY($1::uuid[])`, [pending]);
    expect(await countPendingStats(db, { now, settleBefore: new Date(0) })).toMatchObject({
      ended: pending.length,
    });
    const afterPending = await dailyAndHoursByDay(db);
    expect(afterPending.daily).toEqual(afterPending.hours);
    const accountsAfterPending = await accountsAndHours(db);
    expect(accountsAfterPending.accounts).toEqual(accountsAfterPending.hours);

    // A query by day over every account (whole days off the daily rows, the ends off the hours)
    // answers what the hours summed by day answer, for every group but the account.
    const since = new Date(floor.getTime() + 3 * HOUR_MS);
    const range = { since, until: thisHour };
    const key = (r: { period: Date; value: string | null; state: string }) =>
      `${r.period.toISOString()} ${r.value} ${r.state}`;
    for (const group of [undefined, 'connector', 'route', 'country', 'state'] as const) {
      const byDay = await statsRows(db, { ...range, period: 'day', group }, 1000);
      const summed = new Map<string, number>();
      for (const r of await statsRows(db, { ...range, period: 'hour', group }, 1000)) {
        const day = new Date(Math.floor(r.period.getTime() / (24 * HOUR_MS)) * 24 * HOUR_MS);
        const k = key({ ...r, period: day });
        summed.set(k, (summed.get(k) ?? 0) + Number(r.messages));
      }
      expect(new Map(byDay.map((r) => [key(r), Number(r.messages)]))).toEqual(summed);
    }
  });

  it("deletes a day's row once all its hours are past the cutoff", async () => {
    const { db, accountId } = suite;
    const dayMs = 24 * HOUR_MS;
    const day = new Date(Math.floor(now.getTime() / dayMs) * dayMs - 2 * dayMs);
    await insertMessage(db, accountId, {
      at: new Date(day.getTime() + HOUR_MS),
      state: 'delivered',
    });
    await insertMessage(db, accountId, {
      at: new Date(day.getTime() + 25 * HOUR_MS),
      state: 'delivered',
    });
    await countUpTo(day, thisHour);
    const days = async () =>
      (await db.query<{ day: Date }>('SELECT day FROM message_stats_daily ORDER BY day')).rows.map(
        (r) => r.day.getTime(),
      );
    expect(await days()).toEqual([day.getTime(), day.getTime() + dayMs]);
    // The day's last hour is not past this cutoff: the day stays, its first hours go.
    expect(await deleteStatsBefore(db, new Date(day.getTime() + 23 * HOUR_MS))).toBe(1);
    expect(await days()).toEqual([day.getTime(), day.getTime() + dayMs]);
    await deleteStatsBefore(db, new Date(day.getTime() + dayMs));
    expect(await days()).toEqual([day.getTime() + dayMs]);
  });
});
