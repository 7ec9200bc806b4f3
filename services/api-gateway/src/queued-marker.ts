import { GroupCommit, type Logger } from '@smsgw/kit';
import type { MessageStore } from './message-store';

/**
 * Moves messages from `accepted` to `queued` once the broker confirmed their jobs, in groups (one
 * UPDATE per group) and off the response path: the answer already waited for the commit and the
 * confirm (DESIGN.md promise 1). The mark only tells the recovery sweep that the job exists; a
 * mark that is lost (crash, database error) costs one harmless re-publish by the sweep.
 */
export class QueuedMarker {
  private readonly groups: GroupCommit<string, void>;
  /** Groups run one at a time in arrival order, so the newest mark settles last. */
  private newest: Promise<void> = Promise.resolve();

  constructor(store: MessageStore, logger: Logger, options: { maxGroupSize?: number } = {}) {
    this.groups = new GroupCommit(
      async (ids) => {
        try {
          await store.markQueued(ids);
        } catch (err) {
          logger.warn({ err, messages: ids.length }, 'could not mark messages queued; the sweep will re-publish them');
        }
        return ids.map(() => undefined);
      },
      { maxSize: options.maxGroupSize ?? 1000 },
    );
  }

  mark(messageId: string): void {
    this.newest = this.groups.add(messageId);
  }

  /** Waits for the marks made so far (on shutdown, before the database closes). */
  async drain(): Promise<void> {
    let newest: Promise<void>;
    do {
      newest = this.newest;
      await newest;
    } while (newest !== this.newest);
  }
}
