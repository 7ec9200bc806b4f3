/**
 * Group commit: calls that arrive while a flush is in flight wait and go together in the next one,
 * so under load one round trip serves many callers, and an idle caller goes at once (no timer).
 * With `lingerMs`, a group also waits that long after its first call for others to join (a full
 * group goes at once): for work whose callers can wait, where fewer, larger statements save more
 * than the wait costs. `flush` answers one result per item, in order; if it throws, every caller
 * of that group gets the error and the other groups are unaffected.
 */
export class GroupCommit<T, R> {
  private queue: {
    item: T;
    resolve: (result: R) => void;
    reject: (err: unknown) => void;
    at: number;
  }[] = [];
  private inFlight = 0;
  private inFlightItems = 0;
  private kickScheduled = false;
  private lingerTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly flush: (items: T[]) => Promise<R[]>,
    private readonly options: { maxSize: number; concurrency?: number; lingerMs?: number } = {
      maxSize: 500,
    },
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject, at: this.options.lingerMs ? performance.now() : 0 });
      // Callers of the same tick join one group instead of the first going alone.
      if (!this.kickScheduled) {
        this.kickScheduled = true;
        queueMicrotask(() => {
          this.kickScheduled = false;
          this.kick();
        });
      }
    });
  }

  /** Calls waiting or in flight. */
  get size(): number {
    return this.queue.length + this.inFlightItems;
  }

  private kick(): void {
    while (this.inFlight < (this.options.concurrency ?? 1) && this.queue.length > 0) {
      if (this.lingers()) return;
      const group = this.queue.splice(0, this.options.maxSize);
      this.inFlight++;
      this.inFlightItems += group.length;
      void this.run(group).finally(() => {
        this.inFlight--;
        this.inFlightItems -= group.length;
        this.kick();
      });
    }
  }

  /** Whether the next group is still lingering; if so, a timer kicks it when the wait is over. */
  private lingers(): boolean {
    const lingerMs = this.options.lingerMs ?? 0;
    const left = lingerMs - (performance.now() - this.queue[0].at);
    if (lingerMs === 0 || left <= 0 || this.queue.length >= this.options.maxSize) {
      clearTimeout(this.lingerTimer);
      this.lingerTimer = undefined;
      return false;
    }
    this.lingerTimer ??= setTimeout(() => {
      this.lingerTimer = undefined;
      this.kick();
    }, left);
    return true;
  }

  private async run(group: GroupCommit<T, R>['queue']): Promise<void> {
    try {
      const results = await this.flush(group.map((g) => g.item));
      if (results.length !== group.length)
        throw new Error(`group flush answered ${results.length} results for ${group.length} items`);
      group.forEach((g, i) => g.resolve(results[i]));
    } catch (err) {
      for (const g of group) g.reject(err);
    }
  }
}
