import { randomUUID } from 'node:crypto';
import {
  DEFAULT_CONNECTOR,
  connectorQueue,
  QUEUES,
  TOPICS,
  type MessageSubmitGroupJob,
} from '@smsgw/contracts';
import { MemoryBus, createLogger, createRegistry, type Db } from '@smsgw/kit';
import { insertTestAccount, openMigratedPglite, waitFor } from '@smsgw/kit/testing';
import { SmppConnector, SmppSimulator, parseSmscUrl } from '@smsgw/smsc';
import { MessageClaims } from '../src/message-claims';
import { MessageDispatcher } from '../src/message-dispatcher';
import { RecoverySweeper } from '../src/recovery-sweeper';
import { createDispatcherMetrics } from '../src/metrics';

let db: Db;
let bus: MemoryBus;
let jobs: MessageSubmitGroupJob[];
let singles: string[];

const account = () => insertTestAccount(db);

async function messages(accountId: string, count: number, state = 'queued'): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  for (const id of ids) {
    await db.query(
      `INSERT INTO messages (id, account_id, state, to_addr, coding, segments, cost) VALUES ($1, $2, $3, '41790000001', 0, 2, 1)`,
      [id, accountId, state],
    );
  }
  return ids;
}

async function outboxRow(ids: string[], ageMs: number): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO job_outbox (message_ids, created_at) VALUES ($1::uuid[], now() - make_interval(secs => $2::float8 / 1000)) RETURNING id::text AS id`,
    [ids, ageMs],
  );
  return rows[0].id;
}

const outboxIds = async () =>
  (await db.query<{ id: string }>('SELECT id::text AS id FROM job_outbox ORDER BY id')).rows.map(
    (r) => r.id,
  );

function sweeper(republishQueuedAtStart = false) {
  const metrics = createDispatcherMetrics(createRegistry('test'), () => []);
  return new RecoverySweeper(db, bus, createLogger('test', 'silent'), metrics, {
    intervalMs: 60_000,
    acceptedGraceMs: 30_000,
    submitStaleMs: 60_000,
    queuedStaleMs: 300_000,
    republishQueuedAtStart,
  });
}

beforeEach(async () => {
  db = await openMigratedPglite();
  bus = new MemoryBus();
  jobs = [];
  singles = [];
  await bus.consume(
    {
      queue: connectorQueue(QUEUES.dispatcherSubmit, DEFAULT_CONNECTOR),
      topic: TOPICS.messageSubmit,
      key: DEFAULT_CONNECTOR,
    },
    (job) => void singles.push(job.messageId),
  );
  await bus.consume(
    {
      queue: connectorQueue(QUEUES.dispatcherSubmitGroup, DEFAULT_CONNECTOR),
      topic: TOPICS.messageSubmitGroup,
      key: DEFAULT_CONNECTOR,
    },
    (job) => void jobs.push(job),
  );
});
afterEach(async () => {
  await bus.close();
  await db.close();
});

const published = () => jobs.flatMap((j) => j.messages.map((m) => m.messageId)).sort();

describe('RecoverySweeper and the job outbox', () => {
  it('re-publishes the queued messages of an outbox row past its grace, per account, and deletes the row', async () => {
    const alice = await account();
    const bob = await account();
    const aliceIds = await messages(alice, 150);
    const bobIds = await messages(bob, 2);
    const [sent] = await messages(alice, 1, 'submitted');
    const stale = await outboxRow([...aliceIds, ...bobIds, sent], 31_000);
    const fresh = await outboxRow(await messages(alice, 3), 1_000);

    await sweeper().sweepOnce();
    await waitFor(() => jobs.length === 3);

    expect(published()).toEqual([...aliceIds, ...bobIds].sort());
    // 150 of one account go as two group jobs (at most SUBMIT_GROUP_MAX each), never mixing accounts.
    expect(jobs.map((j) => [j.accountId, j.messages.length]).sort()).toEqual(
      [
        [alice, 100],
        [alice, 50],
        [bob, 2],
      ].sort(),
    );
    expect(jobs.flatMap((j) => j.messages.map((m) => m.segments))).toEqual(Array(152).fill(2));
    expect(await outboxIds()).toEqual([fresh]);
    expect(stale).not.toBe(fresh);
  });

  it('finds nothing to do once the row is gone, so a second sweep publishes nothing more', async () => {
    const alice = await account();
    await outboxRow(await messages(alice, 4), 60_000);
    const s = sweeper();
    await s.sweepOnce();
    await waitFor(() => jobs.length === 1);
    await s.sweepOnce();
    // Whatever the second sweep published has been handed to the consumers.
    await waitFor(
      async () =>
        (await bus.queueDepth(connectorQueue(QUEUES.dispatcherSubmitGroup, DEFAULT_CONNECTOR))) ===
          0 &&
        (await bus.queueDepth(connectorQueue(QUEUES.dispatcherSubmit, DEFAULT_CONNECTOR))) === 0,
      5_000,
      'the submit queues drained',
    );
    expect(published()).toHaveLength(4);
    expect(await outboxIds()).toEqual([]);
  });

  it('in embedded mode, clears the outbox at start and publishes every queued message once', async () => {
    const alice = await account();
    const ids = await messages(alice, 5);
    await outboxRow(ids.slice(0, 2), 1_000);
    const s = sweeper(true);
    await s.start();
    await s.stop();
    await waitFor(() => singles.length === 5);

    expect(await outboxIds()).toEqual([]);
    expect(singles.sort()).toEqual([...ids].sort());
    expect(jobs).toEqual([]);
  });
});

describe('RecoverySweeper and the message clocks', () => {
  const clocks = async (id: string) =>
    (
      await db.query<{ updated_at: Date; swept_at: Date | null }>(
        'SELECT updated_at, swept_at FROM messages WHERE id = $1',
        [id],
      )
    ).rows[0];

  it('marks a re-published waiting message swept, leaves updated_at alone, and passes it over within its grace', async () => {
    const [id] = await messages(await account(), 1, 'accepted');
    await db.query(`UPDATE messages SET updated_at = now() - interval '31 seconds' WHERE id = $1`, [
      id,
    ]);
    const before = await clocks(id);
    const s = sweeper();

    await s.sweepOnce();
    await waitFor(() => singles.length === 1);
    const after = await clocks(id);
    expect(after.updated_at).toEqual(before.updated_at);
    expect(after.swept_at).not.toBeNull();

    await s.sweepOnce();
    expect(singles).toEqual([id]);
  });

  it('re-publishes a submitting message by when it was claimed, not by when it last changed', async () => {
    const alice = await account();
    const [stale, recent] = await messages(alice, 2, 'submitting');
    await db.query(
      `UPDATE messages SET submit_started_at = now() - interval '61 seconds' WHERE id = $1`,
      [stale],
    );
    await db.query(
      `UPDATE messages SET submit_started_at = now(), updated_at = now() - interval '61 seconds' WHERE id = $1`,
      [recent],
    );

    await sweeper().sweepOnce();
    await waitFor(() => singles.length === 1);
    expect(singles).toEqual([stale]);
  });
});

describe('RecoverySweeper and a message whose job is gone', () => {
  it('submits a queued message that has neither an outbox row nor a job, once it is past its limit', async () => {
    const alice = await account();
    // Charged and queued; its job was dead-lettered and its outbox row deleted long ago.
    const [lost, recent] = await messages(alice, 2);
    await db.query(
      `UPDATE messages SET content = 'hello', segments = 1, updated_at = now() - interval '301 seconds' WHERE id = $1`,
      [lost],
    );
    const sim = new SmppSimulator({ deliveryReceipts: false });
    const { port } = await sim.start();
    const connector = new SmppConnector(
      { ...parseSmscUrl(`smpp://sys:pw@127.0.0.1:${port}`), name: 'test' },
      createLogger('test', 'silent'),
    );
    await connector.start();
    try {
      await sweeper().sweepOnce();
      await waitFor(() => singles.length >= 1);
      // A message waiting less than the limit may still have its job in the broker: left alone.
      expect(singles).toEqual([lost]);
      expect(singles).not.toContain(recent);

      // The job goes to a dispatcher, as the bus would hand it over.
      const dispatcher = new MessageDispatcher(
        new MessageClaims(db, DEFAULT_CONNECTOR),
        connector,
        bus,
        createLogger('test', 'silent'),
        createDispatcherMetrics(createRegistry('test2'), () => []),
        { maxAttempts: 3, submitStaleMs: 60_000 },
      );
      await dispatcher.handle(
        { messageId: lost, accountId: alice, segments: 1 },
        { attempt: 1, redelivered: false },
      );
      const { rows } = await db.query<{ state: string }>(
        'SELECT state FROM messages WHERE id = $1',
        [lost],
      );
      expect(rows[0].state).toBe('submitted');
      expect(sim.received).toHaveLength(1);
    } finally {
      await connector.stop();
      await sim.stop();
    }
  }, 60_000);
});
