export interface SmartQosOptions {
  /** The configured rate, the ceiling recovery climbs back to (messages per second). */
  maxRate: number;
  /** Never back off below this. */
  minRate: number;
  /** Share of maxRate regained per second without trouble (additive increase). */
  recoverPerSecond: number;
  /** Factor on ESME_RTHROTTLED (multiplicative decrease). */
  throttleFactor: number;
  /** Factor when SMSC latency rises above twice its recent floor. */
  latencyFactor: number;
  /** The latency floor is the lowest smoothed latency of the last one to two of these periods. */
  floorWindowMs: number;
}

/**
 * Adapts the submit rate to the SMSC (docs/architecture.md § Throughput caps): multiplicative
 * back-off on throttling or on response latency rising above its recent floor, additive recovery up
 * to the configured rate. Decisions use smoothed latency and at most one decrease per second, so a single slow answer
 * does not move the rate.
 */
export class SmartQos {
  private rate: number;
  private ewmaMs: number | undefined;
  /** Lowest smoothed latency of the period now running and of the one before it. */
  private windowFloorMs: number | undefined;
  private previousFloorMs: number | undefined;
  private windowStart: number;
  private lastDecrease = -Infinity;
  private lastTick: number;

  constructor(
    private readonly options: SmartQosOptions,
    now = Date.now(),
  ) {
    this.rate = options.maxRate;
    this.lastTick = now;
    this.windowStart = now;
  }

  current(now = Date.now()): number {
    this.recover(now);
    return this.rate;
  }

  onThrottled(now = Date.now()): void {
    this.decrease(this.options.throttleFactor, now);
  }

  onResponse(latencyMs: number, now = Date.now()): void {
    const ewma = this.ewmaMs === undefined ? latencyMs : this.ewmaMs * 0.9 + latencyMs * 0.1;
    this.ewmaMs = ewma;
    const floor = this.floor(ewma, now);
    if (ewma > Math.max(2 * floor, floor + 20)) this.decrease(this.options.latencyFactor, now);
  }

  /**
   * The floor forgets what is older than two periods: a floor kept from an idle moment, or from
   * before the SMSC moved farther away, would call every later answer slow and hold the rate at
   * the level where one decrease a second matches the recovery.
   */
  private floor(ewma: number, now: number): number {
    const elapsed = now - this.windowStart;
    if (elapsed >= this.options.floorWindowMs) {
      // After a silence of two periods and more, nothing seen before it is recent.
      this.previousFloorMs =
        elapsed < 2 * this.options.floorWindowMs ? this.windowFloorMs : undefined;
      this.windowFloorMs = undefined;
      this.windowStart = now;
    }
    this.windowFloorMs = Math.min(this.windowFloorMs ?? ewma, ewma);
    return Math.min(this.windowFloorMs, this.previousFloorMs ?? ewma);
  }

  private decrease(factor: number, now: number): void {
    this.recover(now);
    if (now - this.lastDecrease < 1000) return;
    this.lastDecrease = now;
    this.rate = Math.max(this.options.minRate, this.rate * factor);
  }

  private recover(now: number): void {
    // No recovery in the second after a decrease; after it, +recoverPerSecond of the ceiling per
    // second.
    const from = Math.max(this.lastTick, this.lastDecrease + 1000);
    this.lastTick = now;
    const seconds = (now - from) / 1000;
    if (seconds <= 0) return;
    this.rate = Math.min(
      this.options.maxRate,
      this.rate + this.options.maxRate * this.options.recoverPerSecond * seconds,
    );
  }
}
