/**
 * A rate from readings of a count that only grows, taken on a schedule of their own so that
 * reading the rate changes nothing: whoever asks, and however often, gets the same answer.
 */
export class RateMeter {
  private readings: { at: number; count: number }[] = [];

  constructor(
    /** How far back the rate looks. */
    private readonly spanMs: number,
  ) {}

  /** Records the count now; a count lower than the last (a new session) starts again. */
  sample(count: number, at = Date.now()): void {
    const last = this.readings.at(-1);
    if (last && count < last.count) this.readings = [];
    this.readings.push({ at, count });
    while (this.readings.length > 2 && at - this.readings[1].at >= this.spanMs)
      this.readings.shift();
  }

  /** Counted per second between the oldest and the newest reading kept; 0 before two. */
  perSecond(): number {
    const first = this.readings[0];
    const last = this.readings.at(-1);
    if (!first || !last || last.at === first.at) return 0;
    return ((last.count - first.count) * 1000) / (last.at - first.at);
  }
}
