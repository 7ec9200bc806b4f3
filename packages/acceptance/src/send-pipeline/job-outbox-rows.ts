import type { Logger } from '@smsgw/kit';
import { acceptanceDefaults } from '../defaults';
import type { MessageStore } from '../message-store';

/**
 * The gateway's side of job_outbox. An acceptance statement writes its messages `queued` and one
 * outbox row naming them; once the broker confirmed every job of that row, the row is deleted.
 * The deletion only tells the recovery sweep that the jobs exist, so it need not be prompt: under
 * load it rides along with the next acceptance statement (no statement or commit of its own), and
 * when no acceptance comes it goes alone after `idleFlushMs`. A row whose publish failed, or that a
 * crash left, is re-published by the dispatcher's sweep; the duplicate jobs that may cause find
 * nothing left to claim.
 */
export class JobOutboxRows {
  /** Outbox row → jobs of it the broker has not confirmed yet. */
  private readonly unconfirmed = new Map<string, number>();
  /** Rows whose jobs are all confirmed, waiting for a statement that deletes them. */
  private toDelete: string[] = [];
  private idleTimer: NodeJS.Timeout | undefined;
  private deletingAlone: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Pick<MessageStore, 'deleteOutboxRows'>,
    private readonly logger: Logger,
    private readonly idleFlushMs: number = acceptanceDefaults.sendPipeline.outboxIdleFlushMs,
  ) {}

  /** A statement committed `jobs` messages under this row. */
  committed(outboxId: string, jobs: number): void {
    this.unconfirmed.set(outboxId, (this.unconfirmed.get(outboxId) ?? 0) + jobs);
  }

  /** The broker confirmed one job of the row; after its last, the row is deleted. */
  jobConfirmed(outboxId: string): void {
    const left = this.unconfirmed.get(outboxId);
    if (left === undefined) return; // a job of it failed: the row stays for the sweep
    if (left > 1) {
      this.unconfirmed.set(outboxId, left - 1);
      return;
    }
    this.unconfirmed.delete(outboxId);
    this.deleteLater([outboxId]);
  }

  /** A job of the row could not be published: the row stays, and the sweep publishes its jobs. */
  jobFailed(outboxId: string): void {
    this.unconfirmed.delete(outboxId);
  }

  /**
   * The rows to delete now, for a statement that deletes them with its own work. If that statement
   * fails, it hands them back through `deletionFailed`.
   */
  takeDeletions(): string[] {
    const ids = this.toDelete;
    this.toDelete = [];
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    return ids;
  }

  /** The statement that was to delete these rows rolled back: they go with the next one (or alone). */
  deletionFailed(outboxIds: readonly string[]): void {
    this.deleteLater(outboxIds);
  }

  /** Deletes the rows done so far and waits for it (on shutdown, before the database closes). */
  async flushDeletions(): Promise<void> {
    this.deleteAlone();
    await this.deletingAlone;
  }

  /** With the next statement, or alone after `idleFlushMs` if none comes. */
  private deleteLater(outboxIds: readonly string[]): void {
    this.toDelete.push(...outboxIds);
    if (this.idleTimer === undefined && this.toDelete.length > 0) {
      this.idleTimer = setTimeout(() => this.deleteAlone(), this.idleFlushMs);
      this.idleTimer.unref();
    }
  }

  private deleteAlone(): void {
    const ids = this.takeDeletions();
    if (ids.length === 0) return;
    this.deletingAlone = this.deletingAlone.then(() =>
      this.store.deleteOutboxRows(ids).catch((err: unknown) => {
        this.logger.warn(
          { err, rows: ids.length },
          'could not delete job outbox rows; the sweep will re-publish their jobs',
        );
      }),
    );
  }
}
