import { randomBytes } from 'node:crypto';
import { QUEUES } from '@smsgw/contracts';
import { PgDb } from '@smsgw/kit';
import {
  createTestDatabase,
  deleteBusNamespace,
  startService,
  type ServiceProcess,
} from '@smsgw/kit/testing';
import type { SmppSimulator } from '@smsgw/smsc';
import { submitRetryDelays } from '@smsgw/dispatcher';

/** Distributed tests run only with DATABASE_URL and AMQP_URL set (jest.config.js leaves them out otherwise). */
export function distributedUrls(): { amqpUrl: string; redisUrl: string } {
  const amqpUrl = process.env['AMQP_URL'];
  if (!process.env['DATABASE_URL'] || !amqpUrl)
    throw new Error('distributed-mode tests need DATABASE_URL and AMQP_URL');
  return { amqpUrl, redisUrl: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379' };
}

export interface Cluster {
  databaseUrl: string;
  namespace: string;
  env: Record<string, string>;
  /** Connectors the run created besides `default`: their queues are deleted with the namespace. */
  connectors: string[];
  drop(): Promise<void>;
}

/** A fresh database and a fresh bus namespace, so runs never see each other's messages. */
export async function freshCluster(): Promise<Cluster> {
  const urls = distributedUrls();
  const database = await createTestDatabase();
  const namespace = `e2e-${randomBytes(4).toString('hex')}`;
  const connectors: string[] = [];
  return {
    connectors,
    databaseUrl: database.url,
    namespace,
    env: {
      DATABASE_URL: database.url,
      AMQP_URL: urls.amqpUrl,
      REDIS_URL: urls.redisUrl,
      BUS_NAMESPACE: namespace,
      // auth and api-gateway both read it; one per run, like the database and the namespace.
      INTERNAL_TOKEN: randomBytes(24).toString('hex'),
      // auth seals connector passwords with it, dispatchers open them: one per run as well.
      CONNECTOR_SECRET_KEY: randomBytes(32).toString('hex'),
      // The suites send from senders of their choosing; sender rules have their own (tests/security).
      UNLISTED_SENDERS: 'any',
    },
    async drop() {
      await database.drop();
      await deleteBusNamespace(
        urls.amqpUrl,
        namespace,
        {
          [QUEUES.dispatcherSubmit]: submitRetryDelays(5),
          [QUEUES.dispatcherSubmitGroup]: submitRetryDelays(5),
        },
        connectors,
      );
    },
  };
}

export const E2E_ADMIN_TOKEN = 'e2e-admin-token-0123456789';
export const E2E_JWT_SECRET = 'e2e-jwt-secret-0123456789-0123456789-0123456789';

export interface DistributedRun {
  cluster: Cluster;
  /** The run's database, for checking states directly. */
  db: PgDb;
  /** Simulators the test started; stopped after it. */
  simulators: SmppSimulator[];
  /** Starts a service as a process with the run's URLs (plus extra env); stopped after the test. */
  start(name: string, env?: Record<string, string>): Promise<ServiceProcess>;
  /** Starts auth and api-gateway, creates an account with unlimited credit; its Basic header. */
  gatewayWithAccount(
    username: string,
    gatewayEnv?: Record<string, string>,
  ): Promise<{ auth: ServiceProcess; gateway: ServiceProcess; credentials: string }>;
}

/** Registers the set-up and clean-up of a distributed-mode test file. */
export function useDistributedRun(): DistributedRun {
  const running: ServiceProcess[] = [];
  const run = { simulators: [] as SmppSimulator[] } as unknown as DistributedRun;
  run.start = async (name, env = {}) => {
    const service = await startService(name, { ...run.cluster.env, ...env });
    running.push(service);
    return service;
  };
  run.gatewayWithAccount = async (username, gatewayEnv = {}) => {
    const auth = await run.start('auth', {
      ADMIN_TOKEN: E2E_ADMIN_TOKEN,
      JWT_SECRET: E2E_JWT_SECRET,
    });
    const gateway = await run.start('api-gateway', { AUTH_URL: auth.url, ...gatewayEnv });
    const created = await fetch(`${auth.url}/admin/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${E2E_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ username, password: `${username}-password`, balance: null }),
    });
    if (created.status !== 201) throw new Error(`account ${username}: HTTP ${created.status}`);
    return {
      auth,
      gateway,
      credentials: `Basic ${Buffer.from(`${username}:${username}-password`).toString('base64')}`,
    };
  };
  beforeAll(async () => {
    run.cluster = await freshCluster();
    run.db = new PgDb({ connectionString: run.cluster.databaseUrl, max: 2 });
  });
  afterAll(async () => {
    await Promise.all(running.map((s) => s.stop()));
    await Promise.all(run.simulators.map((s) => s.stop()));
    await run.db?.close();
    await run.cluster?.drop();
  }, 120_000);
  return run;
}
