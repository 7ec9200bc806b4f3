/**
 * The stall watch against the batches' and messages' own rows (PGlite, and Postgres when there): a
 * batch counts as stalled only once it has not moved for the limit, with the reason its messages
 * give, and stops counting as soon as one of its messages leaves the unsent states.
 */
import { randomUUID } from 'node:crypto';
import { createLogger, type Db } from '@smsgw/kit';
import { insertTestAccount, migratedDatabases, waitFor } from '@smsgw/kit/testing';
import { acceptBatch as storeAcceptBatch, stalledBatches } from '@smsgw/store';
import { Registry } from 'prom-client';
import { BatchExpander } from '../src/batch-expander';
import { createSchedulerMetrics, type SchedulerMetrics } from '../src/metrics';
import { StallWatch } from '../src/stall-watch';

let db: Db;
let drop: () => Promise<void>;
let metrics: SchedulerMetrics;
let watch: StallWatch;
let registry: Registry;

async function acceptBatch(accountId: string, recipients: number): Promise<string> {
  const id = randomUUID();
  const cost = await storeAcceptBatch(db, {
    id,
    accountId,
    segments: recipients,
    recipients,
    callbackUrl: null,
    errbackUrl: null,
    scheduledAt: null,
    optedOut: 0,
    entries: [
      {
        seq: 0,
        from_addr: null,
        content: 'stall',
        hex_content: null,
        coding: 0,
        segments: 1,
        params: {},
        report: null,
        recipients: Array.from(
          { length: recipients },
          (_, i) => `4179${String(i).padStart(7, '0')}`,
        ),
        route: null,
        connectors: [],
        price: null,
        price_version: null,
      },
    ],
  });
  expect(cost).toBeDefined();
  return id;
}

/** The gauge's value per reason after a round. */
async function stalledGauge(): Promise<Record<string, number>> {
  const metric = await registry.getSingleMetric('smsgw_batches_stalled')!.get();
  return Object.fromEntries(metric.values.map((v) => [String(v.labels['reason']), v.value]));
}
async function overdueGauge(): Promise<Record<string, number>> {
  const metric = await registry.getSingleMetric('smsgw_messages_overdue')!.get();
  return Object.fromEntries(metric.values.map((v) => [String(v.labels['state']), v.value]));
}
const reasonOf = async (batchId: string) =>
  (await stalledBatches(db, 1, 100)).find((b) => b.id === batchId)?.reason;

describe.each(migratedDatabases())('StallWatch on %s', (_engine, open) => {
  beforeAll(async () => {
    ({ db, drop } = await open());
    registry = new Registry();
    metrics = createSchedulerMetrics(registry);
    watch = new StallWatch(db, createLogger('test', 'silent'), metrics, {
      intervalMs: 60_000,
      batchSeconds: 1,
      waitingSeconds: 1,
      submittingSeconds: 1,
    });
  });
  afterAll(() => drop());

  it('follows one batch through each reason, and clears it when a message leaves the unsent states', async () => {
    const accountId = await insertTestAccount(db);
    const batchId = await acceptBatch(accountId, 4);

    // Accepted, never expanded (no scheduler took it): stalled once it has been due for the limit.
    await watch.round();
    expect((await stalledGauge())['not_expanding']).toBe(0);
    await waitFor(async () => (await reasonOf(batchId)) === 'not_expanding', 5000, 'not_expanding');
    await watch.round();
    expect(await stalledGauge()).toMatchObject({ not_expanding: 1, messages_waiting: 0 });

    // Expanded: it moved, so it is not stalled, until its queued messages have waited the limit.
    const expanded = await new BatchExpander(db, {
      chunkSize: 500,
      maxUnsentPerBatch: 5000,
    }).expandChunk();
    expect(expanded?.messages).toHaveLength(4);
    await watch.round();
    expect(await reasonOf(batchId)).toBeUndefined();
    expect((await stalledGauge())['not_expanding']).toBe(0);
    await waitFor(
      async () => (await reasonOf(batchId)) === 'messages_waiting',
      5000,
      'messages_waiting',
    );
    await watch.round();
    expect(await stalledGauge()).toMatchObject({ messages_waiting: 1 });
    expect((await overdueGauge())['queued']).toBe(4);

    // Claimed by a dispatcher whose SMSC never answers: still no message left the unsent states.
    await db.query(
      `UPDATE messages SET state = 'submitting', submit_started_at = now(), updated_at = now() WHERE batch_id = $1`,
      [batchId],
    );
    await watch.round();
    expect(await reasonOf(batchId)).toBe('submits_unanswered');
    expect(await stalledGauge()).toMatchObject({ submits_unanswered: 1, messages_waiting: 0 });
    await waitFor(
      async () => {
        await watch.round();
        return (await overdueGauge())['submitting'] === 4;
      },
      5000,
      'the submits to be overdue',
    );

    // One answer recorded: the batch moved, and the next round says so.
    await db.query(
      `UPDATE messages SET state = 'submitted', updated_at = now()
        WHERE id = (SELECT id FROM messages WHERE batch_id = $1 ORDER BY id LIMIT 1)`,
      [batchId],
    );
    await watch.round();
    expect(await reasonOf(batchId)).toBeUndefined();
    expect(Object.values(await stalledGauge()).every((n) => n === 0)).toBe(true);
  });

  it('passes over the batches of a disabled account, which are held on purpose', async () => {
    const accountId = await insertTestAccount(db);
    const batchId = await acceptBatch(accountId, 2);
    await waitFor(async () => (await reasonOf(batchId)) === 'not_expanding', 5000, 'stalled');
    await db.query('UPDATE accounts SET disabled_at = now() WHERE id = $1', [accountId]);
    expect(await reasonOf(batchId)).toBeUndefined();
  });
});
