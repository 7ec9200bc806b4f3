import { DEFAULT_CONNECTOR } from '@smsgw/contracts';
import { SecretBox, UrlGuard, type Bus, type Db, type Logger } from '@smsgw/kit';
import { MtRouter, PriceBook } from '@smsgw/routing';
import { ensureConnector, oldestWaitingAge, sealConnectorPasswords } from '@smsgw/store';
import type { Registry } from 'prom-client';
import { AccountCaps } from './throughput/account-caps';
import type { RateLimiter } from './throughput/rate-limiter';
import { dispatcherDefaults } from './defaults';
import type { SmscLink } from './smsc-link';
import { openRateLimiter } from './throughput/open-rate-limiter';
import {
  createDispatcherMetrics,
  createInboundMetrics,
  exportConnectorQueueMetrics,
} from './metrics';
import { RecoverySweeper } from './recovery-sweeper';
import { MemoryBindLeases, type BindLeases } from './connectors/bind-leases';
import { RedisBindLeases } from './connectors/redis-bind-leases';
import { ConnectorFleet } from './connectors/connector-fleet';
import { ConnectorSession, type SessionDeps } from './connectors/connector-session';
import { SubmitTlvs } from './submit-tlvs';
import type { ConnectorAccess } from './connectors/open-connector';

export interface DispatcherServiceOptions {
  db: Db;
  bus: Bus;
  logger: Logger;
  registry: Registry;
  maxAttempts: number;
  submitStaleMs: number;
  throughputPerWorker: number;
  sweepIntervalMs: number;
  /** The in-process bus loses its queue on restart: re-publish everything queued at start. */
  inProcessBus: boolean;
  /** Cluster-wide pacing state (connector and account caps). */
  rateLimiter: RateLimiter;
  /** Who holds each connector's binds (Redis in distributed mode, memory embedded). */
  leases: BindLeases;
  /** SMSC_URL, or the built-in simulator's: the `default` connector, written at start. */
  defaultConnectorUrl: string | undefined;
  /** SMSC_BINDS: the `default` connector's binds. */
  defaultConnectorBinds: number;
  smartQos: boolean;
  /** Parts of an inbound message still missing after this long: delivered as what arrived. */
  inboundPartTimeoutMs: number;
  /** CONNECTOR_ALLOWED_HOSTS: private or loopback hosts an HTTP connector may reach. */
  connectorAllowedHosts: string[];
  /** SMSC_CA_DIR: where a connector's `tls_ca` file is read from. */
  caDir?: string | undefined;
  /** CONNECTOR_SECRET_KEY: connector passwords are sealed with it in the database. */
  connectorSecrets: SecretBox;
  /** CONNECTOR_SECRETS_RESEAL: passwords sealed the old way (v1) are sealed for their row at start. */
  resealConnectorSecrets: boolean;
}

export interface DispatcherService {
  /** Dependencies for /readyz beyond the database and the bus. */
  readiness(): Record<string, boolean>;
  start(): Promise<void>;
  /** Stops taking jobs, finishes submissions in progress, then unbinds. */
  stop(): Promise<void>;
  sweeper: RecoverySweeper;
  fleet: ConnectorFleet;
}

type Settings = Pick<
  DispatcherServiceOptions,
  | 'maxAttempts'
  | 'submitStaleMs'
  | 'throughputPerWorker'
  | 'sweepIntervalMs'
  | 'inProcessBus'
  | 'smartQos'
  | 'inboundPartTimeoutMs'
  | 'connectorAllowedHosts'
  | 'caDir'
  | 'connectorSecrets'
  | 'resealConnectorSecrets'
>;

/** The dispatcher's settings from its environment (distributed and embedded mode alike). */
export function dispatcherSettings(config: {
  MAX_SUBMIT_ATTEMPTS: number;
  SUBMIT_STALE_MS: number;
  HTTP_THROUGHPUT_PER_WORKER: number;
  SWEEP_INTERVAL_MS: number;
  SMART_QOS: boolean;
  INBOUND_PART_TIMEOUT_MS: number;
  AMQP_URL?: string | undefined;
  CONNECTOR_ALLOWED_HOSTS: string[];
  SMSC_CA_DIR?: string | undefined;
  CONNECTOR_SECRET_KEY: string;
  CONNECTOR_SECRETS_RESEAL: boolean;
}): Settings {
  return {
    maxAttempts: config.MAX_SUBMIT_ATTEMPTS,
    submitStaleMs: config.SUBMIT_STALE_MS,
    throughputPerWorker: config.HTTP_THROUGHPUT_PER_WORKER,
    sweepIntervalMs: config.SWEEP_INTERVAL_MS,
    inProcessBus: config.AMQP_URL === undefined,
    smartQos: config.SMART_QOS,
    inboundPartTimeoutMs: config.INBOUND_PART_TIMEOUT_MS,
    connectorAllowedHosts: config.CONNECTOR_ALLOWED_HOSTS,
    caDir: config.SMSC_CA_DIR,
    connectorSecrets: new SecretBox(config.CONNECTOR_SECRET_KEY),
    resealConnectorSecrets: config.CONNECTOR_SECRETS_RESEAL,
  };
}

/**
 * What the dispatcher's connectors may reach and read. The operator wrote SMSC_URL into the
 * environment: the default connector's host counts as allowed, as if listed.
 */
function connectorAccess(options: DispatcherServiceOptions): ConnectorAccess {
  const allowed = [...options.connectorAllowedHosts];
  const url = options.defaultConnectorUrl;
  if (url !== undefined && /^https?:/.test(url))
    allowed.push(new URL(url).hostname.replace(/^\[|\]$/g, ''));
  return { guard: new UrlGuard(allowed, 'CONNECTOR_ALLOWED_HOSTS'), caDir: options.caDir };
}

/** Retry delays sized so the bus gives up exactly when the dispatcher's attempt limit is reached. */
export function submitRetryDelays(maxAttempts: number): number[] {
  const retries = dispatcherDefaults.retries;
  return Array.from({ length: Math.max(0, maxAttempts - 1) }, (_, i) =>
    Math.min(retries.firstDelayMs * retries.factor ** i, retries.maxDelayMs),
  );
}

/**
 * How long a `queued` message may stay unchanged before the sweep gives it a job again: past the
 * longest wait for a redelivery plus a stale submit, and at least five minutes.
 */
export function queuedStaleMs(maxAttempts: number, submitStaleMs: number): number {
  const longestRetry = Math.max(0, ...submitRetryDelays(maxAttempts));
  return Math.max(5 * 60_000, 2 * (longestRetry + submitStaleMs));
}

export function createDispatcherService(options: DispatcherServiceOptions): DispatcherService {
  const { db, bus, logger } = options;
  const metrics = createDispatcherMetrics(
    options.registry,
    // Read at scrape time only, once the fleet exists.
    () => fleet.all(),
    {
      bus,
      oldestWaitingSeconds: async () => {
        return (await oldestWaitingAge(db)) ?? 0;
      },
    },
    options.throughputPerWorker,
    (connector) => router.current.routesUsing(connector),
  );
  const router = new MtRouter(db, logger, { refreshMs: dispatcherDefaults.connectors.refreshMs });
  // The connectors' cost lists, for what each message costs us when its SMSC accepts it.
  const costs = new PriceBook(db, logger, {
    refreshMs: dispatcherDefaults.connectors.refreshMs,
    scope: 'costs',
  });
  const retryDelaysMs = submitRetryDelays(options.maxAttempts);
  const sessionDeps: SessionDeps = {
    db,
    bus,
    logger,
    metrics,
    inboundMetrics: createInboundMetrics(options.registry),
    rateLimiter: options.rateLimiter,
    accountCaps: new AccountCaps(db),
    router,
    access: connectorAccess(options),
    tlvs: new SubmitTlvs(db, dispatcherDefaults.connectors.refreshMs),
    costs,
    settings: {
      maxAttempts: options.maxAttempts,
      submitStaleMs: options.submitStaleMs,
      throughputPerWorker: options.throughputPerWorker,
      smartQos: options.smartQos,
      inboundPartTimeoutMs: options.inboundPartTimeoutMs,
    },
  };
  const defaults = dispatcherDefaults.connectors;
  const fleet: ConnectorFleet = new ConnectorFleet(
    db,
    options.connectorSecrets,
    {
      db,
      bus,
      leases: options.leases,
      logger,
      metrics,
      openSession: (config) => new ConnectorSession(config, sessionDeps),
    },
    logger,
    {
      refreshMs: defaults.refreshMs,
      tickMs: defaults.tickMs,
      statusEveryMs: defaults.statusEveryMs,
      leaseTtlMs: defaults.leaseTtlMs,
      failoverAfterMs: defaults.failoverAfterMs,
      retryDelaysMs,
      prefetch: dispatcherDefaults.prefetch,
      onConnector: (name) => exportConnectorQueueMetrics(options.registry, bus, name),
    },
  );
  const sweeper = new RecoverySweeper(db, bus, logger, metrics, {
    intervalMs: options.sweepIntervalMs,
    acceptedGraceMs: dispatcherDefaults.sweeper.acceptedGraceMs,
    submitStaleMs: options.submitStaleMs,
    queuedStaleMs: queuedStaleMs(options.maxAttempts, options.submitStaleMs),
    republishQueuedAtStart: options.inProcessBus,
  });
  const running = fleet;

  return {
    sweeper,
    fleet: running,
    readiness: () => ({
      smsc: running.allUp(),
      throughput: options.rateLimiter.isReady(),
    }),
    async start() {
      const sealed = await sealConnectorPasswords(db, options.connectorSecrets, {
        resealV1: options.resealConnectorSecrets,
      });
      if (sealed > 0)
        logger.info({ sealed }, 'sealed connector passwords stored in clear or sealed the old way');
      if (options.defaultConnectorUrl !== undefined)
        await ensureConnector(
          db,
          options.connectorSecrets,
          DEFAULT_CONNECTOR,
          options.defaultConnectorUrl,
          options.defaultConnectorBinds,
        );
      router.start();
      // Loaded before the first submit, so no message accepted by an SMSC goes without its cost
      // for want of the lists (the loop retries a failed read).
      await costs
        .refresh()
        .catch((err: unknown) => logger.warn({ err }, "could not read the connectors' costs yet"));
      costs.start();
      await running.start();
      await sweeper.start();
    },
    async stop() {
      await sweeper.stop();
      await running.stop();
      await router.stop();
      await costs.stop();
      await options.rateLimiter.close();
      await options.leases.close();
    },
  };
}

/**
 * The dispatcher as both modes wire it from their environment: settings, the shared throughput
 * and lease state (Redis or in memory) and the default connector's URL.
 */
export function dispatcherFromConfig(
  config: Parameters<typeof dispatcherSettings>[0] & {
    REDIS_URL?: string | undefined;
    BUS_NAMESPACE: string;
    SMSC_BINDS: number;
  },
  deps: Pick<DispatcherServiceOptions, 'db' | 'bus' | 'logger' | 'registry'> & { smsc: SmscLink },
): DispatcherService {
  return createDispatcherService({
    ...deps,
    ...dispatcherSettings(config),
    rateLimiter: openRateLimiter(config.REDIS_URL, config.BUS_NAMESPACE),
    leases: config.REDIS_URL
      ? new RedisBindLeases(config.REDIS_URL, config.BUS_NAMESPACE)
      : new MemoryBindLeases(),
    defaultConnectorUrl: deps.smsc.url,
    defaultConnectorBinds: config.SMSC_BINDS,
  });
}
