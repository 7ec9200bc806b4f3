import { PollingLoop, type Db, type Logger } from '@smsgw/kit';
import {
  analyzeMessagePartition,
  autovacuumEnabled,
  messagePartitionsDueForAnalyze,
} from '@smsgw/store';

export interface PartitionStatisticsSettings {
  intervalMs: number;
  /** A never-analyzed partition is analyzed once it is this large. */
  minBytes: number;
}

/**
 * Keeps the planner's statistics of the messages partitions in step with their size
 * (docs/retention.md § Statistics of a fresh partition): a partition is analyzed once it holds
 * its first rows and again each time it has doubled since. A new partition starts every period,
 * and until Postgres analyzes it the statements that find messages by SMSC id read it whole,
 * which doubles what a message costs in its first minute. One catalog query per round; the
 * analyzes grow with the logarithm of a partition's size.
 */
export class PartitionStatistics {
  private readonly loop: PollingLoop;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly settings: PartitionStatisticsSettings,
  ) {
    this.loop = new PollingLoop(
      async () => {
        await this.round();
      },
      logger,
      'partition statistics',
    );
  }

  /** Warns once when the server runs without autovacuum, then keeps the statistics. */
  async start(): Promise<void> {
    if (!(await autovacuumEnabled(this.db)))
      this.logger.warn(
        'Postgres runs with autovacuum off: dead rows of messages stay and their statistics go stale under load; turn it on (autovacuum = on) as every production server has it',
      );
    this.loop.start(this.settings.intervalMs);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Analyzes the partitions due; answers their names. */
  async round(): Promise<string[]> {
    const due = await messagePartitionsDueForAnalyze(this.db, this.settings.minBytes);
    for (const name of due) {
      await analyzeMessagePartition(this.db, name);
      this.logger.info({ partition: name }, 'message partition analyzed');
    }
    return due;
  }
}
