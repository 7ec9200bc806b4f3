/**
 * How late this process's own event loop runs: an SMSC answer waits that long before we read it,
 * so Smart QoS must not take it for the SMSC's pace. A timer of our own rather than
 * `monitorEventLoopDelay`, which misses a block inside a timer callback (docs/decisions.md).
 */
export class EventLoopLag {
  private static readonly everyMs = 10;
  private last = process.hrtime.bigint();
  private lateMs = 0;
  private turns = 0;
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.timer = setInterval(() => {
      const now = process.hrtime.bigint();
      this.lateMs += Math.max(0, Number(now - this.last) / 1e6 - EventLoopLag.everyMs);
      this.turns++;
      this.last = now;
    }, EventLoopLag.everyMs);
    this.timer.unref();
  }

  /** The loop's mean delay since the last call (ms); 0 before any turn. */
  meanMsSinceLast(): number {
    const mean = this.turns > 0 ? this.lateMs / this.turns : 0;
    this.lateMs = 0;
    this.turns = 0;
    return mean;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
