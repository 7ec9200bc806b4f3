import { QUEUES, TOPICS } from '@smsgw/contracts';
import type { Bus, Consumer, Db, Logger } from '@smsgw/kit';
import { countOpenBatches } from '@smsgw/store';
import type { Registry } from 'prom-client';
import { BatchExpander } from './batch-expander';
import { BatchScheduler } from './batch-scheduler';
import { MessageRetention } from './message-retention';
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
  });
  const scheduler = new BatchScheduler(expander, options.bus, options.logger, metrics, {
    pollIntervalMs: options.pollIntervalMs ?? schedulerDefaults.pollIntervalMs,
  });
  const retention = new MessageRetention(options.db, options.logger, metrics, {
    ...schedulerDefaults.retention,
    retentionDays: options.retentionDays,
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
    },
    async stop() {
      await consumer?.cancel();
      await scheduler.stop();
      await retention.stop();
    },
  };
}
