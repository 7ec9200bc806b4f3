/**
 * The scheduler's built-in tunings, next to the settings it reads from its environment
 * (config.ts).
 */
export const schedulerDefaults = {
  /**
   * How often Postgres is asked for batches that are due or have room to expand; the
   * batch.accepted event only makes a new batch start sooner.
   */
  pollIntervalMs: 250,
  /** Recipients expanded into messages by one statement: one transaction per chunk. */
  chunkSize: 500,
  /**
   * Messages of one batch waiting for the dispatcher before expansion pauses, so a large batch
   * does not fill the queues ahead of other customers' messages.
   */
  maxUnsentPerBatch: 5000,
  /**
   * The stall watch (docs/reliability.md § A stalled batch) records which batches moved and counts
   * the stalled ones and the overdue messages this often at most (more often for a shorter
   * BATCH_STALL_SECONDS).
   */
  stallWatchIntervalMs: 15_000,
  /**
   * Statistics of the messages partitions (docs/retention.md § Statistics of a fresh partition):
   * looked at this often, a never-analyzed one analyzed once it is this large (its first rows).
   */
  partitionStatistics: { intervalMs: 5_000, minBytes: 1_048_576 },
  /**
   * The hourly statistics (docs/operators.md § Statistics): a message not ended three days after
   * its hour began is counted as it is; a round counts 24 slices (hours) at most; the first round
   * looks back a year at most.
   */
  statsRollup: {
    settleAgeMs: 3 * 86_400_000,
    slicesPerRound: 24,
    backfillDays: 366,
  },
  /** Retention (docs/retention.md): partitions are added and old rows removed once an hour. */
  retention: { intervalMs: 3_600_000, deleteChunk: 5000, maxChunksPerRound: 200 },
} as const;
