import { QUEUES, STALL_DEFAULTS, TOPICS } from '@smsgw/contracts';
import type { Bus, Consumer, Db, Logger } from '@smsgw/kit';
import { autovacuumEnabled, countOpenBatches, statsRollupLagSeconds } from '@smsgw/store';
import type { Registry } from 'prom-client';
import { BatchExpander } from './batch-expander';
import { BatchScheduler } from './batch-scheduler';
import { MessageRetention } from './message-retention';
import { PartitionStatistics } from './partition-statistics';
import { StallWatch, type StallWatchSettings } from './stall-watch';
import { StatsRollup, type StatsRollupSettings } from './stats-rollup';
import { createSchedulerMetrics } from './metrics';
import { schedulerDefaults } from './defaults';

export interface SchedulerServiceOptions {
  db: Db;
  bus: Bus;
  logger: Logger;
  registry: Registry;
  pollIntervalMs?: number;
  chunkSize?: number;
  /** Messages of one batch waiting for the dispatcher before expansion pauses (backpressure). */
  maxUnsentPerBatch?: number;
  /** MESSAGE_RETENTION_DAYS; undefined keeps every message. */
  retentionDays?: number | undefined;
  /** The stall watch's limits (BATCH_STALL_SECONDS, MESSAGE_OVERDUE_SECONDS) and interval. */
  stall?: Partial<StallWatchSettings>;
  /** The statistics rollup's period (STATS_ROLLUP_SECONDS), lag (STATS_LAG_SECONDS), CDR_RETENTION_DAYS and tunings. */
  stats?: Partial<StatsRollupSettings>;
}

/** The scheduler's settings from its environment (distributed and embedded mode alike). */
export function schedulerSettings(config: {
  MESSAGE_RETENTION_DAYS?: number | undefined;
  BATCH_STALL_SECONDS: number;
  MESSAGE_OVERDUE_SECONDS: number;
  CDR_RETENTION_DAYS?: number | undefined;
  STATS_ROLLUP_SECONDS: number;
  STATS_LAG_SECONDS: number;
}): Pick<SchedulerServiceOptions, 'retentionDays' | 'stall' | 'stats'> {
  return {
    retentionDays: config.MESSAGE_RETENTION_DAYS,
    stats: {
      intervalMs: config.STATS_ROLLUP_SECONDS * 1000,
      lagMs: config.STATS_LAG_SECONDS * 1000,
      cdrRetentionDays: config.CDR_RETENTION_DAYS,
    },
    stall: {
      batchSeconds: config.BATCH_STALL_SECONDS,
      waitingSeconds: config.MESSAGE_OVERDUE_SECONDS,
      // A submit_sm unanswered for the stall limit is overdue: a batch with one is stalled by then too.
      submittingSeconds: config.BATCH_STALL_SECONDS,
    },
  };
}

/**
 * How often the stall watch runs: ten times within the stall limit, so that a batch moving slowly
 * is seen moving, and at most as often as the scheduler polls.
 */
function stallWatchInterval(batchSeconds: number): number {
  return Math.min(
    schedulerDefaults.stallWatchIntervalMs,
    Math.max(schedulerDefaults.pollIntervalMs, (batchSeconds * 1000) / 10),
  );
}

/**
 * Owns the batch lifecycle (docs/architecture.md § The parts): scheduled → running → completed, or
 * cancelled.
 */
export function createSchedulerService(options: SchedulerServiceOptions): {
  start(): Promise<void>;
  stop(): Promise<void>;
} {
  const expander = new BatchExpander(options.db, {
    chunkSize: options.chunkSize ?? schedulerDefaults.chunkSize,
    maxUnsentPerBatch: options.maxUnsentPerBatch ?? schedulerDefaults.maxUnsentPerBatch,
  });
  const metrics = createSchedulerMetrics(options.registry, {
    bus: options.bus,
    openBatches: () => countOpenBatches(options.db),
    autovacuum: () => autovacuumEnabled(options.db),
    statsLagSeconds: () => statsRollupLagSeconds(options.db, new Date()),
  });
  const stats = new StatsRollup(options.db, options.logger, metrics, {
    intervalMs: 60_000,
    lagMs: 120_000,
    cdrRetentionDays: undefined,
    ...schedulerDefaults.statsRollup,
    ...options.stats,
  });
  const scheduler = new BatchScheduler(expander, options.bus, options.logger, metrics, {
    pollIntervalMs: options.pollIntervalMs ?? schedulerDefaults.pollIntervalMs,
  });
  const retention = new MessageRetention(
    options.db,
    options.logger,
    metrics,
    {
      ...schedulerDefaults.retention,
      retentionDays: options.retentionDays,
      cdrRetentionDays: options.stats?.cdrRetentionDays,
    },
    stats,
  );
  const statistics = new PartitionStatistics(
    options.db,
    options.logger,
    schedulerDefaults.partitionStatistics,
  );
  const batchSeconds = options.stall?.batchSeconds ?? STALL_DEFAULTS.batchSeconds;
  const stallWatch = new StallWatch(options.db, options.logger, metrics, {
    intervalMs: stallWatchInterval(batchSeconds),
    waitingSeconds: STALL_DEFAULTS.waitingSeconds,
    submittingSeconds: STALL_DEFAULTS.submittingSeconds,
    ...options.stall,
    batchSeconds,
  });
  let consumer: Consumer | undefined;
  return {
    async start() {
      // The event only wakes the scheduler; what to do is read from Postgres, so redelivery is
      // harmless.
      consumer = await options.bus.consume(
        { queue: QUEUES.schedulerBatches, topic: TOPICS.batchAccepted },
        () => scheduler.wake(),
      );
      scheduler.start();
      retention.start();
      stats.start();
      await statistics.start();
      stallWatch.start();
    },
    async stop() {
      await consumer?.cancel();
      await scheduler.stop();
      await retention.stop();
      await stats.stop();
      await statistics.stop();
      await stallWatch.stop();
    },
  };
}
