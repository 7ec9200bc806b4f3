import { QUEUES, type OpenBatchState } from '@smsgw/contracts';
import { exportQueueMetrics, type Bus } from '@smsgw/kit';
import { Counter, Gauge, type Registry } from 'prom-client';

export interface SchedulerMetrics {
  expanded: Counter;
  completed: Counter;
  expired: Counter;
  stalled: Gauge;
  overdue: Gauge;
  statsMessages: Counter;
}

/** Read at scrape time. */
export interface SchedulerProbe {
  bus: Bus;
  openBatches(): Promise<Record<OpenBatchState, number>>;
  /** Whether the Postgres server runs autovacuum. */
  autovacuum(): Promise<boolean>;
  /** Seconds from the statistics' watermark to now. */
  statsLagSeconds?(): Promise<number>;
}

/** The outcomes of smsgw_stats_rollup_messages_total (stats-rollup.ts). */
export const STATS_OUTCOMES = ['counted', 'pending', 'late', 'settled'] as const;
export type StatsOutcome = (typeof STATS_OUTCOMES)[number];

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
    new Gauge({
      name: 'smsgw_postgres_autovacuum_enabled',
      help: 'Whether the Postgres server runs autovacuum (1) or not (0): without it statistics go stale under load',
      registers,
      async collect() {
        this.set(await probe.autovacuum().then(Number, () => NaN));
      },
    });
    const statsLag = probe.statsLagSeconds?.bind(probe);
    if (statsLag)
      new Gauge({
        name: 'smsgw_stats_rollup_lag_seconds',
        help: 'Seconds from the acceptance time up to which the statistics have counted the messages to now',
        registers,
        async collect() {
          this.set(await statsLag().catch(() => NaN));
        },
      });
  }
  const statsMessages = new Counter({
    name: 'smsgw_stats_rollup_messages_total',
    help: 'Messages the statistics rollup counted, by outcome (counted, pending, late, settled)',
    labelNames: ['outcome'],
    registers,
  });
  // Every outcome's series from the start, before there is anything to count.
  for (const outcome of STATS_OUTCOMES) statsMessages.inc({ outcome }, 0);
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
    // Set by the stall watch each round rather than at scrape time: the watch also records
    // which batches moved, so the counts are as fresh as that.
    stalled: new Gauge({
      name: 'smsgw_batches_stalled',
      help: 'Due open batches that have not moved for the stall limit, by reason',
      labelNames: ['reason'],
      registers,
    }),
    overdue: new Gauge({
      name: 'smsgw_messages_overdue',
      help: 'Messages queued or submitting for longer than their limit, by state',
      labelNames: ['state'],
      registers,
    }),
    statsMessages,
  };
}
