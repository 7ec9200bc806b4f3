import { QUEUES, TOPICS } from '@smsgw/contracts';
import type { Bus, Consumer, Db, Logger } from '@smsgw/kit';
import type { SmscConnector } from '@smsgw/smsc';
import { oldestWaitingAge } from '@smsgw/store';
import type { Registry } from 'prom-client';
import { MessageClaims } from './message-claims';
import { AccountCaps } from './throughput/account-caps';
import type { RateLimiter } from './throughput/rate-limiter';
import { SmartQos } from './throughput/smart-qos';
import { dispatcherDefaults } from './defaults';
import { ThroughputGate } from './throughput/throughput-gate';
import { MessageDispatcher } from './message-dispatcher';
import type { SmscLink } from './smsc-link';
import { openRateLimiter } from './throughput/open-rate-limiter';
import { createDispatcherMetrics, createInboundMetrics } from './metrics';
import { ReceiptMatcher } from './receipt-matcher';
import { RecoverySweeper } from './recovery-sweeper';
import { InboundReceiver } from './inbound-receiver';

export interface DispatcherServiceOptions {
  db: Db;
  bus: Bus;
  connector: SmscConnector;
  logger: Logger;
  registry: Registry;
  maxAttempts: number;
  submitStaleMs: number;
  throughputPerWorker: number;
  sweepIntervalMs: number;
  /** The in-process bus loses its queue on restart: re-publish everything queued at start. */
  inProcessBus: boolean;
  /** Cluster-wide pacing state; the connector's cap is `connectorThroughput` per second (0: none). */
  rateLimiter: RateLimiter;
  connectorThroughput: number;
  smartQos: boolean;
  /** Parts of an inbound message still missing after this long: delivered as what arrived. */
  inboundPartTimeoutMs: number;
}

export interface DispatcherService {
  /** Dependencies for /readyz beyond the database and the bus. */
  readiness(): Record<string, boolean>;
  start(): Promise<void>;
  /** Stops taking jobs, finishes submissions in progress, then unbinds. */
  stop(): Promise<void>;
  sweeper: RecoverySweeper;
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
}): Settings {
  return {
    maxAttempts: config.MAX_SUBMIT_ATTEMPTS,
    submitStaleMs: config.SUBMIT_STALE_MS,
    throughputPerWorker: config.HTTP_THROUGHPUT_PER_WORKER,
    sweepIntervalMs: config.SWEEP_INTERVAL_MS,
    inProcessBus: config.AMQP_URL === undefined,
    smartQos: config.SMART_QOS,
    inboundPartTimeoutMs: config.INBOUND_PART_TIMEOUT_MS,
  };
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
  const { db, bus, connector, logger } = options;
  // Smart QoS climbs back to the configured rate: the worker's, else the connector's cap, else a ceiling.
  const qosCeiling =
    options.throughputPerWorker ||
    options.connectorThroughput ||
    dispatcherDefaults.uncappedQosRate;
  const qos = options.smartQos
    ? new SmartQos({ ...dispatcherDefaults.smartQos, maxRate: qosCeiling })
    : undefined;
  const metrics = createDispatcherMetrics(
    options.registry,
    connector,
    qos && (() => qos.current()),
    {
      bus,
      oldestWaitingSeconds: async () => {
        return (await oldestWaitingAge(db)) ?? 0;
      },
    },
    { connector: options.connectorThroughput, perWorker: options.throughputPerWorker },
  );
  const claims = new MessageClaims(db, connector.name);
  const gate = new ThroughputGate(
    options.rateLimiter,
    logger,
    { waitSeconds: metrics.throughputWait, paused: metrics.throughputPaused },
    options.connectorThroughput > 0
      ? { key: `connector:${connector.name}`, perSecond: options.connectorThroughput }
      : undefined,
  );
  const dispatcher = new MessageDispatcher(
    claims,
    connector,
    bus,
    logger,
    metrics,
    {
      maxAttempts: options.maxAttempts,
      submitStaleMs: options.submitStaleMs,
      window: connector.window,
      throughputPerWorker: options.throughputPerWorker,
    },
    {
      gate,
      accountCaps: new AccountCaps(db),
      ...(qos && { qos }),
    },
  );
  const receipts = new ReceiptMatcher(claims, bus, logger, metrics, {
    connector: connector.name,
    holdMs: dispatcherDefaults.receipts.holdMs,
    retryEveryMs: dispatcherDefaults.receipts.retryEveryMs,
  });
  const sweeper = new RecoverySweeper(db, bus, logger, metrics, {
    intervalMs: options.sweepIntervalMs,
    acceptedGraceMs: dispatcherDefaults.sweeper.acceptedGraceMs,
    submitStaleMs: options.submitStaleMs,
    queuedStaleMs: queuedStaleMs(options.maxAttempts, options.submitStaleMs),
    republishQueuedAtStart: options.inProcessBus,
  });
  const inbound = new InboundReceiver(db, bus, logger, createInboundMetrics(options.registry), {
    connector: connector.name,
    partTimeoutMs: options.inboundPartTimeoutMs,
    dedupWindowMs: dispatcherDefaults.inbound.dedupWindowMs,
    sweepEveryMs: Math.min(dispatcherDefaults.inbound.sweepEveryMs, options.inboundPartTimeoutMs),
  });
  const consumers: Consumer[] = [];

  return {
    sweeper,
    readiness: () => ({
      smsc: connector.isUp(),
      throughput: options.rateLimiter.isReady() && !gate.isPaused(),
    }),
    async start() {
      connector.onReceipt(receipts.receive);
      connector.onInbound(inbound.receive);
      inbound.start();
      await connector.start();
      const retryDelaysMs = submitRetryDelays(options.maxAttempts);
      const prefetch = dispatcherDefaults.prefetch;
      consumers.push(
        await bus.consume(
          {
            queue: QUEUES.dispatcherSubmit,
            topic: TOPICS.messageSubmit,
            prefetch: connector.window * prefetch.perWindowPlace,
            retryDelaysMs,
          },
          dispatcher.handle,
        ),
        await bus.consume(
          {
            queue: QUEUES.dispatcherSubmitGroup,
            topic: TOPICS.messageSubmitGroup,
            prefetch: Math.max(
              prefetch.minGroupJobs,
              Math.ceil((connector.window * prefetch.perWindowPlace) / prefetch.typicalGroupJob),
            ),
            retryDelaysMs,
          },
          dispatcher.handleGroup,
        ),
      );
      await sweeper.start();
    },
    async stop() {
      await Promise.all(consumers.map((c) => c.cancel()));
      await sweeper.stop();
      await dispatcher.drain();
      receipts.stop();
      inbound.stop();
      await connector.stop();
      await options.rateLimiter.close();
    },
  };
}

/**
 * The dispatcher as both modes wire it from their environment: settings, the shared throughput
 * state (Redis or in memory) and the SMSC link's cap.
 */
export function dispatcherFromConfig(
  config: Parameters<typeof dispatcherSettings>[0] & {
    REDIS_URL?: string | undefined;
    BUS_NAMESPACE: string;
  },
  deps: Pick<DispatcherServiceOptions, 'db' | 'bus' | 'logger' | 'registry'> & { smsc: SmscLink },
): DispatcherService {
  return createDispatcherService({
    ...deps,
    connector: deps.smsc.connector,
    ...dispatcherSettings(config),
    rateLimiter: openRateLimiter(config.REDIS_URL, config.BUS_NAMESPACE),
    connectorThroughput: deps.smsc.throughput,
  });
}
