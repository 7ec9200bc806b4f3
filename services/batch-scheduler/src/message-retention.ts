import { PollingLoop, type Db, type Logger } from '@smsgw/kit';
import {
  addMessagePartition,
  clearDefaultMessagePartitions,
  deleteCdrsBefore,
  deleteFinishedBatchesBefore,
  deleteInboundBefore,
  dropMessagePartition,
  listMessagePartitions,
} from '@smsgw/store';
import type { Counter } from 'prom-client';

const DAY_MS = 86_400_000;

export interface RetentionSettings {
  /** Messages older than this many days are removed; undefined keeps them. */
  retentionDays: number | undefined;
  intervalMs: number;
  /** Rows of inbound_messages, batches or cdrs one statement removes. */
  deleteChunk: number;
  /** CDRs older than this many days are removed (CDR_RETENTION_DAYS); undefined keeps them. */
  cdrRetentionDays?: number | undefined;
  /** Statements of one round per table, so that a backlog is worked off over several rounds. */
  maxChunksPerRound: number;
}

export interface RetentionMetrics {
  expired: Counter;
}

/** The statistics' last count of a period before its messages are dropped (stats-rollup.ts). */
export interface BeforeDrop {
  settleBeforeDrop(from: Date, to: Date, now: Date): Promise<unknown>;
}

/**
 * How many days one partition covers: about seven partitions hold the retained period, so a
 * statement that cannot pick its partition by id (a receipt matched by SMSC id) reads few of
 * them. Without retention, one per 30 days.
 */
export function partitionDays(retentionDays: number | undefined): number {
  return retentionDays === undefined ? 30 : Math.max(1, Math.ceil(retentionDays / 7));
}

function startOfUtcDay(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

/**
 * Keeps the partitions of messages ahead of time and, with MESSAGE_RETENTION_DAYS, removes what is
 * older (docs/retention.md): periods whose end is past the retention are dropped whole, inbound
 * messages and finished batches are deleted in chunks. The credit ledger is never touched. CDRs
 * (their periods' drops keep them) are deleted in chunks past CDR_RETENTION_DAYS.
 */
export class MessageRetention {
  private readonly loop: PollingLoop;
  private lastDefaultCheck = 0;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly metrics: RetentionMetrics,
    private readonly settings: RetentionSettings,
    private readonly stats?: BeforeDrop,
  ) {
    this.loop = new PollingLoop(() => this.round(), logger, 'message retention');
  }

  start(): void {
    this.loop.start(this.settings.intervalMs);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  async round(now = new Date()): Promise<void> {
    await this.addAhead(now);
    const cdrDays = this.settings.cdrRetentionDays;
    if (cdrDays !== undefined) {
      const cdrCutoff = new Date(now.getTime() - cdrDays * DAY_MS);
      await this.deleteInChunks('cdrs', () =>
        deleteCdrsBefore(this.db, cdrCutoff, this.settings.deleteChunk),
      );
    }
    const days = this.settings.retentionDays;
    if (days === undefined) return;
    const cutoff = new Date(now.getTime() - days * DAY_MS);
    await this.dropExpired(cutoff, now);
    if (now.getTime() - this.lastDefaultCheck >= DAY_MS) {
      this.lastDefaultCheck = now.getTime();
      const cleared = await clearDefaultMessagePartitions(this.db, cutoff);
      if (cleared > 0) {
        this.metrics.expired.inc(cleared);
        this.logger.info({ messages: cleared }, 'default message partitions cleared');
      }
    }
    await this.deleteInChunks('inbound_messages', () =>
      deleteInboundBefore(this.db, cutoff, this.settings.deleteChunk),
    );
    await this.deleteInChunks('batches', () =>
      deleteFinishedBatchesBefore(this.db, cutoff, this.settings.deleteChunk),
    );
  }

  /**
   * Partitions cover the period after the current one, so no message waits on this loop; not more,
   * as every statement that cannot pick its partition by id pays for each one there is.
   */
  private async addAhead(now: Date): Promise<void> {
    const width = partitionDays(this.settings.retentionDays) * DAY_MS;
    const existing = await listMessagePartitions(this.db);
    let from = existing.at(-1)?.to_at ?? startOfUtcDay(now);
    // Bounded: a scheduler stopped for years catches up by one long period, not thousands.
    if (from.getTime() < startOfUtcDay(now).getTime() - 2 * width) {
      const to = startOfUtcDay(now);
      await this.add(from, to);
      from = to;
    }
    while (from.getTime() < now.getTime() + width) {
      const to = new Date(from.getTime() + width);
      await this.add(from, to);
      from = to;
    }
  }

  private async add(from: Date, to: Date): Promise<void> {
    if (await addMessagePartition(this.db, from, to)) {
      this.logger.info(
        { from: from.toISOString(), to: to.toISOString() },
        'message partition added',
      );
    }
  }

  private async dropExpired(cutoff: Date, now: Date): Promise<void> {
    for (const partition of await listMessagePartitions(this.db)) {
      if (partition.to_at.getTime() > cutoff.getTime()) break;
      await this.stats?.settleBeforeDrop(partition.from_at, partition.to_at, now);
      const dropped = await dropMessagePartition(this.db, partition.suffix);
      if (dropped === undefined) continue;
      this.metrics.expired.inc(dropped);
      this.logger.info(
        { partition: partition.suffix, messages: dropped },
        'message partition past retention dropped',
      );
    }
  }

  private async deleteInChunks(what: string, chunk: () => Promise<number>): Promise<void> {
    let total = 0;
    for (let i = 0; i < this.settings.maxChunksPerRound; i++) {
      const n = await chunk();
      total += n;
      if (n < this.settings.deleteChunk) break;
    }
    if (total > 0) this.logger.info({ table: what, rows: total }, 'rows past retention deleted');
  }
}
