/**
 * Group commit: calls that arrive while a flush is in flight wait and go together in the next one,
 * so under load one round trip serves many callers, and an idle caller goes at once (no timer).
 * `flush` answers one result per item, in order; if it throws, every caller of that group gets
 * the error and the other groups are unaffected.
 */
export class GroupCommit<T, R> {
  private queue: { item: T; resolve: (result: R) => void; reject: (err: unknown) => void }[] = [];
  private inFlight = 0;
  private inFlightItems = 0;
  private kickScheduled = false;

  constructor(
    private readonly flush: (items: T[]) => Promise<R[]>,
    private readonly options: { maxSize: number; concurrency?: number } = { maxSize: 500 },
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
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
