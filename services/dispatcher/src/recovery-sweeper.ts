import { publishSubmitJobs } from './submit-jobs';
import { TOPICS, WAITING_STATES } from '@smsgw/contracts';
import type { Bus, Db, Logger } from '@smsgw/kit';
import {
  JOB_OUTBOX_ROWS_PER_ROUND,
  deleteAllJobOutboxRows,
  deleteJobOutboxRows,
  lockJobOutboxRowsBefore,
  queuedMessagesOfJobOutbox,
  staleSubmittingMessages,
  sweepWaitingMessages,
  type MessageJobRow,
} from '@smsgw/store';
import { dispatcherDefaults } from './defaults';
import type { DispatcherMetrics } from './metrics';

export interface SweeperOptions {
  intervalMs: number;
  /**
   * A job_outbox row (or an `accepted` message) older than this was committed but its jobs were
   * never confirmed.
   */
  acceptedGraceMs: number;
  submitStaleMs: number;
  /**
   * A message `queued` and unchanged for this long has lost its job whatever happened to it (a
   * job dead-lettered after its redeliveries during a database outage, a queue purged): its job is
   * published again. Longer than any retry delay, so a job that waits to be redelivered is left
   * alone; a duplicate costs only a claim that finds nothing.
   */
  queuedStaleMs: number;
  /**
   * The in-process bus keeps nothing across a restart: re-publish `queued` messages once at start.
   */
  republishQueuedAtStart: boolean;
  batchSize?: number;
}

/**
 * Postgres is the source of truth; this re-publishes work a crash left in flight
 * (docs/architecture.md § The parts). Marking waiting messages swept (messages.swept_at) keeps two
 * sweepers from publishing the same rows in the same round, and the dispatcher's conditional claim
 * makes any duplicate harmless.
 */
export class RecoverySweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly bus: Bus,
    private readonly logger: Logger,
    private readonly metrics: DispatcherMetrics,
    private readonly options: SweeperOptions,
  ) {}

  async start(): Promise<void> {
    if (this.options.republishQueuedAtStart) {
      // Every queued message gets its job again here, so the outbox rows of before the restart are
      // done.
      await deleteAllJobOutboxRows(this.db);
      await this.sweepWaiting(WAITING_STATES, new Date(), 'queued');
    }
    this.timer = setInterval(() => {
      this.running ??= this.sweepOnce().finally(() => (this.running = undefined));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  async sweepOnce(): Promise<void> {
    try {
      const now = Date.now();
      await this.sweepOutbox(new Date(now - this.options.acceptedGraceMs));
      // `accepted` rows come only from a gateway or scheduler of before the job outbox (migration
      // 006).
      await this.sweepWaiting(
        ['accepted'],
        new Date(now - this.options.acceptedGraceMs),
        'accepted',
      );
      await this.sweepWaiting(['queued'], new Date(now - this.options.queuedStaleMs), 'queued');
      await this.sweepSubmitting(new Date(now - this.options.submitStaleMs));
    } catch (err) {
      this.logger.error({ err }, 'recovery sweep failed; will try again');
    }
  }

  /**
   * Re-publishes the jobs of job_outbox rows older than the cutoff: their writer committed the
   * messages but never saw the broker confirm their jobs. The rows stay locked until the jobs are
   * confirmed and the rows deleted, so two sweepers never take the same row; a crash before that
   * leaves them for the next sweep, and the duplicate jobs it may publish find nothing to claim.
   */
  private async sweepOutbox(cutoff: Date): Promise<void> {
    for (let round = 0; round < 1000; round++) {
      const found = await this.db.transaction(async (tx) => {
        const ids = await lockJobOutboxRowsBefore(tx, cutoff);
        if (ids.length === 0) return 0;
        const rows = await queuedMessagesOfJobOutbox(tx, ids);
        await publishSubmitJobs(this.bus, rows);
        await deleteJobOutboxRows(tx, ids);
        if (rows.length > 0) {
          this.metrics.swept.inc({ state: 'queued' }, rows.length);
          this.logger.info(
            { count: rows.length },
            're-published jobs whose publish was not confirmed',
          );
        }
        return ids.length;
      });
      if (found < JOB_OUTBOX_ROWS_PER_ROUND) return;
    }
  }

  /**
   * Publishes jobs for messages in the given waiting states last changed and swept before the
   * cutoff.
   */
  private async sweepWaiting(
    states: readonly (typeof WAITING_STATES)[number][],
    cutoff: Date,
    label: string,
  ): Promise<void> {
    const batchSize = this.options.batchSize ?? dispatcherDefaults.sweeper.batchSize;
    for (let round = 0; round < 1000; round++) {
      const rows = await sweepWaitingMessages(this.db, states, cutoff, batchSize);
      if (rows.length === 0) return;
      await this.publishSingles(rows, label);
      if (rows.length < batchSize) return;
    }
  }

  /**
   * Publishes jobs for messages claimed before the cutoff and still `submitting`, once per sweep:
   * they are not marked, so a second round would find the same ones.
   */
  private async sweepSubmitting(cutoff: Date): Promise<void> {
    const rows = await staleSubmittingMessages(
      this.db,
      cutoff,
      this.options.batchSize ?? dispatcherDefaults.sweeper.batchSize,
    );
    if (rows.length > 0) await this.publishSingles(rows, 'submitting');
  }

  private async publishSingles(rows: MessageJobRow[], label: string): Promise<void> {
    for (const row of rows)
      await this.bus.publish(
        TOPICS.messageSubmit,
        { messageId: row.id, accountId: row.account_id, segments: row.segments },
        row.connector,
      );
    this.metrics.swept.inc({ state: label }, rows.length);
    this.logger.info({ count: rows.length, state: label }, 're-published jobs left in flight');
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
