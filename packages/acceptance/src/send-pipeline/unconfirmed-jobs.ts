/**
 * The jobs published and not yet confirmed (or failed) by the broker. The answer to a send does
 * not wait for its confirm, so this is what shutdown waits for, and what bounds the memory a slow
 * broker can fill.
 */
export class UnconfirmedJobs {
  private readonly waiting = new Set<Promise<void>>();

  constructor(private readonly max: number) {}

  /** Tracks a job until the broker answered; `settled` never rejects. */
  add(settled: Promise<void>): void {
    this.waiting.add(settled);
    void settled.finally(() => this.waiting.delete(settled));
  }

  /** More than `max` jobs wait for the broker: the caller should wait for its own. */
  get overLimit(): boolean {
    return this.waiting.size > this.max;
  }

  get size(): number {
    return this.waiting.size;
  }

  /** Waits for the broker's answer to every job tracked so far. */
  async settled(): Promise<void> {
    await Promise.all([...this.waiting]);
  }
}
