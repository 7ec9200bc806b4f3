import { TOPICS } from '@smsgw/contracts';
import type { Bus, Db, Logger } from '@smsgw/kit';
import type { DispatcherMetrics } from './metrics';

export interface SweeperOptions {
  intervalMs: number;
  /** An `accepted` message older than this was committed but its job was never confirmed. */
  acceptedGraceMs: number;
  submitStaleMs: number;
  /** The in-process bus keeps nothing across a restart: re-publish `queued` messages once at start. */
  republishQueuedAtStart: boolean;
  batchSize?: number;
}

/**
 * Postgres is the source of truth; this re-publishes work a crash left in flight (DESIGN.md 6).
 * Touching updated_at keeps two sweepers from publishing the same rows in the same round, and
 * the dispatcher's conditional claim makes any duplicate harmless.
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
    if (this.options.republishQueuedAtStart) await this.sweep(`state IN ('accepted', 'queued')`, new Date(), 'queued');
    this.timer = setInterval(() => {
      this.running ??= this.sweepOnce().finally(() => (this.running = undefined));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  async sweepOnce(): Promise<void> {
    try {
      const now = Date.now();
      await this.sweep(`state = 'accepted'`, new Date(now - this.options.acceptedGraceMs), 'accepted');
      await this.sweep(`state = 'submitting'`, new Date(now - this.options.submitStaleMs), 'submitting');
    } catch (err) {
      this.logger.warn({ err }, 'recovery sweep failed; will try again');
    }
  }

  /** Publishes jobs for rows in the given state last touched before the cutoff. */
  private async sweep(condition: string, cutoff: Date, label: string): Promise<void> {
    const batchSize = this.options.batchSize ?? 1000;
    for (let round = 0; round < 1000; round++) {
      const { rows } = await this.db.query<{ id: string; account_id: string; segments: number }>(
        `UPDATE messages SET updated_at = CASE WHEN state = 'submitting' THEN updated_at ELSE now() END
          WHERE id IN (SELECT id FROM messages WHERE ${condition} AND updated_at < $1
                        ORDER BY updated_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED)
          RETURNING id, account_id, segments`,
        [cutoff],
      );
      if (rows.length === 0) return;
      for (const row of rows) await this.bus.publish(TOPICS.messageSubmit, { messageId: row.id, accountId: row.account_id, segments: row.segments });
      this.metrics.swept.inc({ state: label }, rows.length);
      this.logger.info({ count: rows.length, state: label }, 're-published jobs left in flight');
      if (rows.length < batchSize || label === 'submitting') return;
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
