import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';
import { CallbackReceiver } from '../support/receiver';
import { batchCallbacksSettled } from '../support/scrape';

const admin = { auth: `Bearer ${ADMIN_TOKEN}` };
let sim: SmppSimulator;
let gw: RunningGateway;
let receiver: CallbackReceiver;
let accounts = 0;

const call = (method: string, path: string, options: Parameters<typeof request>[3] = {}) =>
  request(gw.base, method, path, options);

/** A fresh account per test, so balances are the test's own. */
async function account(balance = '100'): Promise<string> {
  const username = `batch${++accounts}`;
  const created = await call('POST', '/admin/v1/accounts', {
    ...admin,
    json: { username, password: 'batch-password', balance, rate: '1' },
  });
  expect(created.status).toBe(201);
  return basic(username, 'batch-password');
}
const balanceOf = async (auth: string) =>
  (await call('GET', '/secure/balance', { auth })).body.data.balance as string;
const batchStatus = async (auth: string, id: string) =>
  (await call('GET', `/secure/batches/${id}`, { auth })).body.data;
const sentTo = (prefix: string) => sim.received.filter((r) => r.to.startsWith(prefix));

beforeAll(async () => {
  sim = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    rejectDestinations: /^417999/,
    latencyMs: [1, 3],
  });
  const { port } = await sim.start();
  receiver = new CallbackReceiver();
  await receiver.start();
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}?window=50`,
    CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
    CALLBACK_RETRY_BASE_MS: '100',
    CALLBACK_MAX_ATTEMPTS: '3',
    SWEEP_INTERVAL_MS: '500',
  });
});

afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
  await receiver?.stop();
});

describe('POST /secure/sendbatch', () => {
  it('sends every recipient with globals applied, and calls back once per message', async () => {
    const auth = await account();
    const reply = await call('POST', '/secure/sendbatch', {
      auth,
      json: {
        globals: { from: 'Acme', 'dlr-level': 1 },
        messages: [
          { to: '41790001001', content: 'one' },
          { to: ['41790001002', '41790001003', '+41790001004'], content: 'two' },
          { to: '41790001005', from: 'Other', content: 'three' },
        ],
        batch_config: {
          callback_url: `${receiver.base}/ok?client=7`,
          errback_url: `${receiver.base}/errors`,
        },
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      data: { batchId: expect.stringMatching(/^[0-9a-f-]{36}$/), messageCount: 5 },
    });
    const batchId = reply.body.data.batchId;

    await waitFor(() => (sentTo('4179000100').length === 5 ? true : undefined));
    const byTo = Object.fromEntries(
      sim
        .messages()
        .filter((m) => m.to.startsWith('4179000100'))
        .map((m) => [m.to, [m.from, m.text]]),
    );
    expect(byTo).toEqual({
      '41790001001': ['Acme', 'one'],
      '41790001002': ['Acme', 'two'],
      '41790001003': ['Acme', 'two'],
      '41790001004': ['Acme', 'two'],
      '41790001005': ['Other', 'three'],
    });
    expect(await balanceOf(auth)).toBe('95');

    const calls = await waitFor(() => {
      const mine = receiver.on('/ok').filter((c) => c.query['batchId'] === batchId);
      return mine.length >= 5 ? mine : undefined;
    });
    await batchCallbacksSettled(gw.base);
    expect(receiver.on('/ok').filter((c) => c.query['batchId'] === batchId)).toHaveLength(5);
    for (const c of calls) {
      expect(c.method).toBe('GET');
      expect(c.query).toEqual({
        client: '7',
        batchId,
        to: expect.stringMatching(/^4179000100[1-5]$/),
        status: '1',
        statusText: expect.stringMatching(/^Success "[0-9a-f-]{36}"$/),
      });
    }
    expect(new Set(calls.map((c) => c.query['to'])).size).toBe(5);
    expect(receiver.on('/errors').filter((c) => c.query['batchId'] === batchId)).toEqual([]);

    const status = await waitFor(async () => {
      const s = await batchStatus(auth, batchId);
      return s.state === 'completed' ? s : undefined;
    });
    expect(status.counts).toEqual({
      total: 5,
      queued: 0,
      sent: 5,
      delivered: 0,
      failed: 0,
      unknown: 0,
      cancelled: 0,
      optedOut: 0,
    });
  });

  it('calls the errback for a destination the SMSC rejects, and refunds it', async () => {
    const auth = await account('10');
    const reply = await call('POST', '/secure/sendbatch', {
      auth,
      json: {
        messages: [{ to: ['41790002001', '41799900001'], content: 'maybe' }],
        batch_config: {
          callback_url: `${receiver.base}/ok`,
          errback_url: `${receiver.base}/errors`,
        },
      },
    });
    const batchId = reply.body.data.batchId;
    const errback = await waitFor(() =>
      receiver.on('/errors').find((c) => c.query['batchId'] === batchId),
    );
    expect(errback.query).toMatchObject({
      to: '41799900001',
      status: '0',
      statusText: expect.stringMatching(/ESME_RINVDSTADR/),
    });
    await waitFor(() =>
      receiver.on('/ok').some((c) => c.query['batchId'] === batchId) ? true : undefined,
    );
    expect(await waitFor(async () => ((await balanceOf(auth)) === '9' ? '9' : undefined))).toBe(
      '9',
    );
  });

  it('rejects an invalid batch whole, listing every index and field, and charges nothing', async () => {
    const auth = await account('10');
    const reply = await call('POST', '/secure/sendbatch', {
      auth,
      json: {
        globals: { from: 'Acme' },
        messages: [
          { to: '41790003001', content: 'fine' },
          { to: 'not-a-number', content: 'bad to' },
          { to: '41790003003' },
          { to: ['41790003004', 'x'], content: 'one bad in the list', colour: 'red' },
        ],
      },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.detail.code).toBe('INVALID_PARAMETER');
    const faults = reply.body.detail.errors.map(
      (e: { index?: number; field: string }) => `${e.index}:${e.field}`,
    );
    expect(faults).toEqual(expect.arrayContaining(['1:to', '2:content', '3:to.1', '3:colour']));
    expect(faults).not.toContain('0:to');
    expect(await balanceOf(auth)).toBe('10');
    expect(sentTo('4179000300')).toEqual([]);
  });

  it.each([
    [{ messages: [] }, 'messages'],
    [
      {
        messages: [{ to: '41790000001', content: 'x' }],
        batch_config: { schedule_at: '2001-01-01 00:00:00' },
      },
      'batch_config.schedule_at',
    ],
    [
      {
        messages: [{ to: '41790000001', content: 'x' }],
        batch_config: { schedule_at: `${400 * 86400}s` },
      },
      'batch_config.schedule_at',
    ],
    [
      {
        messages: [{ to: '41790000001', content: 'x' }],
        batch_config: { schedule_at: 'tomorrow' },
      },
      'batch_config.schedule_at',
    ],
    [
      {
        messages: [{ to: '41790000001', content: 'x' }],
        batch_config: { callback_url: 'ftp://x' },
      },
      'batch_config.callback_url',
    ],
    [
      { messages: [{ to: '41790000001', content: 'x' }], globals: { priority: 9 } },
      'globals.priority',
    ],
    [{ messages: [{ to: '41790000001', content: 'x' }], extra: true }, 'extra'],
  ])('400 for %j', async (body, field) => {
    const auth = await account('10');
    const reply = await call('POST', '/secure/sendbatch', { auth, json: body });
    expect(reply.status).toBe(400);
    const fields = [
      reply.body.detail.field,
      ...(reply.body.detail.errors ?? []).map((e: { field: string }) => e.field),
    ];
    expect(fields).toContain(field);
    expect(await balanceOf(auth)).toBe('10');
  });

  it('402 when the whole batch cannot be paid, and nothing is sent', async () => {
    const auth = await account('2');
    const reply = await call('POST', '/secure/sendbatch', {
      auth,
      json: { messages: [{ to: ['41790004001', '41790004002', '41790004003'], content: 'x' }] },
    });
    expect(reply.status).toBe(402);
    expect(reply.body.detail.code).toBe('INSUFFICIENT_CREDIT');
    expect(await balanceOf(auth)).toBe('2');
  });

  it('holds a scheduled batch until its time', async () => {
    const auth = await account();
    const acceptedAt = Date.now();
    const reply = await call('POST', '/secure/sendbatch', {
      auth,
      json: {
        messages: [{ to: '41790005001', content: 'later' }],
        batch_config: { schedule_at: '2s' },
      },
    });
    expect((await batchStatus(auth, reply.body.data.batchId)).state).toBe('scheduled');
    await waitFor(() => (sentTo('41790005001').length === 1 ? true : undefined), 10_000);
    expect(sentTo('41790005001')[0].receivedAt.getTime() - acceptedAt).toBeGreaterThanOrEqual(2000);
  });

  it('retries a failing receiver with backoff, and gives up on one that never answers', async () => {
    const auth = await account();
    const flaky = await call('POST', '/secure/sendbatch', {
      auth,
      json: {
        messages: [{ to: '41790006001', content: 'x' }],
        batch_config: { callback_url: `${receiver.base}/flaky` },
      },
    });
    await waitFor(() =>
      receiver.on('/flaky').filter((c) => c.query['batchId'] === flaky.body.data.batchId).length ===
      3
        ? true
        : undefined,
    );
    const down = await call('POST', '/secure/sendbatch', {
      auth,
      json: {
        messages: [{ to: '41790006002', content: 'x' }],
        batch_config: { callback_url: `${receiver.base}/down` },
      },
    });
    const downCalls = () =>
      receiver.on('/down').filter((c) => c.query['batchId'] === down.body.data.batchId);
    await waitFor(() => (downCalls().length === 3 ? true : undefined));
    const messageId = downCalls()[0].query['statusText'].slice('Success "'.length, -1);
    const message = await waitFor(async () => {
      const m = (await call('GET', `/secure/messages/${messageId}`, { auth })).body.data;
      return m.callbackError ? m : undefined;
    });
    expect(message.callbackError).toMatch(/callback .* given up after 3 attempts: HTTP status 500/);
    await batchCallbacksSettled(gw.base);
    expect(downCalls()).toHaveLength(3);
    expect(
      receiver.on('/flaky').filter((c) => c.query['batchId'] === flaky.body.data.batchId),
    ).toHaveLength(3);
  });
});

describe('DELETE /secure/batches/{id}', () => {
  it('cancels a scheduled batch and refunds all of it', async () => {
    const auth = await account('10');
    const reply = await call('POST', '/secure/sendbatch', {
      auth,
      json: {
        messages: [{ to: ['41790008001', '41790008002'], content: 'never' }],
        batch_config: { schedule_at: '60s' },
      },
    });
    expect(await balanceOf(auth)).toBe('8');
    const cancelled = await call('DELETE', `/secure/batches/${reply.body.data.batchId}`, { auth });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({
      state: 'cancelled',
      refunded: '2',
      counts: { total: 2, cancelled: 2, queued: 0, sent: 0 },
    });
    expect(await balanceOf(auth)).toBe('10');
    expect(
      (await call('DELETE', `/secure/batches/${reply.body.data.batchId}`, { auth })).status,
    ).toBe(409);
    expect(
      (
        await call('DELETE', `/secure/batches/${reply.body.data.batchId}`, {
          auth: await account(),
        })
      ).status,
    ).toBe(404);
  });

  it('stops a running batch and refunds exactly the unsent part', async () => {
    const auth = await account('5000');
    const recipients = Array.from(
      { length: 3000 },
      (_, i) => `4179001${String(i).padStart(4, '0')}`,
    );
    const reply = await call('POST', '/secure/sendbatch', {
      auth,
      json: { messages: [{ to: recipients, content: 'bulk' }] },
    });
    await waitFor(() => (sentTo('4179001').length > 0 ? true : undefined));
    const cancelled = await call('DELETE', `/secure/batches/${reply.body.data.batchId}`, { auth });
    expect(cancelled.status).toBe(200);
    // Let submissions already in flight finish.
    const settled = await waitFor(async () => {
      const s = await batchStatus(auth, reply.body.data.batchId);
      return s.counts.queued === 0 ? s : undefined;
    });
    // None queued: every message was answered by the SMSC or is cancelled, so nothing more is sent.
    const sent = sentTo('4179001').length;
    expect(settled.counts.sent + settled.counts.cancelled).toBe(3000);
    expect(settled.counts.sent).toBe(sent);
    expect(settled.counts.cancelled).toBeGreaterThan(0);
    expect(await balanceOf(auth)).toBe(String(5000 - sent));
  });
});
