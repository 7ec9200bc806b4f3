import type { Logger } from '@smsgw/kit';
import type { MessageStore } from './message-store';

/**
 * The gateway's side of job_outbox (migration 006). An acceptance statement writes its messages
 * `queued` and one outbox row naming them; once the broker confirmed every job of that row, the
 * row is deleted (MessageIntake answers without waiting for that). The deletion only tells the
 * recovery sweep that the jobs exist, so it need not be prompt: under load it rides along with the
 * next acceptance statement (no statement or commit of its own), and when no acceptance comes it
 * goes alone after `idleFlushMs`. A row whose publish failed, or that a crash left, is re-published
 * by the dispatcher's sweep; the duplicate jobs that may cause find nothing left to claim.
 */
export class JobOutbox {
  /** Outbox row → jobs of it not confirmed yet. */
  private readonly open = new Map<string, number>();
  private done: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: MessageStore,
    private readonly logger: Logger,
    private readonly idleFlushMs = 20,
  ) {}

  /** A statement committed `jobs` messages under this row. */
  opened(outboxId: string, jobs: number): void {
    this.open.set(outboxId, (this.open.get(outboxId) ?? 0) + jobs);
  }

  /** The broker confirmed one job of the row. */
  confirmed(outboxId: string): void {
    const left = this.open.get(outboxId);
    if (left === undefined) return; // a job of it failed: the row stays for the sweep
    if (left > 1) {
      this.open.set(outboxId, left - 1);
      return;
    }
    this.open.delete(outboxId);
    this.giveBack([outboxId]);
  }

  /** A job of the row could not be published: the row stays, and the sweep publishes its jobs. */
  failed(outboxId: string): void {
    this.open.delete(outboxId);
  }

  /** Rows to delete with the next statement (or alone after `idleFlushMs`). */
  giveBack(outboxIds: readonly string[]): void {
    this.done.push(...outboxIds);
    if (this.timer === undefined && this.done.length > 0) {
      this.timer = setTimeout(() => this.flushAlone(), this.idleFlushMs);
      this.timer.unref();
    }
  }

  /** The rows to delete now; the taker deletes them, or gives them back if its statement fails. */
  take(): string[] {
    const ids = this.done;
    this.done = [];
    clearTimeout(this.timer);
    this.timer = undefined;
    return ids;
  }

  /** Deletes the rows done so far and waits for it (on shutdown, before the database closes). */
  async drain(): Promise<void> {
    this.flushAlone();
    await this.flushing;
  }

  private flushAlone(): void {
    const ids = this.take();
    if (ids.length === 0) return;
    this.flushing = this.flushing.then(() =>
      this.store.clearOutbox(ids).catch((err: unknown) => {
        this.logger.warn(
          { err, rows: ids.length },
          'could not delete job outbox rows; the sweep will re-publish their jobs',
        );
      }),
    );
  }
}
