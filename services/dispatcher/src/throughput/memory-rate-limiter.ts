import { gcraReserve } from './gcra';
import { BURST, type RateCap, type RateLimiter } from './rate-limiter';

/** Embedded mode: the same algorithm, in this process's memory. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly tats = new Map<string, number>();

  reserve(caps: readonly RateCap[], cost: number): Promise<number> {
    const now = Date.now();
    let wait = 0;
    for (const cap of caps) {
      const result = gcraReserve(this.tats.get(cap.key), now, cap.perSecond, cost, BURST);
      this.tats.set(cap.key, result.tat);
      wait = Math.max(wait, result.waitMs);
    }
    return Promise.resolve(wait);
  }

  isReady(): boolean {
    return true;
  }

  async close(): Promise<void> {}
}
