/**
 * Per queue, how long the job this process took from it most recently had waited there: the
 * consumer-lag metric (docs/metrics.md). Only first deliveries count: a retry's wait includes its
 * backoff delay, which is the retry policy working, not the consumer falling behind.
 */
export class ConsumerLag {
  private readonly waits = new Map<string, number>();

  /**
   * @param publishedAtMs when the job entered the queue (epoch ms)
   * @param nowMs the time taken, at the same resolution as publishedAtMs
   */
  taken(queue: string, publishedAtMs: number, attempt: number, nowMs = Date.now()): void {
    if (attempt !== 1 || !Number.isFinite(publishedAtMs)) return;
    this.waits.set(queue, Math.max(0, nowMs - publishedAtMs) / 1000);
  }

  seconds(queue: string): number {
    return this.waits.get(queue) ?? 0;
  }
}
