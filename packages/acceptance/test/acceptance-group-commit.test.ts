import { randomUUID } from 'node:crypto';
import { HttpError, PgDb, PgliteDb, createLogger, migrate, type Db } from '@smsgw/kit';
import { createTestDatabase, findTestDatabaseServer } from '@smsgw/kit/testing';
import { MessageStore, type AcceptOutcome, type NewMessage } from '../src/message-store';
import { AcceptanceGroupCommit } from '../src/send-pipeline/acceptance-group-commit';
import { JobOutboxRows } from '../src/send-pipeline/job-outbox-rows';

const logger = createLogger('test', 'silent');
const server = findTestDatabaseServer();

interface Harness {
  open(): Promise<Db>;
  cleanup(): Promise<void>;
}

const pglite: Harness = { open: () => PgliteDb.open(), cleanup: () => Promise.resolve() };

function postgres(url: string): Harness {
  let database: { url: string; drop(): Promise<void> } | undefined;
  return {
    async open() {
      database ??= await createTestDatabase(url);
      return new PgDb({ connectionString: database.url, max: 4 });
    },
    cleanup: async () => database?.drop(),
  };
}

// Embedded mode runs the same statement on PGlite; distributed mode on Postgres.
const databases: [string, Harness][] = [
  ['PGlite', pglite],
  ...(server ? [['Postgres', postgres(server.url)] as [string, Harness]] : []),
];

describe.each(databases)('AcceptanceGroupCommit on %s', (name, harness) => {
  let db: Db;
  let store: MessageStore;
  let statements: number[];

  beforeAll(async () => {
    db = await harness.open();
    await migrate(db);
  });
  afterAll(async () => {
    await db.close();
    await harness.cleanup();
  });
  beforeEach(() => {
    store = new MessageStore(db);
    statements = [];
    const acceptGroup = store.acceptGroup.bind(store);
    jest.spyOn(store, 'acceptGroup').mockImplementation((messages, publishedOutboxIds) => {
      statements.push(messages.length);
      return acceptGroup(messages, publishedOutboxIds);
    });
  });

  async function account(values: {
    balance: string | null;
    smsCount: number | null;
    rate: string;
    defaultFrom?: string;
  }): Promise<string> {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO accounts (username, password_hash, balance, sms_count, rate, default_from) VALUES ($1, 'x', $2, $3, $4, $5) RETURNING id`,
      [
        `acct-${randomUUID()}`,
        values.balance,
        values.smsCount,
        values.rate,
        values.defaultFrom ?? null,
      ],
    );
    return rows[0].id;
  }

  const message = (
    accountId: string,
    segments = 1,
    extra: Partial<NewMessage> = {},
  ): NewMessage => ({
    id: randomUUID(),
    accountId,
    batchId: null,
    entry: 'rest',
    to: '41790000001',
    from: null,
    content: 'x'.repeat(segments > 1 ? 153 * segments : 5),
    hexContent: null,
    coding: 0,
    segments,
    params: { tags: ['t'] },
    report: null,
    routing: { route: null, connectors: ['default'], price: null },
    ...extra,
  });

  /** Calls made in one tick join one group: the acceptances sends them as one statement. */
  const acceptTogether = (acceptances: AcceptanceGroupCommit, messages: NewMessage[]) =>
    Promise.allSettled(messages.map((m) => acceptances.accept(m)));
  /** The outbox row is looked at by the tests of it, not compared with the rest of an outcome. */
  const outcomes = (settled: PromiseSettledResult<AcceptOutcome>[]) =>
    settled.map((s) => {
      if (s.status === 'rejected') return s.reason as unknown;
      if (!s.value.ok) return s.value;
      const { outboxId: _outbox, ...rest } = s.value;
      return rest;
    });
  const outboxIds = (settled: PromiseSettledResult<AcceptOutcome>[]) =>
    settled.map((s) => (s.status === 'fulfilled' && s.value.ok ? s.value.outboxId : undefined));
  async function outboxRows(): Promise<Map<string, string[]>> {
    const { rows } = await db.query<{ id: string; message_ids: string[] }>(
      'SELECT id::text AS id, message_ids FROM job_outbox',
    );
    return new Map(rows.map((r) => [r.id, r.message_ids]));
  }

  async function accountRow(id: string) {
    const { rows } = await db.query<{ balance: string | null; sms_count: string | null }>(
      'SELECT balance::text, sms_count::text FROM accounts WHERE id = $1',
      [id],
    );
    return rows[0];
  }
  async function ledger(accountId: string) {
    const { rows } = await db.query<{
      message_id: string;
      amount: string;
      sms_count: string;
      reason: string;
    }>(
      'SELECT message_id, amount::text, sms_count::text, reason FROM credit_ledger WHERE account_id = $1 ORDER BY id',
      [accountId],
    );
    return rows;
  }
  async function stored(ids: string[]) {
    const { rows } = await db.query<{
      id: string;
      state: string;
      cost: string;
      from_addr: string | null;
      params: unknown;
    }>('SELECT id, state, cost::text, from_addr, params FROM messages WHERE id = ANY($1::uuid[])', [
      ids,
    ]);
    return new Map(rows.map((r) => [r.id, r]));
  }

  it('accepts a group mixing accounts in one statement, charging each account its own messages', async () => {
    const alice = await account({
      balance: '1.000000',
      smsCount: null,
      rate: '0.100000',
      defaultFrom: 'Alice',
    });
    const bob = await account({ balance: null, smsCount: 10, rate: '0.050000' });
    const carol = await account({ balance: null, smsCount: null, rate: '0.000000' });
    const acceptances = new AcceptanceGroupCommit(store, logger);
    const group = [
      message(alice, 2),
      message(bob, 3),
      message(alice, 1, { from: 'Other' }),
      message(carol, 4),
      message(bob, 1),
    ];

    const results = outcomes(await acceptTogether(acceptances, group));

    expect(statements).toEqual([5]);
    expect(results).toEqual([
      { ok: true, cost: '0.2', from: 'Alice' },
      { ok: true, cost: '0.15', from: null },
      { ok: true, cost: '0.1', from: 'Other' },
      { ok: true, cost: '0', from: null },
      { ok: true, cost: '0.05', from: null },
    ]);
    expect(await accountRow(alice)).toEqual({ balance: '0.700000', sms_count: null });
    expect(await accountRow(bob)).toEqual({ balance: null, sms_count: '6' });
    expect(await accountRow(carol)).toEqual({ balance: null, sms_count: null });
    expect(await ledger(alice)).toEqual([
      { message_id: group[0].id, amount: '-0.200000', sms_count: '-2', reason: 'debit' },
      { message_id: group[2].id, amount: '-0.100000', sms_count: '-1', reason: 'debit' },
    ]);
    expect((await ledger(bob)).map((l) => [l.message_id, l.amount, l.sms_count])).toEqual([
      [group[1].id, '-0.150000', '-3'],
      [group[4].id, '-0.050000', '-1'],
    ]);
    expect(await ledger(carol)).toHaveLength(1);
    const rows = await stored(group.map((m) => m.id));
    expect(rows.size).toBe(5);
    expect(rows.get(group[0].id)).toMatchObject({
      state: 'queued',
      cost: '0.200000',
      from_addr: 'Alice',
      params: { tags: ['t'] },
    });
    expect(rows.get(group[2].id)).toMatchObject({ from_addr: 'Other' });
  });

  it('charges in arrival order when credit runs out mid-group, refusing only what no longer fits', async () => {
    const alice = await account({ balance: '0.350000', smsCount: null, rate: '0.100000' });
    const acceptances = new AcceptanceGroupCommit(store, logger);
    // 0.35: 1 part (0.25 left), 3 parts refused, 2 parts (0.05 left), then 1 part no longer fits.
    const group = [
      message(alice, 1),
      message(alice, 3),
      message(alice, 2),
      message(alice, 1),
      message(alice, 1),
    ];

    const results = outcomes(await acceptTogether(acceptances, group));

    expect(statements).toEqual([5]);
    expect(results).toEqual([
      { ok: true, cost: '0.1', from: null },
      { ok: false, reason: 'INSUFFICIENT_CREDIT' },
      { ok: true, cost: '0.2', from: null },
      { ok: false, reason: 'INSUFFICIENT_CREDIT' },
      { ok: false, reason: 'INSUFFICIENT_CREDIT' },
    ]);
    expect(await accountRow(alice)).toEqual({ balance: '0.050000', sms_count: null });
    expect(await ledger(alice)).toEqual([
      { message_id: group[0].id, amount: '-0.100000', sms_count: '-1', reason: 'debit' },
      { message_id: group[2].id, amount: '-0.200000', sms_count: '-2', reason: 'debit' },
    ]);
    expect([...(await stored(group.map((m) => m.id))).keys()].sort()).toEqual(
      [group[0].id, group[2].id].sort(),
    );
  });

  it('spends the sms_count quota the same way, and names what ran out', async () => {
    const quota = await account({ balance: null, smsCount: 3, rate: '0.010000' });
    const both = await account({ balance: '0.010000', smsCount: 1, rate: '0.010000' });
    const acceptances = new AcceptanceGroupCommit(store, logger);
    const group = [
      message(quota, 2),
      message(both, 1),
      message(quota, 2),
      message(both, 1),
      message(quota, 1),
    ];

    const results = outcomes(await acceptTogether(acceptances, group));

    expect(results).toEqual([
      { ok: true, cost: '0.02', from: null },
      { ok: true, cost: '0.01', from: null },
      { ok: false, reason: 'QUOTA_EXCEEDED' },
      // Short of both credit and quota: credit is named, as for a single message.
      { ok: false, reason: 'INSUFFICIENT_CREDIT' },
      { ok: true, cost: '0.01', from: null },
    ]);
    expect(await accountRow(quota)).toEqual({ balance: null, sms_count: '0' });
    expect(await accountRow(both)).toEqual({ balance: '0.000000', sms_count: '0' });
    expect((await ledger(quota)).map((l) => l.sms_count)).toEqual(['-2', '-1']);
  });

  it('refuses a message of an account that does not exist, as before', async () => {
    const alice = await account({ balance: null, smsCount: null, rate: '1.000000' });
    const acceptances = new AcceptanceGroupCommit(store, logger);
    const results = outcomes(
      await acceptTogether(acceptances, [message(randomUUID()), message(alice)]),
    );
    expect(results).toEqual([
      { ok: false, reason: 'INSUFFICIENT_CREDIT' },
      { ok: true, cost: '1', from: null },
    ]);
  });

  it('fails only the message the database refuses, with a clean 503, and charges the rest of its group', async () => {
    const alice = await account({ balance: '1.000000', smsCount: null, rate: '0.100000' });
    const acceptances = new AcceptanceGroupCommit(store, logger);
    // Postgres text cannot hold NUL: the group's statement fails as a whole.
    const group = [message(alice), message(alice, 1, { content: 'bad\u0000' }), message(alice)];

    const settled = await acceptTogether(acceptances, group);

    expect(statements).toEqual([3, 1, 1, 1]);
    expect([outcomes(settled)[0], outcomes(settled)[2]]).toEqual([
      { ok: true, cost: '0.1', from: null },
      { ok: true, cost: '0.1', from: null },
    ]);
    expect(settled[1].status).toBe('rejected');
    const error = (settled[1] as PromiseRejectedResult).reason as HttpError;
    expect(error).toBeInstanceOf(HttpError);
    expect(error.status).toBe(503);
    expect(error.body()).toEqual({
      detail: {
        code: 'SERVICE_UNAVAILABLE',
        message: 'The message could not be recorded; try again',
      },
    });
    expect(await accountRow(alice)).toEqual({ balance: '0.800000', sms_count: null });
    expect((await ledger(alice)).map((l) => l.message_id).sort()).toEqual(
      [group[0].id, group[2].id].sort(),
    );
    expect((await stored(group.map((m) => m.id))).has(group[1].id)).toBe(false);
  });

  it('fails the callers of a failed statement only, and takes the next group as usual', async () => {
    const alice = await account({ balance: '1.000000', smsCount: null, rate: '0.100000' });
    const broken = new MessageStore({
      query: () => Promise.reject(new Error('connection terminated unexpectedly')),
    } as unknown as Db);
    const failing = new AcceptanceGroupCommit(broken, logger);
    const settled = await acceptTogether(failing, [message(alice), message(alice)]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    for (const s of settled)
      expect((s as PromiseRejectedResult).reason).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        status: 503,
      });

    const acceptances = new AcceptanceGroupCommit(store, logger);
    const first = acceptTogether(acceptances, [message(alice, 1, { content: 'bad\u0000' })]);
    const second = acceptTogether(acceptances, [message(alice), message(alice)]);
    expect((await first)[0].status).toBe('rejected');
    expect(outcomes(await second)).toEqual([
      { ok: true, cost: '0.1', from: null },
      { ok: true, cost: '0.1', from: null },
    ]);
    expect(await accountRow(alice)).toEqual({ balance: '0.800000', sms_count: null });
  });

  it('writes the accepted messages queued with one outbox row naming them, deleted once every job is confirmed', async () => {
    const alice = await account({ balance: '0.200000', smsCount: null, rate: '0.100000' });
    const outbox = new JobOutboxRows(store, logger);
    const acceptances = new AcceptanceGroupCommit(store, logger, { outbox });
    const group = [message(alice), message(alice), message(alice)];
    const settled = await acceptTogether(acceptances, group);

    // The third did not fit: it is neither stored nor named by the row.
    const [first, second, third] = outboxIds(settled);
    expect(first).toBeDefined();
    expect(second).toBe(first);
    expect(third).toBeUndefined();
    expect((await outboxRows()).get(first!)?.sort()).toEqual([group[0].id, group[1].id].sort());
    const rows = await stored(group.map((m) => m.id));
    expect([
      rows.get(group[0].id)?.state,
      rows.get(group[1].id)?.state,
      rows.has(group[2].id),
    ]).toEqual(['queued', 'queued', false]);

    outbox.jobConfirmed(first!);
    await outbox.flushDeletions();
    expect((await outboxRows()).has(first!)).toBe(true); // one job of it is not confirmed yet
    outbox.jobConfirmed(first!);
    await outbox.flushDeletions();
    expect((await outboxRows()).has(first!)).toBe(false);
  });

  it('keeps the outbox row of a job that failed to publish, for the recovery sweep', async () => {
    const alice = await account({ balance: null, smsCount: null, rate: '0.100000' });
    const outbox = new JobOutboxRows(store, logger);
    const acceptances = new AcceptanceGroupCommit(store, logger, { outbox });
    const [id] = outboxIds(await acceptTogether(acceptances, [message(alice), message(alice)]));

    outbox.jobFailed(id!);
    outbox.jobConfirmed(id!);
    await outbox.flushDeletions();
    expect((await outboxRows()).has(id!)).toBe(true);
  });

  it('lets outbox deletions ride along with the next acceptance statement, and keeps them when it fails', async () => {
    const alice = await account({ balance: '1.000000', smsCount: null, rate: '0.100000' });
    const deleteOutboxRows = jest.spyOn(store, 'deleteOutboxRows');
    const outbox = new JobOutboxRows(store, logger, 60_000);
    const acceptances = new AcceptanceGroupCommit(store, logger, { outbox });
    const first = outboxIds(await acceptTogether(acceptances, [message(alice), message(alice)]));
    for (const id of first) outbox.jobConfirmed(id!);

    // The statement fails as a whole (NUL): the deletion is given back, then rides the next group.
    await acceptTogether(acceptances, [message(alice, 1, { content: 'bad\u0000' })]);
    expect((await outboxRows()).has(first[0]!)).toBe(true);
    const [second] = outboxIds(await acceptTogether(acceptances, [message(alice)]));

    const rows = await outboxRows();
    expect([rows.has(first[0]!), rows.has(second!)]).toEqual([false, true]);
    expect(statements).toEqual([2, 1, 1]);
    await outbox.flushDeletions();
    expect(deleteOutboxRows).not.toHaveBeenCalled();
    expect(await accountRow(alice)).toEqual({ balance: '0.700000', sms_count: null });
  });

  if (name === 'Postgres') {
    it('keeps money exact when two gateways accept for the same accounts at once', async () => {
      const alice = await account({ balance: '5.000000', smsCount: null, rate: '0.100000' });
      const bob = await account({ balance: null, smsCount: 40, rate: '0.100000' });
      const other = await harness.open();
      try {
        const gateways = [
          new AcceptanceGroupCommit(store, logger, { maxGroupSize: 7 }),
          new AcceptanceGroupCommit(new MessageStore(other), logger, { maxGroupSize: 7 }),
        ];
        const messages = Array.from({ length: 120 }, (_, i) =>
          message(i % 2 === 0 ? alice : bob, 1 + (i % 3)),
        );
        const results = outcomes(
          await Promise.allSettled(messages.map((m, i) => gateways[i % 2].accept(m))),
        );

        const charged = (accountId: string) =>
          messages
            .filter((m, i) => m.accountId === accountId && (results[i] as AcceptOutcome).ok)
            .reduce((sum, m) => sum + m.segments, 0);
        expect(results.every((r) => 'ok' in (r as object))).toBe(true);
        // Alice can pay 50 parts, Bob has 40; they ask for 120 each.
        expect(charged(alice)).toBeLessThanOrEqual(50);
        expect(charged(bob)).toBeLessThanOrEqual(40);
        expect(await accountRow(alice)).toEqual({
          balance: (5 - charged(alice) / 10).toFixed(6),
          sms_count: null,
        });
        expect(await accountRow(bob)).toEqual({
          balance: null,
          sms_count: String(40 - charged(bob)),
        });
        const ledgerSum = (await ledger(alice)).reduce((sum, l) => sum - Number(l.sms_count), 0);
        expect(ledgerSum).toBe(charged(alice));
      } finally {
        await other.close();
      }
    });
  }
});
