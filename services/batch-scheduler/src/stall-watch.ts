import { STALL_REASONS, type StallReason } from '@smsgw/contracts';
import { PollingLoop, type Db, type Logger } from '@smsgw/kit';
import { countOverdueMessages, countStalledBatches, watchBatchProgress } from '@smsgw/store';
import type { Gauge } from 'prom-client';

export interface StallWatchSettings {
  intervalMs: number;
  /** A due open batch that has not moved for this long is stalled. */
  batchSeconds: number;
  /** A message `queued` this long, or `submitting` this long, is overdue. */
  waitingSeconds: number;
  submittingSeconds: number;
}

export interface StallMetrics {
  stalled: Gauge;
  overdue: Gauge;
}

/**
 * Notices a batch that stops moving, which no error reports (a dispatcher or scheduler that
 * exited, an SMSC that never answers, a stopped connector): each round records which batches moved,
 * then counts the stalled batches and overdue messages into gauges that an alert watches. Postgres
 * holds the marks, so any scheduler replica, and the admin API, sees the same.
 */
export class StallWatch {
  private readonly loop: PollingLoop;
  private reported = 0;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly metrics: StallMetrics,
    private readonly settings: StallWatchSettings,
  ) {
    this.loop = new PollingLoop(() => this.round(), logger, 'stall watch');
  }

  start(): void {
    this.loop.start(this.settings.intervalMs);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  async round(): Promise<void> {
    await watchBatchProgress(this.db);
    const stalled = await countStalledBatches(this.db, this.settings.batchSeconds);
    for (const reason of STALL_REASONS) this.metrics.stalled.set({ reason }, stalled[reason]);
    const overdue = await countOverdueMessages(
      this.db,
      this.settings.waitingSeconds,
      this.settings.submittingSeconds,
    );
    this.metrics.overdue.set({ state: 'queued' }, overdue.queued);
    this.metrics.overdue.set({ state: 'submitting' }, overdue.submitting);
    this.report(stalled);
  }

  /** One line when the number of stalled batches changes, not one per round. */
  private report(stalled: Record<StallReason, number>): void {
    const total = STALL_REASONS.reduce((n, reason) => n + stalled[reason], 0);
    if (total === this.reported) return;
    if (total > 0)
      this.logger.warn(
        { stalled, afterSeconds: this.settings.batchSeconds },
        'batches stalled: see GET /admin/v1/batches/stalled',
      );
    else this.logger.info('no batch stalled any more');
    this.reported = total;
  }
}
