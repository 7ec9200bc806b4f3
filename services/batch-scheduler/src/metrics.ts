import { QUEUES, type OpenBatchState } from '@smsgw/contracts';
import { exportQueueMetrics, type Bus } from '@smsgw/kit';
import { Counter, Gauge, type Registry } from 'prom-client';

export interface SchedulerMetrics {
  expanded: Counter;
  completed: Counter;
  expired: Counter;
}

/** Read at scrape time. */
export interface SchedulerProbe {
  bus: Bus;
  openBatches(): Promise<Record<OpenBatchState, number>>;
}

/** Names as docs/metrics.md lists them. */
export function createSchedulerMetrics(
  registry: Registry,
  probe?: SchedulerProbe,
): SchedulerMetrics {
  const registers = [registry];
  if (probe) {
    exportQueueMetrics(registry, probe.bus, [QUEUES.schedulerBatches]);
    new Gauge({
      name: 'smsgw_batches',
      help: 'Batches not finished yet, by state (scheduled, running)',
      labelNames: ['state'],
      registers,
      async collect() {
        const counts = await probe.openBatches().catch(() => ({ scheduled: NaN, running: NaN }));
        for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
      },
    });
  }
  return {
    expanded: new Counter({
      name: 'smsgw_batch_messages_expanded_total',
      help: 'Batch recipients turned into message jobs',
      registers,
    }),
    completed: new Counter({
      name: 'smsgw_batches_completed_total',
      help: 'Batches whose every message reached an outcome',
      registers,
    }),
    expired: new Counter({
      name: 'smsgw_messages_expired_total',
      help: 'Messages removed because they were older than MESSAGE_RETENTION_DAYS',
      registers,
    }),
  };
}
