import { UNKNOWN_OUTCOME_ERROR } from '@smsgw/contracts';
import { timeOrderedId, type Queryable } from '@smsgw/kit';
import { migratedDatabases, useMigratedAccount } from '@smsgw/kit/testing';
import {
  HOUR_MS,
  addStatsHours,
  deleteStatsBefore,
  dueStatsHours,
  firstMessageHour,
  hourOf,
  rollStatsHour,
  statsFreshness,
  statsRows,
  statsTotals,
  type RollOptions,
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

const GRACE_MS = 5 * 60_000;
const SETTLE_AGE_MS = 3 * 24 * HOUR_MS;

describe.each(migratedDatabases())('message statistics on %s', (_engine, open) => {
  const suite = useMigratedAccount(open);
  const now = new Date();
  const thisHour = hourOf(now);
  const hoursAgo = (n: number, minutes = 10) =>
    new Date(thisHour.getTime() - n * HOUR_MS + minutes * 60_000);
  const options = (over: Partial<RollOptions> = {}): RollOptions => ({
    now,
    graceMs: GRACE_MS,
    settleAgeMs: SETTLE_AGE_MS,
    ...over,
  });
  const hourRow = async (hour: Date) =>
    (
      await suite.db.query<{ rolled_at: Date | null; unended: string; settled: boolean }>(
        'SELECT rolled_at, unended::text, settled FROM message_stats_hours WHERE hour = $1',
        [hour],
      )
    ).rows[0];
  const byState = async (hour: Date) =>
    Object.fromEntries(
      (
        await statsRows(
          suite.db,
          {
            since: hour,
            until: new Date(hour.getTime() + HOUR_MS),
            period: 'hour',
            group: 'state',
          },
          100,
        )
      ).map((r) => [r.state, [r.messages, r.parts, r.charged, r.refunded]]),
    );

  it("counts an hour's messages by state, parts, cost charged and refunded as the ledger says", async () => {
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
    // Neighbouring hours' messages are not this hour's.
    await insertMessage(db, accountId, { at: new Date(hour.getTime() - 1), state: 'delivered' });
    await insertMessage(db, accountId, { at: new Date(hour.getTime() + HOUR_MS), state: 'queued' });
    await addStatsHours(db, hour, hour);

    expect(await rollStatsHour(db, hour, options())).toEqual({
      counted: true,
      unended: 0,
      settled: true,
    });
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
    await addStatsHours(db, first, second);
    for (const hour of [first, second]) await rollStatsHour(db, hour, options());
    const range = { since: first, until: new Date(second.getTime() + HOUR_MS) };
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

  it('counts an hour again after a receipt, and settles it once ended with none unended', async () => {
    const { db, accountId } = suite;
    const hour = hourOf(hoursAgo(3));
    const id = await insertMessage(db, accountId, { at: hoursAgo(3), state: 'submitted' });
    await addStatsHours(db, hour, hour);
    expect(await rollStatsHour(db, hour, options())).toEqual({
      counted: true,
      unended: 1,
      settled: false,
    });
    expect(await byState(hour)).toEqual({ submitted: ['1', '1', '1.000000', '0.000000'] });
    expect(await statsFreshness(db, hour, thisHour, now)).toEqual({ settled: false, asOf: now });

    await db.query(`UPDATE messages SET state = 'delivered' WHERE id = $1`, [id]);
    const later = new Date(now.getTime() + 60_000);
    expect(await rollStatsHour(db, hour, options({ now: later }))).toEqual({
      counted: true,
      unended: 0,
      settled: true,
    });
    expect(await byState(hour)).toEqual({ delivered: ['1', '1', '1.000000', '0.000000'] });
    expect(await hourRow(hour)).toEqual({ rolled_at: later, unended: '0', settled: true });
    expect(await statsFreshness(db, hour, thisHour, now)).toEqual({ settled: true, asOf: later });
    // Settled: not counted again.
    expect((await rollStatsHour(db, hour, options({ now: later }))).counted).toBe(false);
  });

  it('leaves the current hour and one within the grace unsettled, and settles one past the settle age', async () => {
    const { db, accountId } = suite;
    const current = thisHour;
    const old = hourOf(new Date(now.getTime() - SETTLE_AGE_MS - HOUR_MS));
    await insertMessage(db, accountId, { at: new Date(current.getTime() + 1), state: 'delivered' });
    await insertMessage(db, accountId, { at: new Date(old.getTime() + 1), state: 'submitted' });
    await addStatsHours(db, old, current);
    expect((await rollStatsHour(db, current, options())).settled).toBe(false);
    // The hour just ended, within the grace: its messages may still be arriving.
    const justEnded = new Date(current.getTime() + HOUR_MS + GRACE_MS - 1);
    expect((await rollStatsHour(db, current, options({ now: justEnded }))).settled).toBe(false);
    const pastGrace = new Date(current.getTime() + HOUR_MS + GRACE_MS);
    expect((await rollStatsHour(db, current, options({ now: pastGrace }))).settled).toBe(true);
    expect(await rollStatsHour(db, old, options())).toEqual({
      counted: true,
      unended: 1,
      settled: true,
    });
  });

  it('names the hours due: the current at every round, the older ones less often', async () => {
    const { db } = suite;
    const hours = [0, 1, 5, 30].map((n) => hourOf(hoursAgo(n)));
    await addStatsHours(db, hours[3], hours[0]);
    const due = async (at: Date) =>
      (await dueStatsHours(db, at, HOUR_MS, 100)).map((h) => h.hour.toISOString());
    // Never counted: all due, newest first.
    expect((await due(now)).length).toBe(31);
    // Counted half way through the current hour.
    const at = new Date(thisHour.getTime() + HOUR_MS / 2);
    for (const hour of hours)
      await db.query('UPDATE message_stats_hours SET rolled_at = $2 WHERE hour = $1', [hour, at]);
    await db.query('UPDATE message_stats_hours SET settled = true WHERE NOT (hour = ANY($1))', [
      hours,
    ]);
    const soon = new Date(at.getTime() + 30_000);
    expect(await due(soon)).toEqual([hours[0].toISOString()]);
    const inAnHour = new Date(at.getTime() + HOUR_MS);
    expect(await due(inAnHour)).toEqual(hours.map((h) => h.toISOString()));
  });

  it('a final count settles an hour whatever it holds; old hours are deleted with their rows', async () => {
    const { db, accountId } = suite;
    const hour = hourOf(hoursAgo(4));
    await insertMessage(db, accountId, { at: hoursAgo(4), state: 'queued' });
    await addStatsHours(db, hour, thisHour);
    expect(await rollStatsHour(db, hour, options({ final: true }))).toEqual({
      counted: true,
      unended: 1,
      settled: true,
    });
    expect(await firstMessageHour(db)).toEqual(hour);
    expect(await deleteStatsBefore(db, new Date(hour.getTime() + HOUR_MS))).toBe(1);
    expect(await hourRow(hour)).toBeUndefined();
    expect(await byState(hour)).toEqual({});
  });
});
