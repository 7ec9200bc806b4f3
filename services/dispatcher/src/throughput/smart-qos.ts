export interface SmartQosOptions {
  /** The configured rate, the ceiling recovery climbs back to (messages per second). */
  maxRate: number;
  /** Never back off below this. */
  minRate: number;
  /** Share of maxRate regained per second without trouble (additive increase). */
  recoverPerSecond: number;
  /** Factor on ESME_RTHROTTLED (multiplicative decrease). */
  throttleFactor: number;
  /** Factor when the SMSC's answers stay slow for two intervals running. */
  latencyFactor: number;
  /** The latency floor is the lowest interval median of the last one to two of these periods. */
  floorWindowMs: number;
  /** Answers are judged by the median of each interval of this length. */
  intervalMs: number;
  /** An interval with fewer answers than this says nothing about latency. */
  minSamples: number;
}

/**
 * Adapts the submit rate to the SMSC (docs/architecture.md § Throughput caps): multiplicative
 * back-off on throttling, or when the median answer time of two intervals running is well above
 * its recent floor while our own event loop keeps time; additive recovery up to the configured rate;
 * at most one decrease a second.
 * Every method takes the time, so tests run it on a clock of their own.
 */
export class SmartQos {
  private rate: number;
  private lastDecrease = -Infinity;
  private lastTick: number;
  private readonly latency: SlowAnswers;
  private readonly decreases = { throttled: 0, slow: 0 };

  constructor(
    private readonly options: SmartQosOptions,
    now = Date.now(),
    /** Our own event loop's mean delay since the last call (ms): answers wait that long for us. */
    hostDelayMs: () => number = () => 0,
  ) {
    this.rate = options.maxRate;
    this.lastTick = now;
    this.latency = new SlowAnswers(options, now, hostDelayMs);
  }

  current(now = Date.now()): number {
    this.recover(now);
    return this.rate;
  }

  /** Decreases so far, by their cause. */
  decreasesBy(): Readonly<Record<'throttled' | 'slow', number>> {
    return this.decreases;
  }

  onThrottled(now = Date.now()): void {
    this.decrease('throttled', this.options.throttleFactor, now);
  }

  onResponse(latencyMs: number, now = Date.now()): void {
    if (this.latency.add(latencyMs, now)) this.decrease('slow', this.options.latencyFactor, now);
  }

  private decrease(reason: 'throttled' | 'slow', factor: number, now: number): void {
    this.recover(now);
    if (now - this.lastDecrease < 1000) return;
    this.lastDecrease = now;
    this.decreases[reason]++;
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

/**
 * Tells when the SMSC's answers have slowed down. An answer's time includes our own event loop:
 * a busy host stalls it now and then, and every answer that arrives during a stall is late at
 * once. A mean (the smoothed latency this replaced) read each such burst as a slow SMSC and held
 * the rate near a quarter of the ceiling on a busy machine; the median of an interval moves only
 * when most answers are slow, and two intervals running must be.
 */
class SlowAnswers {
  private samples: number[] = [];
  private intervalStart: number;
  private previousSlow = false;
  /** Lowest interval median of the floor period now running and of the one before it. */
  private windowFloorMs: number | undefined;
  private previousFloorMs: number | undefined;
  private windowStart: number;

  constructor(
    private readonly options: SmartQosOptions,
    now: number,
    private readonly hostDelayMs: () => number,
  ) {
    this.intervalStart = now;
    this.windowStart = now;
  }

  /** Records one answer; true when the interval it closes is the second slow one running. */
  add(latencyMs: number, now: number): boolean {
    let slowTwice = false;
    if (now - this.intervalStart >= this.options.intervalMs) {
      slowTwice = this.closeInterval(now);
    }
    this.samples.push(latencyMs);
    return slowTwice;
  }

  private closeInterval(now: number): boolean {
    const samples = this.samples;
    const silent = now - this.intervalStart >= 2 * this.options.intervalMs;
    const hostDelay = this.hostDelayMs();
    this.samples = [];
    this.intervalStart = now;
    if (samples.length < this.options.minSamples) {
      this.previousSlow = false;
      return false;
    }
    const median = medianOf(samples);
    const floor = this.floor(median, now);
    const margin = Math.max(floor, 20);
    // Answers late because our own loop ran late (a saturated or starved host) say nothing about
    // the SMSC: backing off would not make them faster, only hold the rate down.
    if (hostDelay > margin / 2) {
      this.previousSlow = false;
      return false;
    }
    const slow = median > floor + margin;
    // A silence between two intervals breaks the run: the SMSC may have recovered meanwhile.
    const slowTwice = slow && this.previousSlow && !silent;
    this.previousSlow = slow;
    return slowTwice;
  }

  /**
   * The floor forgets what is older than two periods: a floor kept from an idle moment, or from
   * before the SMSC moved farther away, would call every later answer slow and hold the rate at
   * the level where one decrease a second matches the recovery.
   */
  private floor(median: number, now: number): number {
    const elapsed = now - this.windowStart;
    if (elapsed >= this.options.floorWindowMs) {
      // After a silence of two periods and more, nothing seen before it is recent.
      this.previousFloorMs =
        elapsed < 2 * this.options.floorWindowMs ? this.windowFloorMs : undefined;
      this.windowFloorMs = undefined;
      this.windowStart = now;
    }
    this.windowFloorMs = Math.min(this.windowFloorMs ?? median, median);
    return Math.min(this.windowFloorMs, this.previousFloorMs ?? median);
  }
}

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
