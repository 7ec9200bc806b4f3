import { randomUUID } from 'node:crypto';
import { createLogger, timeOrderedId } from '@smsgw/kit';
import { DAY_MS, migratedDatabases, useMigratedAccount } from '@smsgw/kit/testing';
import { Counter, Registry } from 'prom-client';
import { MessageRetention, partitionDays } from '../src/message-retention';

const logger = createLogger('test', 'silent');

it('sizes partitions so about seven hold the retained period', () => {
  expect(partitionDays(1)).toBe(1);
  expect(partitionDays(7)).toBe(1);
  expect(partitionDays(30)).toBe(5);
  expect(partitionDays(365)).toBe(53);
  expect(partitionDays(undefined)).toBe(30);
});

describe.each(migratedDatabases())('message retention on %s', (_name, open) => {
  const suite = useMigratedAccount(open);

  function retention(retentionDays: number | undefined): {
    keeper: MessageRetention;
    expired: Counter;
  } {
    const expired = new Counter({ name: 'expired', help: 'x', registers: [new Registry()] });
    const keeper = new MessageRetention(
      suite.db,
      logger,
      { expired },
      { retentionDays, intervalMs: 3_600_000, deleteChunk: 2, maxChunksPerRound: 10 },
    );
    return { keeper, expired };
  }

  async function insertMessage(id: string, createdAt: Date): Promise<void> {
    await suite.db.query(
      `INSERT INTO messages (id, account_id, state, to_addr, coding, segments, cost, smsc_id, created_at)
       VALUES ($1, $2, 'delivered', '41790000001', 0, 2, 1, $3, $4)`,
      [id, suite.accountId, `smsc-${id}`, createdAt],
    );
    await suite.db.query(
      `INSERT INTO message_parts (message_id, seq, smsc_id) VALUES ($1, 1, $2), ($1, 2, $3)`,
      [id, `p1-${id}`, `p2-${id}`],
    );
    await suite.db.query(
      `INSERT INTO callback_attempts (message_id, kind, url, query, state, created_at)
       VALUES ($1, 'dlr1', 'http://127.0.0.1:9/dlr', '{}'::jsonb, 'done', $2)`,
      [id, createdAt],
    );
    await suite.db.query(
      `INSERT INTO credit_ledger (account_id, amount, sms_count, reason, message_id) VALUES ($1, -2, 2, 'debit', $2)`,
      [suite.accountId, id],
    );
  }

  async function partitionOf(id: string): Promise<string | undefined> {
    const { rows } = await suite.db.query<{ part: string }>(
      `SELECT tableoid::regclass::text AS part FROM messages WHERE id = $1`,
      [id],
    );
    return rows[0]?.part;
  }

  async function counts(id: string): Promise<number[]> {
    const { rows } = await suite.db.query<{ m: number; p: number; c: number; l: number }>(
      `SELECT (SELECT count(*)::int FROM messages WHERE id = $1) AS m,
              (SELECT count(*)::int FROM message_parts WHERE message_id = $1) AS p,
              (SELECT count(*)::int FROM callback_attempts WHERE message_id = $1) AS c,
              (SELECT count(*)::int FROM credit_ledger WHERE message_id = $1) AS l`,
      [id],
    );
    const r = rows[0];
    return [r.m, r.p, r.c, r.l];
  }

  it("keeps the next period's partition ready and writes each message into the one of its time", async () => {
    const now = new Date();
    await retention(undefined).keeper.round(now);
    const { rows } = await suite.db.query<{ from_at: Date; to_at: Date }>(
      'SELECT from_at, to_at FROM message_partitions ORDER BY from_at',
    );
    expect(rows.length).toBe(2);
    expect(rows[0].from_at.getTime()).toBeLessThanOrEqual(now.getTime());
    expect(rows.at(-1)!.to_at.getTime()).toBeGreaterThanOrEqual(now.getTime() + 30 * DAY_MS);
    for (let i = 1; i < rows.length; i++) expect(rows[i].from_at).toEqual(rows[i - 1].to_at);

    const id = timeOrderedId();
    await insertMessage(id, now);
    const day = rows[0].from_at.toISOString().slice(0, 10).replace(/-/g, '');
    expect(await partitionOf(id)).toBe(`messages_p${day}`);
    // A second round adds nothing and moves nothing.
    await retention(undefined).keeper.round(now);
    const again = await suite.db.query('SELECT 1 FROM message_partitions');
    expect(again.rowCount).toBe(rows.length);
    expect(await partitionOf(id)).toBe(`messages_p${day}`);
  });

  it('moves rows written before their period had a partition into it', async () => {
    const now = new Date();
    const later = new Date(now.getTime() + 10 * DAY_MS);
    const early = timeOrderedId(later);
    await insertMessage(early, later);
    expect(await partitionOf(early)).toBe('messages_default');
    await retention(1).keeper.round(later);
    expect(await partitionOf(early)).toMatch(/^messages_p\d{8}$/);
    expect(await counts(early)).toEqual([1, 2, 1, 1]);
    const { rows } = await suite.db.query<{ part: string }>(
      `SELECT DISTINCT tableoid::regclass::text AS part FROM message_parts WHERE message_id = $1`,
      [early],
    );
    expect(rows.map((r) => r.part)).toEqual([
      (await partitionOf(early))!.replace('messages', 'message_parts'),
    ]);
  });

  it('drops whole periods past the retention, with parts and callbacks, and keeps the ledger', async () => {
    const t0 = new Date();
    const { keeper, expired } = retention(2);
    await keeper.round(t0);
    const old = timeOrderedId(t0);
    await insertMessage(old, t0);
    const t5 = new Date(t0.getTime() + 5 * DAY_MS);
    const recent = timeOrderedId(t5);
    await insertMessage(recent, t5);

    await keeper.round(new Date(t0.getTime() + 2 * DAY_MS - 1000));
    expect(await counts(old)).toEqual([1, 2, 1, 1]);
    expect(await expired.get()).toMatchObject({ values: [{ value: 0 }] });

    await keeper.round(t5);
    expect(await counts(old)).toEqual([0, 0, 0, 1]);
    expect(await counts(recent)).toEqual([1, 2, 1, 1]);
    expect((await expired.get()).values[0].value).toBe(1);
    const { rows } = await suite.db.query<{ from_at: Date }>(
      'SELECT min(from_at) AS from_at FROM message_partitions',
    );
    expect(rows[0].from_at.getTime()).toBeGreaterThan(t5.getTime() - 3 * DAY_MS);
  });

  it('replaces the default partitions once all they hold is past the retention', async () => {
    const now = new Date();
    // Rows of before partitioning: random ids, kept in the default partitions.
    const legacy = `ffffffff-${randomUUID().slice(9)}`;
    await insertMessage(legacy, new Date(now.getTime() - 10 * DAY_MS));
    const young = `fffffffe-${randomUUID().slice(9)}`;
    await insertMessage(young, new Date(now.getTime() - DAY_MS));
    expect(await partitionOf(legacy)).toBe('messages_default');

    const first = retention(3);
    await first.keeper.round(now);
    expect(await counts(legacy)).toEqual([1, 2, 1, 1]);

    await suite.db.query('DELETE FROM messages WHERE id = $1', [young]);
    await suite.db.query('DELETE FROM callback_attempts WHERE message_id = $1', [young]);
    const second = retention(3);
    await second.keeper.round(now);
    expect(await counts(legacy)).toEqual([0, 0, 0, 1]);
    expect((await second.expired.get()).values[0].value).toBe(1);
    // The new default partition takes rows again.
    const stray = `fffffffd-${randomUUID().slice(9)}`;
    await insertMessage(stray, now);
    expect(await partitionOf(stray)).toBe('messages_default');
  });

  it('deletes old inbound messages and finished batches in chunks, and keeps the rest', async () => {
    const now = new Date();
    const old = new Date(now.getTime() - 40 * DAY_MS);
    for (let i = 0; i < 5; i++) {
      await suite.db.query(
        `INSERT INTO inbound_messages (id, connector, from_addr, to_addr, coding, content, dedup_key, received_at)
         VALUES ($1, 'default', '41790000001', '1234', 0, 'hi', $2, $3)`,
        [timeOrderedId(old), randomUUID(), i < 4 ? old : now],
      );
    }
    const batch = async (state: string, createdAt: Date) =>
      suite.db.query(
        `INSERT INTO batches (id, account_id, state, total, cost, segments, created_at) VALUES ($1, $2, $3, 1, 1, 1, $4)`,
        [randomUUID(), suite.accountId, state, createdAt],
      );
    await batch('completed', old);
    await batch('cancelled', old);
    await batch('running', old);
    await batch('completed', now);

    await retention(30).keeper.round(now);
    const inbound = await suite.db.query('SELECT 1 FROM inbound_messages');
    expect(inbound.rowCount).toBe(1);
    const { rows } = await suite.db.query<{ state: string }>(
      'SELECT state FROM batches ORDER BY state',
    );
    expect(rows.map((r) => r.state)).toEqual(['completed', 'running']);
  });
});
