import type { Logger } from '@smsgw/kit';
import type { MessageStore } from './message-store';

/** Where marks can ride along: a statement that runs anyway (AcceptanceBatcher). */
export interface QueuedMarks {
  /** The marks waiting now; the taker runs them, or gives them back with `mark` if its statement fails. */
  take(): string[];
  mark(messageId: string): void;
}

/**
 * Moves messages from `accepted` to `queued` once the broker confirmed their jobs, off the
 * response path: the answer already waited for the commit and the confirm (DESIGN.md promise 1).
 * The mark only tells the recovery sweep that the job exists, so it need not be prompt: under load
 * the marks ride along with the next acceptance statement (no statement or commit of their own),
 * and when no acceptance comes they go alone after `idleFlushMs`. A lost mark (crash, database
 * error) costs one harmless re-publish by the sweep.
 */
export class QueuedMarker implements QueuedMarks {
  private pending: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: MessageStore,
    private readonly logger: Logger,
    private readonly idleFlushMs = 20,
  ) {}

  mark(messageId: string): void {
    this.pending.push(messageId);
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flushAlone(), this.idleFlushMs);
      this.timer.unref();
    }
  }

  take(): string[] {
    const ids = this.pending;
    this.pending = [];
    clearTimeout(this.timer);
    this.timer = undefined;
    return ids;
  }

  /** Writes the marks made so far and waits for them (on shutdown, before the database closes). */
  async drain(): Promise<void> {
    this.flushAlone();
    await this.flushing;
  }

  private flushAlone(): void {
    const ids = this.take();
    if (ids.length === 0) return;
    this.flushing = this.flushing.then(() =>
      this.store.markQueued(ids).catch((err: unknown) => {
        this.logger.warn({ err, messages: ids.length }, 'could not mark messages queued; the sweep will re-publish them');
      }),
    );
  }
}
