import { PollingLoop, type Db, type Logger } from '@smsgw/kit';
import {
  HOUR_MS,
  countPendingStats,
  countStatsSlice,
  deleteStatsBefore,
  firstMessageHour,
  hourOf,
  statsWatermark,
} from '@smsgw/store';
import type { Counter } from 'prom-client';
import type { StatsOutcome } from './metrics';

const DAY_MS = 24 * HOUR_MS;

export interface StatsRollupSettings {
  /** STATS_ROLLUP_SECONDS: how often a round runs. */
  intervalMs: number;
  /**
   * STATS_LAG_SECONDS: messages are counted once they are this old, so that those still being
   * written (and the gateways' clocks) are not passed by.
   */
  lagMs: number;
  /** A message not ended this long after its hour began is counted as it is: its hour is final. */
  settleAgeMs: number;
  /** Slices (each within one hour) one round counts at most, so a backlog takes several rounds. */
  slicesPerRound: number;
  /** How far back the first round looks for messages at most. */
  backfillDays: number;
  /** CDR_RETENTION_DAYS: hours older than this are deleted; undefined keeps them. */
  cdrRetentionDays: number | undefined;
}

export interface StatsRollupMetrics {
  /**
   * Messages by outcome: counted (ended when their slice was counted), pending (not yet ended
   * then), late (a pending one counted once it ended), settled (a pending one counted as it was).
   */
  statsMessages: Counter;
}

/** What one round did, for its log and its tests. */
export interface StatsRound {
  slices: number;
  counted: number;
  pending: number;
  late: number;
  settled: number;
  deleted: number;
}

/**
 * Keeps the hourly statistics (docs/operators.md § Statistics): each round counts the messages
 * accepted since the watermark up to STATS_LAG_SECONDS ago, slice by slice, then the pending
 * messages that have ended since. Each message is so counted once, a straggler when it ends.
 * Schedulers take turns on the watermark's row: one that finds it locked passes by.
 */
export class StatsRollup {
  private readonly loop: PollingLoop;
  private lastDelete = 0;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly metrics: StatsRollupMetrics,
    private readonly settings: StatsRollupSettings,
  ) {
    this.loop = new PollingLoop(
      async () => {
        await this.round();
      },
      logger,
      'statistics rollup',
    );
  }

  start(): void {
    this.loop.start(this.settings.intervalMs);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  async round(now = new Date()): Promise<StatsRound> {
    const until = new Date(now.getTime() - this.settings.lagMs);
    const round = { ...(await this.countSlices(now, until, false)), late: 0, settled: 0 };
    const pending = await countPendingStats(this.db, {
      now,
      settleBefore: new Date(now.getTime() - this.settings.settleAgeMs),
    });
    if (pending) {
      round.late = pending.ended;
      round.settled = pending.settled;
      this.count('late', pending.ended);
      this.count('settled', pending.settled);
    }
    const done = { ...round, deleted: await this.deleteOld(now) };
    if (done.slices + done.late + done.settled + done.deleted > 0)
      this.logger.debug(done, 'statistics rolled up');
    return done;
  }

  /**
   * The last count of the messages accepted from `from` to `to`, which are about to be dropped
   * (message-retention.ts): the watermark is brought past `to`, then the pending messages of those
   * hours are counted as they are, so the statistics outlive their messages.
   */
  async settleBeforeDrop(from: Date, to: Date, now = new Date()): Promise<number> {
    const until = new Date(Math.min(to.getTime(), now.getTime() - this.settings.lagMs));
    for (;;) {
      const watermark = await statsWatermark(this.db);
      if (watermark !== undefined && watermark.getTime() >= until.getTime()) break;
      const counted = await this.countSlices(now, until, true);
      if (counted.slices === 0) break;
    }
    const pending = await countPendingStats(this.db, { now, settleBefore: to, wait: true });
    const settled = pending?.settled ?? 0;
    this.count('settled', settled);
    if (settled > 0)
      this.logger.info(
        { from: from.toISOString(), to: to.toISOString(), messages: settled },
        'statistics settled before their messages are dropped',
      );
    return settled;
  }

  private count(outcome: StatsOutcome, n: number): void {
    if (n > 0) this.metrics.statsMessages.inc({ outcome }, n);
  }

  /** Counts slices up to `until`, slicesPerRound of them at most. */
  private async countSlices(
    now: Date,
    until: Date,
    wait: boolean,
  ): Promise<{ slices: number; counted: number; pending: number }> {
    const floor = await this.floor(now);
    const done = { slices: 0, counted: 0, pending: 0 };
    while (done.slices < this.settings.slicesPerRound) {
      const slice = await countStatsSlice(this.db, { until, floor, wait });
      if (!slice) break;
      done.slices++;
      done.counted += slice.counted;
      done.pending += slice.pending;
      this.count('counted', slice.counted);
      this.count('pending', slice.pending);
      if (slice.to.getTime() >= until.getTime()) break;
    }
    return done;
  }

  /**
   * Where counting may start: nothing before CDR_RETENTION_DAYS; before the first slice, the
   * oldest message's hour, at most backfillDays back.
   */
  private async floor(now: Date): Promise<Date> {
    let floor = hourOf(new Date(now.getTime() - this.settings.backfillDays * DAY_MS));
    const days = this.settings.cdrRetentionDays;
    const kept = days === undefined ? undefined : hourOf(new Date(now.getTime() - days * DAY_MS));
    if (kept !== undefined && kept.getTime() > floor.getTime()) floor = kept;
    if ((await statsWatermark(this.db)) === undefined) {
      const oldest = (await firstMessageHour(this.db)) ?? hourOf(now);
      if (oldest.getTime() > floor.getTime()) floor = oldest;
    }
    return floor;
  }

  /** Hours past CDR_RETENTION_DAYS are deleted, once an hour at most. */
  private async deleteOld(now: Date): Promise<number> {
    const days = this.settings.cdrRetentionDays;
    if (days === undefined || now.getTime() - this.lastDelete < HOUR_MS) return 0;
    this.lastDelete = now.getTime();
    const deleted = await deleteStatsBefore(
      this.db,
      hourOf(new Date(now.getTime() - days * DAY_MS)),
    );
    if (deleted > 0)
      this.logger.info({ rows: deleted }, 'statistics past CDR_RETENTION_DAYS deleted');
    return deleted;
  }
}
