import { TOPICS, submitGroups, toGroupJob } from '@smsgw/contracts';
import { PollingLoop, type Bus, type Logger } from '@smsgw/kit';
import type { BatchExpander } from './batch-expander';
import type { SchedulerMetrics } from './metrics';

export interface BatchSchedulerOptions {
  /** How often Postgres is asked for due batches (scheduled ones become due without an event). */
  pollIntervalMs: number;
}

/**
 * Releases due batches: expands them chunk by chunk and publishes their messages' jobs in groups. Woken by
 * batch.accepted events and by a timer; Postgres, not memory, holds what is scheduled.
 */
export class BatchScheduler {
  private readonly loop: PollingLoop;

  constructor(
    private readonly expander: BatchExpander,
    private readonly bus: Bus,
    private readonly logger: Logger,
    private readonly metrics: SchedulerMetrics,
    private readonly options: BatchSchedulerOptions,
  ) {
    this.loop = new PollingLoop(() => this.round(), logger, 'scheduler round');
  }

  start(): void {
    this.loop.start(this.options.pollIntervalMs);
  }

  /** Runs a round now, or right after the one in progress. */
  wake(): void {
    this.loop.wake();
  }

  private async round(): Promise<void> {
    // Bounded, so a stop request is seen between chunks.
    for (let i = 0; i < 10_000 && !this.loop.isStopped; i++) {
      const chunk = await this.expander.expandChunk();
      if (!chunk) break;
      const groups = submitGroups(
        chunk.messages.map((m) => ({
          accountId: chunk.accountId,
          messageId: m.id,
          segments: m.segments,
          connector: m.connector,
        })),
      );
      await Promise.all(
        groups.map((group) =>
          this.bus.publish(TOPICS.messageSubmitGroup, toGroupJob(group), group[0].connector),
        ),
      );
      await this.expander.clearOutbox(chunk.outboxId);
      this.metrics.expanded.inc(chunk.messages.length);
      if (chunk.last) this.logger.info({ batchId: chunk.batchId }, 'batch fully expanded');
    }
    for (const batchId of await this.expander.completeFinished()) {
      this.metrics.completed.inc();
      this.logger.info({ batchId }, 'batch completed');
    }
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
