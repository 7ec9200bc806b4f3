import { TOPICS, submitGroups, toGroupJob } from '@smsgw/contracts';
import type { Bus, Db, Logger } from '@smsgw/kit';
import { notIndexed } from './message-claims';
import type { DispatcherMetrics } from './metrics';

export interface SweeperOptions {
  intervalMs: number;
  /** A job_outbox row (or an `accepted` message) older than this was committed but its jobs were never confirmed. */
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
    if (this.options.republishQueuedAtStart) {
      // Every queued message gets its job again here, so the outbox rows of before the restart are done.
      await this.db.query(`DELETE FROM job_outbox WHERE created_at <= now()`);
      await this.sweep(`state IN ('accepted', 'queued')`, new Date(), 'queued');
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
      // `accepted` rows come only from a gateway or scheduler of before the job outbox (migration 006).
      await this.sweep(
        `state = 'accepted'`,
        new Date(now - this.options.acceptedGraceMs),
        'accepted',
      );
      await this.sweep(
        `state = 'submitting'`,
        new Date(now - this.options.submitStaleMs),
        'submitting',
      );
    } catch (err) {
      this.logger.warn({ err }, 'recovery sweep failed; will try again');
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
        const { rows: due } = await tx.query<{ id: string }>(
          `SELECT id::text AS id FROM job_outbox WHERE created_at < $1 ORDER BY id LIMIT 50 FOR UPDATE SKIP LOCKED`,
          [cutoff],
        );
        if (due.length === 0) return 0;
        const ids = due.map((r) => r.id);
        const { rows } = await tx.query<{ id: string; account_id: string; segments: number }>(
          `SELECT m.id, m.account_id, m.segments
             FROM messages m
            WHERE m.id IN (SELECT unnest(o.message_ids) FROM job_outbox o WHERE o.id = ANY($1::bigint[]))
              AND ${notIndexed('m.state')} = 'queued'
            ORDER BY m.account_id, m.created_at`,
          [ids],
          { planEachCall: true },
        );
        await Promise.all(this.publishGroups(rows));
        await tx.query(`DELETE FROM job_outbox WHERE id = ANY($1::bigint[])`, [ids]);
        if (rows.length > 0) {
          this.metrics.swept.inc({ state: 'queued' }, rows.length);
          this.logger.info(
            { count: rows.length },
            're-published jobs whose publish was not confirmed',
          );
        }
        return due.length;
      });
      if (found < 50) return;
    }
  }

  private publishGroups(
    rows: { id: string; account_id: string; segments: number }[],
  ): Promise<void>[] {
    const groups = submitGroups(
      rows.map((r) => ({ accountId: r.account_id, messageId: r.id, segments: r.segments })),
    );
    return groups.map((group) => this.bus.publish(TOPICS.messageSubmitGroup, toGroupJob(group)));
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
      for (const row of rows)
        await this.bus.publish(TOPICS.messageSubmit, {
          messageId: row.id,
          accountId: row.account_id,
          segments: row.segments,
        });
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
