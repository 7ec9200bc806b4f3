import { Counter, type Registry } from 'prom-client';

export interface SchedulerMetrics {
  expanded: Counter;
  completed: Counter;
}

/** Names as docs/metrics.md lists them. */
export function createSchedulerMetrics(registry: Registry): SchedulerMetrics {
  const registers = [registry];
  return {
    expanded: new Counter({ name: 'smsgw_batch_messages_expanded_total', help: 'Batch recipients turned into message jobs', registers }),
    completed: new Counter({ name: 'smsgw_batches_completed_total', help: 'Batches whose every message reached an outcome', registers }),
  };
}
