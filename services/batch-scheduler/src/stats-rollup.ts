import { PollingLoop, type Db, type Logger } from '@smsgw/kit';
import {
  HOUR_MS,
  addStatsHours,
  deleteStatsBefore,
  dueStatsHours,
  firstMessageHour,
  hourOf,
  lastStatsHour,
  rollStatsHour,
  unsettledStatsHours,
  type RollOptions,
} from '@smsgw/store';
import type { Counter } from 'prom-client';

const DAY_MS = 24 * HOUR_MS;

export interface StatsRollupSettings {
  /** STATS_ROLLUP_SECONDS: how often a round runs. */
  intervalMs: number;
  /** An hour settles once it ended this long ago with none of its messages unended (clock skew). */
  graceMs: number;
  /** An hour settles once it is this old, whatever its messages: receipts that never come. */
  settleAgeMs: number;
  /** The longest an unsettled hour waits between two counts. */
  maxWaitMs: number;
  /** Hours one round counts at most, so a backlog is worked off over several rounds. */
  hoursPerRound: number;
  /** How far back the first round looks for messages at most. */
  backfillDays: number;
  /** CDR_RETENTION_DAYS: hours older than this are deleted; undefined keeps them. */
  cdrRetentionDays: number | undefined;
}

export interface StatsRollupMetrics {
  /** Hour counts by outcome: counted (still open), settled. */
  statsHours: Counter;
}

/** What one round did, for its log and its tests. */
export interface StatsRound {
  added: number;
  counted: number;
  settled: number;
  deleted: number;
}

/**
 * Keeps the hourly statistics (docs/operators.md § Statistics): each round gives every hour up to
 * now its row, then counts the due unsettled hours again from their messages, newest first and a
 * bounded number of them. Schedulers take turns by hour: each hour's count locks its row and
 * passes by one locked by another.
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
    const added = await this.addHours(now);
    let counted = 0;
    let settled = 0;
    const due = await dueStatsHours(
      this.db,
      now,
      this.settings.maxWaitMs,
      this.settings.hoursPerRound,
    );
    for (const { hour, rolled_at } of due) {
      const roll = await rollStatsHour(this.db, hour, {
        ...this.rollOptions(now),
        seenRolledAt: rolled_at,
      });
      if (!roll.counted) continue;
      counted++;
      if (roll.settled) settled++;
      this.metrics.statsHours.inc({ outcome: roll.settled ? 'settled' : 'counted' });
    }
    const deleted = await this.deleteOld(now);
    const round = { added, counted, settled, deleted };
    if (added + counted + deleted > 0) this.logger.debug(round, 'statistics rolled up');
    return round;
  }

  /**
   * The last count of the hours from `from` to `to`, whose messages are about to be dropped
   * (message-retention.ts): each unsettled one is counted and settled, so the statistics outlive
   * their messages.
   */
  async settleBeforeDrop(from: Date, to: Date, now = new Date()): Promise<number> {
    const first = hourOf(from);
    const last = hourOf(new Date(to.getTime() - 1));
    await addStatsHours(this.db, this.keptFrom(now, first), last);
    let settled = 0;
    for (const hour of await unsettledStatsHours(this.db, first, to)) {
      const roll = await rollStatsHour(this.db, hour, { ...this.rollOptions(now), final: true });
      if (!roll.counted) continue;
      settled++;
      this.metrics.statsHours.inc({ outcome: 'settled' });
    }
    if (settled > 0)
      this.logger.info(
        { from: from.toISOString(), to: to.toISOString(), hours: settled },
        'statistics settled before their messages are dropped',
      );
    return settled;
  }

  private rollOptions(now: Date): RollOptions {
    return { now, graceMs: this.settings.graceMs, settleAgeMs: this.settings.settleAgeMs };
  }

  /** The first hour kept: none before CDR_RETENTION_DAYS. */
  private keptFrom(now: Date, hour: Date): Date {
    const days = this.settings.cdrRetentionDays;
    if (days === undefined) return hour;
    const cutoff = hourOf(new Date(now.getTime() - days * DAY_MS));
    return hour.getTime() < cutoff.getTime() ? cutoff : hour;
  }

  /**
   * Rows for the hours after the newest one up to the current hour; the first round starts at the
   * oldest message's hour, at most backfillDays back.
   */
  private async addHours(now: Date): Promise<number> {
    const current = hourOf(now);
    const last = await lastStatsHour(this.db);
    let from: Date | undefined;
    if (last !== undefined) from = new Date(last.getTime() + HOUR_MS);
    else {
      const oldest = await firstMessageHour(this.db);
      const bound = hourOf(new Date(now.getTime() - this.settings.backfillDays * DAY_MS));
      from = oldest === undefined || oldest.getTime() > current.getTime() ? current : oldest;
      if (from.getTime() < bound.getTime()) from = bound;
    }
    from = this.keptFrom(now, from);
    if (from.getTime() > current.getTime()) return 0;
    return addStatsHours(this.db, from, current);
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
      this.logger.info({ hours: deleted }, 'statistics past CDR_RETENTION_DAYS deleted');
    return deleted;
  }
}
