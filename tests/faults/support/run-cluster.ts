import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { QUEUES } from '@smsgw/contracts';
import { submitRetryDelays } from '@smsgw/dispatcher';
import { PgDb } from '@smsgw/kit';
import { createTestDatabase, deleteBusNamespace, startService } from '@smsgw/kit/testing';
import type { ServiceProcess } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { basic, request } from '../../support/http';
import type { Dependency } from './infra';
import { WebhookReceiver } from './webhook';
import { SERVICE_NAMES, freePort, type ServiceName } from '../../support/processes';

/** A server the gateway depends on, as the services reach it. */
export interface Server extends Dependency {
  readonly url: string;
}

export interface Infra {
  postgres: Server;
  redis: Server;
  rabbit: Server;
}

export interface RunContext {
  infra: Infra;
  sim: SmppSimulator;
  receiver: WebhookReceiver;
  services: Map<ServiceName, ServiceProcess>;
  /** SIGKILLs a service and starts it again on the same port after pauseMs. */
  restart(name: ServiceName, pauseMs: number): Promise<void>;
  /** SIGKILLs a service. */
  kill(name: ServiceName): Promise<void>;
  /** Starts a killed service again on its port; resolves once it is ready. */
  relaunch(name: ServiceName): Promise<void>;
  /** The SMSC gone: every session cut and its port closed, until smscUp(). */
  smscDown(): Promise<void>;
  smscUp(): Promise<void>;
  quick: boolean;
}

/** A gateway in distributed mode with one account, an SMSC and a customer's webhook receiver. */
export interface Run {
  context: RunContext;
  /** The run's database, read directly (not through a proxy a fault may cut). */
  db: PgDb;
  gateway(): string;
  authUrl(): string;
  /** The account's Basic credentials. */
  auth: string;
  username: string;
  /** Error and fatal log lines of every process the run started, by service. */
  errorLogLines(): Record<string, number>;
  /** Each process's log under FAULTS_LOGS/<name>, when set. */
  keepLogs(name: string): void;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const ADMIN_TOKEN = 'faults-admin-token-0123456789';
const JWT_SECRET = 'faults-jwt-secret-0123456789-0123456789-0123456789';
const USERNAME = 'faults';

/**
 * A fresh database and bus namespace on the given servers, every service as a process, an SMSC
 * (the simulator, with receipts) and a webhook receiver, and an account with credit at `rate`.
 * `directDatabaseUrl` reads the run's database around the proxy a fault may cut, when there is one.
 */
export async function startRun(
  infra: Infra,
  options: {
    quick: boolean;
    balance: string;
    rate: string;
    receiverFailureRate?: number;
    directDatabaseUrl?: (url: string) => string;
  },
): Promise<Run> {
  const database = await createTestDatabase(infra.postgres.url);
  const namespace = `faults-${randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    AMQP_URL: infra.rabbit.url,
    REDIS_URL: infra.redis.url,
    BUS_NAMESPACE: namespace,
    INTERNAL_TOKEN: randomBytes(24).toString('hex'),
    // auth seals connector passwords with it, dispatchers open them: one per run.
    CONNECTOR_SECRET_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: process.env['FAULTS_LOG_LEVEL'] ?? 'warn',
  };
  // A port of its own, so the SMSC comes back where the dispatcher looks for it after smscDown().
  const sim = new SmppSimulator({
    host: '127.0.0.1',
    port: await freePort(),
    deliveryReceipts: true,
    receiptDelayMs: 50,
  });
  const { port: smppPort } = await sim.start();
  const receiver = new WebhookReceiver(options.receiverFailureRate ?? 0);
  await receiver.start();
  const envOf: Record<ServiceName, Record<string, string>> = {
    auth: { ADMIN_TOKEN, JWT_SECRET },
    // The gateway refuses a private callback URL at acceptance unless allowed, as the notifier does.
    'api-gateway': { CALLBACK_ALLOWED_HOSTS: '127.0.0.1' },
    'batch-scheduler': {},
    dispatcher: {
      SMSC_URL: `smpp://smsgw:secret@127.0.0.1:${smppPort}?window=50`,
      SUBMIT_STALE_MS: '5000',
      SWEEP_INTERVAL_MS: '1000',
    },
    'callback-notifier': { CALLBACK_ALLOWED_HOSTS: '127.0.0.1' },
  };
  const services = new Map<ServiceName, ServiceProcess>();
  const everyProcess: ServiceProcess[] = [];
  const launch = async (name: ServiceName, port?: number) => {
    const extra: Record<string, string> = { ...envOf[name] };
    if (name === 'api-gateway') extra['AUTH_URL'] = services.get('auth')!.url;
    if (port !== undefined) extra['PORT'] = String(port);
    // A service started again may start while a dependency is still down: it waits for it.
    const readyWithin = port === undefined ? 60_000 : 180_000;
    const service = await startService(name, { ...env, ...extra }, readyWithin);
    services.set(name, service);
    everyProcess.push(service);
    return service;
  };
  const context: RunContext = {
    infra,
    sim,
    receiver,
    services,
    quick: options.quick,
    async restart(name, pauseMs) {
      await this.kill(name);
      await sleep(pauseMs);
      await this.relaunch(name);
    },
    async kill(name) {
      await services.get(name)!.kill();
    },
    async relaunch(name) {
      await launch(name, services.get(name)!.port);
    },
    smscDown: () => sim.stop(),
    async smscUp() {
      await sim.start();
    },
  };
  const db = new PgDb({
    connectionString: options.directDatabaseUrl?.(database.url) ?? database.url,
    max: 2,
  });
  const stop = async () => {
    await Promise.all(everyProcess.map((s) => s.stop()));
    await sim.stop();
    await receiver.stop();
    await db.close();
    await database.drop().catch(() => undefined);
    await deleteBusNamespace(infra.rabbit.url, namespace, {
      [QUEUES.dispatcherSubmit]: submitRetryDelays(5),
      [QUEUES.dispatcherSubmitGroup]: submitRetryDelays(5),
    }).catch(() => undefined);
  };
  try {
    for (const name of SERVICE_NAMES) await launch(name);
    const created = await request(services.get('auth')!.url, 'POST', '/admin/v1/accounts', {
      auth: `Bearer ${ADMIN_TOKEN}`,
      json: {
        username: USERNAME,
        password: 'faults-password',
        balance: options.balance,
        rate: options.rate,
      },
    });
    if (created.status !== 201) throw new Error(`account: HTTP ${created.status}`);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    context,
    db,
    gateway: () => services.get('api-gateway')!.url,
    authUrl: () => services.get('auth')!.url,
    auth: basic(USERNAME, 'faults-password'),
    username: USERNAME,
    errorLogLines() {
      const counts: Record<string, number> = {};
      for (const service of everyProcess) {
        const lines = service
          .output()
          .split('\n')
          .filter((line) => /"level":(50|60)/.test(line)).length;
        if (lines > 0) counts[service.name] = (counts[service.name] ?? 0) + lines;
      }
      return counts;
    },
    keepLogs(name) {
      const logDir = process.env['FAULTS_LOGS'];
      if (!logDir) return;
      const dir = join(logDir, name.replace(/\W+/g, '-'));
      mkdirSync(dir, { recursive: true });
      everyProcess.forEach((service, i) =>
        writeFileSync(join(dir, `${i}-${service.name}.log`), service.output()),
      );
    },
    stop,
  };
}
