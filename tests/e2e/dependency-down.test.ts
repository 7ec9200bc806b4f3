import { SmppSimulator } from '@smsgw/smsc';
import { waitFor } from '@smsgw/kit/testing';
import {
  E2E_ADMIN_TOKEN,
  E2E_JWT_SECRET,
  freshCluster,
  type Cluster,
} from '../support/distributed';
import { basic, request } from '../support/http';
import { CallbackReceiver } from '../support/receiver';
import { spawnService, type SpawnedService } from '../support/spawned-service';
import { TcpProxy } from '../support/tcp-proxy';

/**
 * Each service started while Postgres, RabbitMQ or Redis is down waits for it (alive, unready,
 * one warning per attempt) and works once it is back; likewise one restarted during an outage.
 * The services reach the real servers through relays on loopback that the test closes and opens.
 */
const SERVICES = ['auth', 'api-gateway', 'batch-scheduler', 'dispatcher', 'callback-notifier'];
// Small back-off caps, so an outage of seconds is noticed within a second of its end.
const RETRY = { DEPENDENCY_RETRY_INITIAL_MS: '100', DEPENDENCY_RETRY_MAX_MS: '800' };

function attempts(service: SpawnedService, dependency: string): number {
  return service.output().split(`${dependency} unavailable (attempt `).length - 1;
}

describe('services wait for their dependencies', () => {
  let cluster: Cluster;
  let sim: SmppSimulator;
  let receiver: CallbackReceiver;
  const proxies: Record<'postgres' | 'rabbitmq' | 'redis', TcpProxy> = {} as never;
  const running = new Map<string, SpawnedService>();
  let env: Record<string, string>;

  beforeAll(async () => {
    cluster = await freshCluster();
    sim = new SmppSimulator({ host: '127.0.0.1', port: 0 });
    const { port: smscPort } = await sim.start();
    receiver = new CallbackReceiver();
    await receiver.start();
    const target = (url: string) => {
      const parsed = new URL(url);
      return { host: parsed.hostname, port: Number(parsed.port) };
    };
    // Closed from the start: the services come up while every dependency is down.
    const closed = { open: false };
    proxies.postgres = await TcpProxy.start(target(cluster.env['DATABASE_URL']), closed);
    proxies.rabbitmq = await TcpProxy.start(target(cluster.env['AMQP_URL']), closed);
    proxies.redis = await TcpProxy.start(target(cluster.env['REDIS_URL']), closed);
    env = {
      ...cluster.env,
      ...RETRY,
      DATABASE_URL: TcpProxy.rewrite(cluster.env['DATABASE_URL'], proxies.postgres.port),
      AMQP_URL: TcpProxy.rewrite(cluster.env['AMQP_URL'], proxies.rabbitmq.port),
      REDIS_URL: TcpProxy.rewrite(cluster.env['REDIS_URL'], proxies.redis.port),
      ADMIN_TOKEN: E2E_ADMIN_TOKEN,
      JWT_SECRET: E2E_JWT_SECRET,
      SMSC_URL: `smpp://a:b@127.0.0.1:${smscPort}?window=20`,
      CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
    };
  });
  afterAll(async () => {
    await Promise.all([...running.values()].map((s) => s.stop()));
    for (const proxy of Object.values(proxies)) await proxy?.close();
    await receiver?.stop();
    await sim?.stop();
    await cluster?.drop();
  }, 60_000);

  const start = async (name: string): Promise<SpawnedService> => {
    const service = await spawnService(name, {
      ...env,
      ...(name === 'api-gateway' && { AUTH_URL: running.get('auth')!.url }),
    });
    running.set(name, service);
    return service;
  };
  const all = () => SERVICES.map((name) => running.get(name)!);

  /** Waits until each service logged `count` failed attempts to reach the dependency. */
  const waitForAttempts = (dependency: string, services: SpawnedService[], count = 2) =>
    waitFor(
      () =>
        services.every((s) => {
          if (!s.alive())
            throw new Error(`${s.name} exited while ${dependency} was down:\n${s.output()}`);
          return attempts(s, dependency) >= count;
        }),
      20_000,
      `${count} attempts to reach ${dependency} logged by ${services.map((s) => s.name).join(', ')}`,
      100,
    );

  const expectAliveAndUnready = async (services: SpawnedService[], check: string) => {
    for (const service of services) {
      expect([service.name, service.alive()]).toEqual([service.name, true]);
      const health = await request(service.url, 'GET', '/healthz');
      expect([service.name, health.status]).toEqual([service.name, 200]);
      const ready = await service.readiness();
      expect([service.name, ready.status, ready.checks[check]]).toEqual([service.name, 503, false]);
    }
  };

  /** A batch of `count` recipients, with a callback per message: every service takes part. */
  const sendBatch = async (prefix: number, count: number): Promise<void> => {
    const recipients = Array.from({ length: count }, (_, i) => String(prefix + i));
    const reply = await request(running.get('api-gateway')!.url, 'POST', '/secure/sendbatch', {
      auth: basic('patient', 'patient-password'),
      json: {
        messages: [{ to: recipients, content: 'after the outage' }],
        batch_config: { callback_url: `${receiver.base}/ok` },
      },
    });
    expect(reply.status).toBe(200);
    const batchId = reply.body.data.batchId as string;
    await waitFor(
      () => recipients.every((to) => sim.received.some((r) => r.to === to)),
      30_000,
      `the batch's ${count} messages at the SMSC`,
      100,
    );
    await waitFor(
      () => receiver.on('/ok').filter((c) => c.query['batchId'] === batchId).length >= count,
      30_000,
      `the batch's ${count} callbacks`,
      100,
    );
  };

  it('every service started while Postgres, RabbitMQ and Redis are down waits, then works', async () => {
    await start('auth');
    await Promise.all(SERVICES.slice(1).map((name) => start(name)));

    // Postgres comes first: each service tries it, says why it failed, and is alive but unready.
    await waitForAttempts('Postgres', all());
    await expectAliveAndUnready(all(), 'database');
    expect(running.get('auth')!.output()).toMatch(/Postgres unavailable \(attempt \d+\): \S/);
    // Its routes answer 503 meanwhile, not 404.
    const early = await request(running.get('api-gateway')!.url, 'POST', '/secure/send', {
      json: { to: '41790000001', content: 'too early' },
    });
    expect(early.status).toBe(503);

    await proxies.postgres.open();
    await waitForAttempts('RabbitMQ', all());
    await expectAliveAndUnready(all(), 'bus');
    expect(all().map((s) => s.output())).not.toContainEqual(
      expect.stringContaining('failed to start'),
    );

    await proxies.rabbitmq.open();
    await Promise.all(
      ['auth', 'api-gateway', 'batch-scheduler', 'callback-notifier'].map((name) =>
        running.get(name)!.ready(20_000),
      ),
    );
    // The dispatcher needs Redis for its shared throughput and bind leases: unready without it.
    const dispatcher = running.get('dispatcher')!;
    expect(dispatcher.alive()).toBe(true);
    expect((await dispatcher.readiness()).status).toBe(503);

    await proxies.redis.open();
    await dispatcher.ready(30_000);

    const created = await request(running.get('auth')!.url, 'POST', '/admin/v1/accounts', {
      auth: `Bearer ${E2E_ADMIN_TOKEN}`,
      json: { username: 'patient', password: 'patient-password', balance: null },
    });
    expect(created.status).toBe(201);
    await sendBatch(41_770_000_000, 5);
  }, 120_000);

  it('a dispatcher and a batch-scheduler restarted during a Postgres and RabbitMQ outage wait it out', async () => {
    const killed = ['dispatcher', 'batch-scheduler'];
    await Promise.all(killed.map((name) => running.get(name)!.kill()));
    await proxies.postgres.close();
    await proxies.rabbitmq.close();
    const restarted = await Promise.all(killed.map((name) => start(name)));

    await waitForAttempts('Postgres', restarted);
    await expectAliveAndUnready(restarted, 'database');
    // Those that were running when it went lost it, and stay up too.
    for (const name of ['auth', 'api-gateway', 'callback-notifier'])
      expect([name, running.get(name)!.alive()]).toEqual([name, true]);

    await proxies.postgres.open();
    await waitForAttempts('RabbitMQ', restarted);
    await expectAliveAndUnready(restarted, 'bus');

    await proxies.rabbitmq.open();
    await Promise.all(all().map((s) => s.ready(30_000)));
    await sendBatch(41_771_000_000, 5);
  }, 120_000);
});
