export interface SmartQosOptions {
  /** The configured rate, the ceiling recovery climbs back to (messages per second). */
  maxRate: number;
  /** Never back off below this. */
  minRate: number;
  /** Share of maxRate regained per second without trouble (additive increase). */
  recoverPerSecond: number;
  /** Factor on ESME_RTHROTTLED (multiplicative decrease). */
  throttleFactor: number;
  /** Factor when SMSC latency rises above twice its observed floor. */
  latencyFactor: number;
}

/**
 * Adapts the submit rate to the SMSC (docs/architecture.md § Throughput caps): multiplicative
 * back-off on throttling or on rising response latency, additive recovery up to the configured
 * rate. Decisions use smoothed latency and at most one decrease per second, so a single slow answer
 * does not move the rate.
 */
export class SmartQos {
  private rate: number;
  private ewmaMs: number | undefined;
  private floorMs: number | undefined;
  private lastDecrease = -Infinity;
  private lastTick: number;

  constructor(
    private readonly options: SmartQosOptions,
    now = Date.now(),
  ) {
    this.rate = options.maxRate;
    this.lastTick = now;
  }

  current(now = Date.now()): number {
    this.recover(now);
    return this.rate;
  }

  onThrottled(now = Date.now()): void {
    this.decrease(this.options.throttleFactor, now);
  }

  onResponse(latencyMs: number, now = Date.now()): void {
    this.ewmaMs = this.ewmaMs === undefined ? latencyMs : this.ewmaMs * 0.9 + latencyMs * 0.1;
    this.floorMs = this.floorMs === undefined ? this.ewmaMs : Math.min(this.floorMs, this.ewmaMs);
    if (this.ewmaMs > Math.max(2 * this.floorMs, this.floorMs + 20))
      this.decrease(this.options.latencyFactor, now);
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
