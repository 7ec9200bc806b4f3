import type { ChildProcess } from 'node:child_process';
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { freshCluster, type Cluster } from '../support/distributed';
import { basic, request } from '../support/http';
import { freePort, startService, type ServiceProcess } from '../support/processes';
import { startRedis } from '../support/redis-server';
import { metricValue } from '../support/scrape';

const ADMIN_TOKEN = 'e2e-admin-token-0123456789';
const JWT_SECRET = 'e2e-jwt-secret-0123456789-0123456789-0123456789';
const COUNT = 1500;

describe('a Redis outage pauses dispatch; the batch completes when Redis returns', () => {
  let cluster: Cluster;
  let sim: SmppSimulator;
  let redis: ChildProcess | undefined;
  const running: ServiceProcess[] = [];

  beforeAll(async () => {
    cluster = await freshCluster();
  });
  afterAll(async () => {
    await Promise.all(running.map((s) => s.stop()));
    redis?.kill('SIGKILL');
    await sim?.stop();
    await cluster?.drop();
  }, 60_000);

  it('sends every message exactly once, none while Redis is away', async () => {
    const redisPort = await freePort();
    redis = await startRedis(redisPort);
    sim = new SmppSimulator({ host: '127.0.0.1', port: 0 });
    const { port } = await sim.start();
    const env = { ...cluster.env, REDIS_URL: `redis://127.0.0.1:${redisPort}` };
    const auth = await startService('auth', { ...env, ADMIN_TOKEN, JWT_SECRET });
    const gateway = await startService('api-gateway', { ...env, AUTH_URL: auth.url });
    const scheduler = await startService('batch-scheduler', env);
    const dispatcher = await startService('dispatcher', {
      ...env,
      SMSC_URL: `smpp://a:b@127.0.0.1:${port}?window=20&throughput=300`,
    });
    running.push(auth, gateway, scheduler, dispatcher);
    await request(auth.url, 'POST', '/admin/v1/accounts', {
      auth: `Bearer ${ADMIN_TOKEN}`,
      json: { username: 'paced', password: 'paced-password', balance: null },
    });
    const recipients = Array.from({ length: COUNT }, (_, i) => String(41_760_000_000 + i));
    const reply = await request(gateway.url, 'POST', '/secure/sendbatch', {
      auth: basic('paced', 'paced-password'),
      json: { messages: [{ to: recipients, content: 'paced' }] },
    });
    expect(reply.status).toBe(200);

    await sim.waitFor(300, 30_000);
    redis.kill('SIGKILL');
    await waitFor(
      async () =>
        (await request(dispatcher.url, 'GET', '/readyz')).status === 503 ? true : undefined,
      10_000,
      'the dispatcher not ready',
      100,
    );
    expect((await request(dispatcher.url, 'GET', '/readyz')).body.checks.throughput).toBe(false);
    // Paused: jobs that reserved their slot before the outage (at most the prefetch, 4 × window)
    // still go at their reserved time; nothing more is sent. Each reservation is one observation
    // of the wait histogram: once the SMSC has accepted as many messages as were reserved while
    // the gate says paused, no message is left that may still go (one sent without a reservation
    // would keep the two apart, and the wait fails).
    const paused = sim.received.length;
    const submitted = () => metricValue(dispatcher.url, 'smsgw_messages_submitted_total');
    await waitFor(
      async () => {
        if ((await metricValue(dispatcher.url, 'smsgw_throughput_paused')) !== 1) return undefined;
        const reserved = await metricValue(dispatcher.url, 'smsgw_throughput_wait_seconds_count');
        return (await submitted()) === reserved ? true : undefined;
      },
      15_000,
      'every reserved message sent, the rest held',
      100,
    );
    const during = sim.received.length;
    expect(during - paused).toBeLessThanOrEqual(80);
    expect(during).toBe(await submitted());
    expect(during).toBeLessThan(COUNT);

    redis = await startRedis(redisPort);
    await sim.waitFor(COUNT, 60_000);
    // None queued (or awaiting the SMSC's answer): every message is answered, none can go again.
    await waitFor(
      async () => {
        const status = await request(
          gateway.url,
          'GET',
          `/secure/batches/${reply.body.data.batchId}`,
          {
            auth: basic('paced', 'paced-password'),
          },
        );
        return status.body.data?.counts?.queued === 0 ? true : undefined;
      },
      30_000,
      'every message answered',
    );
    const distinct = new Set(sim.received.map((m) => m.to));
    expect([distinct.size, sim.received.length]).toEqual([COUNT, COUNT]);
    expect((await request(dispatcher.url, 'GET', '/readyz')).status).toBe(200);
  }, 150_000);
});
