import { benchRouteCount, installBenchRoutes } from './bench-routes';
import { dropSearchIndexes, searchIndexesOff } from './search-indexes';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { QUEUES } from '@smsgw/contracts';
import {
  createTestDatabase,
  deleteBusNamespace,
  startService,
  type ServiceProcess,
} from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';

/** The dispatcher's retry delays with the default MAX_SUBMIT_ATTEMPTS (see submitRetryDelays). */
const SUBMIT_RETRY_DELAYS = [1000, 4000, 16000, 64000];

export const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const JWT_SECRET = 'bench-jwt-secret-0123456789-0123456789-0123456789';

export interface Services {
  /** The first of `gateways`. */
  gateway: ServiceProcess;
  gateways: ServiceProcess[];
  auth: ServiceProcess;
  dispatchers: ServiceProcess[];
  services: ServiceProcess[];
  /** The cluster's database on the Postgres server, to tell its backends from other work's. */
  databaseName: string;
  databaseUrl: string;
  /** What every service of the cluster was started with, for a benchmark starting one more. */
  env: Record<string, string>;
  createAccount(username: string, extra?: Record<string, unknown>): Promise<string>;
  stop(): Promise<void>;
}

export interface Cluster extends Services {
  sim: SmppSimulator;
}

/** Distributed mode on this machine with the simulator in this process, where a benchmark can count arrivals. */
export async function startCluster(
  options: {
    dispatchers?: number;
    smscQuery?: string;
    latencyMs?: number;
    /** The simulator answers each submit_sm that asks for one with a delivery receipt. */
    deliveryReceipts?: boolean;
  } = {},
): Promise<Cluster> {
  const sim = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    latencyMs: options.latencyMs ?? 0,
    deliveryReceipts: options.deliveryReceipts ?? false,
  });
  const { port } = await sim.start();
  let services: Services;
  try {
    services = await startServices({ ...options, smscPort: port });
  } catch (err) {
    await sim.stop();
    throw err;
  }
  return {
    ...services,
    sim,
    async stop() {
      await services.stop();
      await sim.stop();
    },
  };
}

/** Distributed mode on this machine: each service a process, a fresh database and bus namespace. */
export async function startServices(options: {
  /** The SMPP port of the SMSC the dispatchers bind to. */
  smscPort: number;
  dispatchers?: number;
  /** api-gateway replicas (default 1). */
  gateways?: number;
  smscQuery?: string;
  /** More environment for every service (a bench's own settings). */
  env?: Record<string, string>;
  /** Without the search's indexes (default: as BENCH_SEARCH_INDEXES says). */
  withoutSearchIndexes?: boolean;
}): Promise<Services> {
  const database = await createTestDatabase();
  const env = {
    DATABASE_URL: database.url,
    AMQP_URL: process.env['AMQP_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672',
    REDIS_URL: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
    BUS_NAMESPACE: `bench-${randomBytes(4).toString('hex')}`,
    INTERNAL_TOKEN: randomBytes(24).toString('hex'),
    // auth seals connector passwords with it, dispatchers open them: one per cluster.
    CONNECTOR_SECRET_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    ...options.env,
  };
  const started: ServiceProcess[] = [];
  const profile = profilingArgs();
  const start = async (name: string, extra: Record<string, string>) => {
    const service = await startService(name, { ...env, ...extra }, 45_000, profile);
    started.push(service);
    return service;
  };
  let auth: ServiceProcess, scheduler: ServiceProcess, notifier: ServiceProcess;
  const dispatchers: ServiceProcess[] = [];
  const gateways: ServiceProcess[] = [];
  try {
    auth = await start('auth', { ADMIN_TOKEN, JWT_SECRET });
    for (let i = 0; i < (options.gateways ?? 1); i++)
      gateways.push(await start('api-gateway', { AUTH_URL: auth.url }));
    scheduler = await start('batch-scheduler', {});
    notifier = await start('callback-notifier', {});
    for (let i = 0; i < (options.dispatchers ?? 1); i++) {
      dispatchers.push(
        await start('dispatcher', {
          SMSC_URL: `smpp://bench:bench@127.0.0.1:${options.smscPort}?${options.smscQuery ?? 'window=100'}`,
          // Every dispatcher binds, as before connectors had a bind limit.
          SMSC_BINDS: String(options.dispatchers ?? 1),
        }),
      );
    }
  } catch (err) {
    // A half-started cluster is stopped, not left running against the broker.
    await Promise.all(started.map((s) => s.stop()));
    await database.drop();
    throw err;
  }
  const services = [auth, ...gateways, scheduler, notifier, ...dispatchers];
  if (options.withoutSearchIndexes ?? searchIndexesOff()) await dropSearchIndexes(database.url);
  // Gateways and dispatchers read a changed routing table within 2 s.
  if (benchRouteCount() > 0) {
    await installBenchRoutes(database.url, benchRouteCount());
    await new Promise((r) => setTimeout(r, 3000));
  }
  return {
    gateway: gateways[0],
    gateways,
    auth,
    dispatchers,
    services,
    databaseName: new URL(database.url).pathname.slice(1),
    databaseUrl: database.url,
    env,
    async createAccount(username, extra = {}) {
      const reply = await fetch(`${auth.url}/admin/v1/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ username, password: 'bench-password', balance: null, ...extra }),
      });
      if (reply.status !== 201) throw new Error(`account: HTTP ${reply.status}`);
      return `Basic ${Buffer.from(`${username}:bench-password`).toString('base64')}`;
    },
    async stop() {
      await Promise.all(services.map((s) => s.stop()));
      await database.drop();
      await deleteBusNamespace(env.AMQP_URL, env.BUS_NAMESPACE, {
        [QUEUES.dispatcherSubmit]: SUBMIT_RETRY_DELAYS,
        [QUEUES.dispatcherSubmitGroup]: SUBMIT_RETRY_DELAYS,
      });
    },
  };
}

/**
 * BENCH_NODE_ARGS: Node.js options given to each service, to try one (a V8 flag, say) against the
 * default in the same conditions. BENCH_PROFILE=<dir>: a V8 CPU profile of each service, written
 * when it stops. BENCH_PERF=1: each service writes /tmp/perf-<pid>.map, so `perf record` names the
 * JavaScript it samples.
 */
export function profilingArgs(): string[] {
  const extra = process.env['BENCH_NODE_ARGS']?.split(' ').filter(Boolean) ?? [];
  return [...extra, ...profilingFlags()];
}

function profilingFlags(): string[] {
  return process.env['BENCH_PROFILE']
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env['BENCH_PROFILE']}`]
    : process.env['BENCH_PERF']
      ? ['--perf-basic-prof']
      : [];
}

/** A memory figure of a process from /proc (VmRSS: resident now; VmHWM: peak so far), in MB. */
export function memoryMb(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  if (!pid) return NaN;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1];
    return kb ? Math.round(Number(kb) / 1024) : NaN;
  } catch {
    return NaN;
  }
}

/** Peak resident memory of a process so far, in MB. */
export const peakRssMb = (pid: number | undefined): number => memoryMb(pid, 'VmHWM');
