/**
 * A batch that stops moving is seen (docs/reliability.md § A stalled batch): with its connector
 * stopped, its messages wait, the batch-scheduler's gauges rise, the admin API and the CLI list it
 * with the reason, and all of it clears once the connector is started again. And a message whose
 * submit_sm went unanswered shows its unknown outcome and its charge, per message and in its
 * batch's counts (§ What an unknown outcome costs). Embedded mode, as `pnpm start` wires it.
 */
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';
import { runSmsgw } from '../support/cli';
import { metricValue } from '../support/scrape';

const admin = { auth: `Bearer ${ADMIN_TOKEN}` };
let sim: SmppSimulator;
let gw: RunningGateway;
let accounts = 0;

const call = (method: string, path: string, options: Parameters<typeof request>[3] = {}) =>
  request(gw.base, method, path, options);

async function account(balance: string): Promise<string> {
  const username = `stall${++accounts}`;
  const created = await call('POST', '/admin/v1/accounts', {
    ...admin,
    json: { username, password: 'stall-password', balance, rate: '1' },
  });
  expect(created.status).toBe(201);
  return basic(username, 'stall-password');
}
const balanceOf = async (auth: string) =>
  (await call('GET', '/secure/balance', { auth })).body.data.balance as string;
const batchStatus = async (auth: string, id: string) =>
  (await call('GET', `/secure/batches/${id}`, { auth })).body.data;

interface Listed {
  batchId: string;
  reason: string;
  waiting: number;
  submitting: number;
  total: number;
  expanded: number;
  stalledSeconds: number;
  detail: string;
}
const stalledList = async (after = 2): Promise<Listed[]> => {
  const reply = await call('GET', `/admin/v1/batches/stalled?after=${after}`, admin);
  expect(reply.status).toBe(200);
  return reply.body.data.batches as Listed[];
};

async function sendBatch(auth: string, recipients: string[]): Promise<string> {
  const reply = await call('POST', '/secure/sendbatch', {
    auth,
    json: { messages: [{ to: recipients, from: 'Acme', content: 'stall test' }] },
  });
  expect(reply.status).toBe(200);
  return reply.body.data.batchId as string;
}

beforeAll(async () => {
  sim = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    rejectDestinations: /^417999/,
    latencyMs: [1, 3],
  });
  const { port } = await sim.start();
  gw = await startEmbedded({
    // A short answer timeout, so an unanswered submit_sm ends soon as an unknown outcome.
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}?window=20&response_timeout_ms=1000`,
    BATCH_STALL_SECONDS: '2',
    MESSAGE_OVERDUE_SECONDS: '2',
    SWEEP_INTERVAL_MS: '500',
  });
}, 60_000);

// A case that fails while the connector is stopped must not leave it so for the cases after it.
afterEach(async () => {
  await call('POST', '/admin/v1/connectors/default/start', admin);
});

afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
});

describe('a stalled batch', () => {
  it('raises the gauges, is listed with its reason by the admin API and the CLI, and clears when it moves', async () => {
    const auth = await account('100');
    // Bound first: a stop read before the dispatcher's first bind left that bind to come after it,
    // and the batch went out.
    await waitFor(
      async () => (await call('GET', '/admin/v1/connectors/default', admin)).body.data.sessions > 0,
      30_000,
      'the connector to be bound',
      100,
    );
    expect((await call('POST', '/admin/v1/connectors/default/stop', admin)).status).toBe(200);
    // The dispatcher closes the connector's session soon after; from then on nothing is sent.
    await waitFor(
      async () => {
        const c = (await call('GET', '/admin/v1/connectors/default', admin)).body.data;
        return c.sessions === 0 && c.holders.every((h: { bound: number }) => h.bound === 0);
      },
      20_000,
      'the connector to be stopped',
    );
    const recipients = Array.from({ length: 12 }, (_, i) => `4179100${String(i).padStart(4, '0')}`);
    const batchId = await sendBatch(auth, recipients);

    await waitFor(
      async () => (await metricValue(gw.base, 'smsgw_batches_stalled')) >= 1,
      60_000,
      'the stalled-batches gauge to rise',
      // A scrape asks the database for several gauges: polled gently, as Prometheus does.
      250,
    );
    expect(
      await metricValue(gw.base, 'smsgw_batches_stalled', { reason: 'messages_waiting' }),
    ).toBe(1);
    await waitFor(
      async () => (await metricValue(gw.base, 'smsgw_messages_overdue', { state: 'queued' })) >= 12,
      60_000,
      'the overdue-messages gauge to count the waiting messages',
      // A scrape asks the database for several gauges: polled gently, as Prometheus does.
      250,
    );
    expect(sim.received.filter((r) => r.to.startsWith('4179100'))).toHaveLength(0);

    const listed = (await stalledList()).find((b) => b.batchId === batchId);
    expect(listed).toMatchObject({
      reason: 'messages_waiting',
      waiting: 12,
      submitting: 0,
      total: 12,
      expanded: 12,
      detail: expect.stringContaining('dispatcher'),
    });
    expect(listed!.stalledSeconds).toBeGreaterThanOrEqual(2);
    // A limit longer than it has waited leaves it out.
    expect((await stalledList(3600)).map((b) => b.batchId)).not.toContain(batchId);

    const printed = JSON.parse(await runSmsgw(gw.base, ['batches', 'stalled', '--after', '2'])) as {
      data: { batches: Listed[] };
    };
    expect(printed.data.batches.map((b) => [b.batchId, b.reason])).toContainEqual([
      batchId,
      'messages_waiting',
    ]);

    expect((await call('POST', '/admin/v1/connectors/default/start', admin)).status).toBe(200);
    await waitFor(
      async () => (await batchStatus(auth, batchId)).state === 'completed',
      30_000,
      'the batch to complete once its connector is started',
    );
    await waitFor(
      async () =>
        (await metricValue(gw.base, 'smsgw_batches_stalled')) === 0 &&
        (await metricValue(gw.base, 'smsgw_messages_overdue')) === 0,
      60_000,
      'the gauges to clear',
      250,
    );
    expect((await stalledList()).map((b) => b.batchId)).not.toContain(batchId);
    expect(sim.received.filter((r) => r.to.startsWith('4179100'))).toHaveLength(12);
    // Generous: the stall watch's rounds share the embedded database with everything else, and a
    // busy machine (another suite beside this one) slows them.
  }, 240_000);

  it('answers a 4xx to a bad limit and to a caller without the admin token', async () => {
    for (const [query, field] of [
      ['after=0', 'after'],
      ['after=abc', 'after'],
      ['limit=100000', 'limit'],
      ['other=1', 'other'],
    ]) {
      const reply = await call('GET', `/admin/v1/batches/stalled?${query}`, admin);
      expect(reply.status).toBe(400);
      expect(JSON.stringify(reply.body.detail)).toContain(field);
    }
    expect((await call('GET', '/admin/v1/batches/stalled')).status).toBe(401);
  });
});

describe('an unknown outcome', () => {
  const send = async (auth: string, to: string): Promise<string> => {
    const reply = await call('POST', '/secure/send', {
      auth,
      json: { to, from: 'Acme', content: 'unknown outcome test' },
    });
    expect(reply.status).toBe(200);
    // Jasmin's answer: `Success "<id>`, with no closing quote.
    return (reply.body.data as string).slice('Success "'.length);
  };
  const messageStatus = async (auth: string, id: string) =>
    (await call('GET', `/secure/messages/${id}`, { auth })).body.data;

  it('shows per message and in its batch, and is charged, where a refused message is refunded', async () => {
    const auth = await account('10');
    sim.setSilent(true);
    const single = await send(auth, '41792000001');
    const batchId = await sendBatch(auth, ['41792000002', '41792000003']);
    await waitFor(
      async () => (await batchStatus(auth, batchId)).state === 'completed',
      30_000,
      'the unanswered batch to end',
    );
    const counts = (await batchStatus(auth, batchId)).counts;
    expect(counts).toMatchObject({ total: 2, failed: 2, unknown: 2, queued: 0, sent: 0 });
    const unknown = await waitFor(
      async () => {
        const m = await messageStatus(auth, single);
        return m.state === 'failed' && m;
      },
      30_000,
      'the unanswered single message to end',
    );
    expect(unknown).toMatchObject({
      error: 'SUBMIT_OUTCOME_UNKNOWN',
      outcome: 'unknown',
      charged: true,
    });
    expect(sim.received.filter((r) => r.to.startsWith('4179200'))).toHaveLength(3);

    sim.setSilent(false);
    const refused = await send(auth, '41799900001');
    const known = await waitFor(
      async () => {
        const m = await messageStatus(auth, refused);
        return m.state === 'failed' && m;
      },
      30_000,
      'the refused message to fail',
    );
    expect(known).toMatchObject({ outcome: 'known', charged: false });
    // Charged: the three of unknown outcome; the refused one was given back.
    expect(await balanceOf(auth)).toBe('7');
  }, 90_000);

  it('reads pending before the end and known once delivered, charged', async () => {
    const auth = await account('10');
    const id = await send(auth, '41793000001');
    const first = await messageStatus(auth, id);
    expect(['pending', 'known']).toContain(first.outcome);
    expect(first.charged).toBe(true);
    const sent = await waitFor(
      async () => {
        const m = await messageStatus(auth, id);
        return m.state === 'submitted' || m.state === 'delivered' ? m : undefined;
      },
      30_000,
      'the message to reach the SMSC',
    );
    expect(sent.charged).toBe(true);
    expect(sent.outcome).toBe(sent.state === 'delivered' ? 'known' : 'pending');
  });
});
