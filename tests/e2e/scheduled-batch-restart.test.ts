/**
 * Issue 3: "a batch scheduled ahead survives a restart of every service and is still delivered
 * once". All five services are killed with SIGKILL while the batch waits (nothing gets to stop
 * cleanly) and started again on the same ports, as an orchestrator would.
 */
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { E2E_ADMIN_TOKEN, E2E_JWT_SECRET, useDistributedRun } from '../support/distributed';
import { basic, request } from '../support/http';
import { SERVICE_NAMES, freePort, type ServiceName } from '../support/processes';
import { CallbackReceiver } from '../support/receiver';
import { batchCallbacksSettled } from '../support/scrape';

// Long enough that the kill and the start of five processes, twice as slow on a busy machine, end
// well before the schedule: the checks after the restart need the batch still waiting.
const DELAY_S = 40;
const RECIPIENTS = Array.from({ length: 40 }, (_, i) => String(41_790_050_000 + i));

describe('a scheduled batch survives SIGKILL and restart of every service', () => {
  const run = useDistributedRun();
  const receiver = new CallbackReceiver();
  afterAll(() => receiver.stop());

  it('is sent once per recipient, not before its time, and completes', async () => {
    const sim = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: false });
    run.simulators.push(sim);
    const { port: smppPort } = await sim.start();
    await receiver.start();
    const ports = Object.fromEntries(
      await Promise.all(SERVICE_NAMES.map(async (name) => [name, await freePort()] as const)),
    ) as Record<ServiceName, number>;
    const env: Record<ServiceName, Record<string, string>> = {
      auth: { ADMIN_TOKEN: E2E_ADMIN_TOKEN, JWT_SECRET: E2E_JWT_SECRET },
      'api-gateway': {
        AUTH_URL: `http://127.0.0.1:${ports.auth}`,
        CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
      },
      'batch-scheduler': {},
      dispatcher: {
        SMSC_URL: `smpp://smsgw:secret@127.0.0.1:${smppPort}?window=10`,
        SUBMIT_STALE_MS: '1500',
        SWEEP_INTERVAL_MS: '300',
      },
      'callback-notifier': { CALLBACK_ALLOWED_HOSTS: '127.0.0.1', CALLBACK_RETRY_BASE_MS: '200' },
    };
    const startAll = () =>
      Promise.all(
        SERVICE_NAMES.map((name) => run.start(name, { ...env[name], PORT: String(ports[name]) })),
      );
    const gateway = `http://127.0.0.1:${ports['api-gateway']}`;

    const services = await startAll();
    const created = await request(`http://127.0.0.1:${ports.auth}`, 'POST', '/admin/v1/accounts', {
      auth: `Bearer ${E2E_ADMIN_TOKEN}`,
      json: { username: 'later', password: 'later-password', balance: '100', rate: '1' },
    });
    expect(created.status).toBe(201);
    const later = basic('later', 'later-password');

    const reply = await request(gateway, 'POST', '/secure/sendbatch', {
      auth: later,
      json: {
        messages: [
          { to: RECIPIENTS.slice(0, 30), content: 'scheduled' },
          { to: RECIPIENTS.slice(30), content: 'scheduled too', from: 'Acme' },
        ],
        batch_config: { schedule_at: `${DELAY_S}s`, callback_url: `${receiver.base}/ok` },
      },
    });
    expect(reply.status).toBe(200);
    const batchId = reply.body.data.batchId as string;
    const batch = async () =>
      (await request(gateway, 'GET', `/secure/batches/${batchId}`, { auth: later })).body.data;
    const accepted = await batch();
    expect(accepted.state).toBe('scheduled');
    const dueAt = Date.parse(accepted.scheduledAt);

    await Promise.all(services.map((s) => s.kill()));
    await startAll();
    expect(Date.now()).toBeLessThan(dueAt);
    // Still waiting after the restart: the schedule, not the moment of the kill, releases it.
    expect((await batch()).state).toBe('scheduled');
    expect(sim.received).toEqual([]);

    const done = await waitFor(
      async () => {
        const s = await batch();
        return s.state === 'completed' ? s : undefined;
      },
      dueAt - Date.now() + 30_000,
      'the batch completed',
      250,
    );
    expect(done.counts).toMatchObject({
      total: RECIPIENTS.length,
      queued: 0,
      sent: RECIPIENTS.length,
      failed: 0,
      cancelled: 0,
    });

    const mine = () => sim.received.filter((r) => RECIPIENTS.includes(r.to));
    const callbacks = () => receiver.on('/ok').filter((c) => c.query['batchId'] === batchId);
    await waitFor(
      () => (callbacks().length >= RECIPIENTS.length ? true : undefined),
      10_000,
      'every callback',
      100,
    );
    // Completed, every message answered: none can be claimed and sent again. And no callback waits
    // for an attempt or a retry, so no duplicate call can come either.
    await batchCallbacksSettled(`http://127.0.0.1:${ports['callback-notifier']}`);
    expect(
      mine()
        .map((r) => r.to)
        .sort(),
    ).toEqual(RECIPIENTS);
    for (const r of mine()) expect(r.receivedAt.getTime()).toBeGreaterThanOrEqual(dueAt);
    expect(
      callbacks()
        .map((c) => c.query['to'])
        .sort(),
    ).toEqual(RECIPIENTS);
    expect(
      (await request(gateway, 'GET', '/secure/balance', { auth: later })).body.data.balance,
    ).toBe(String(100 - RECIPIENTS.length));
  }, 150_000);
});
