import { SUBMIT_GROUP_MAX } from '@smsgw/contracts';

/**
 * Lets the jobs of a stream of single sends wait up to `lingerMs` for each other, so that they
 * share one broker message; a job that comes alone goes at once. A job belongs to a stream when
 * another came less than `lingerMs` before it. The wait ends early once a full group job
 * (SUBMIT_GROUP_MAX) is waiting.
 */
export class StreamLinger {
  /** Jobs waiting out the linger, and how to end it early. */
  private waiting: { jobs: number; end: () => void; ended: Promise<void> } | undefined;
  /** Until when a job that arrives counts as one of a stream (performance.now()). */
  private streamUntil = 0;
  /** Whether the jobs of this turn of the event loop linger: decided by the first of them. */
  private turnLingers: boolean | undefined;

  constructor(private readonly lingerMs: number) {}

  /**
   * Whether this job should wait (then `wait()`). The jobs one acceptance statement committed
   * arrive in one turn and must share their fate (a group job): the first of the turn decides, by
   * whether jobs came in the last `lingerMs` before it.
   */
  joinsStream(): boolean {
    if (this.waiting) return true;
    if (this.turnLingers === undefined) {
      const now = performance.now();
      this.turnLingers = now < this.streamUntil;
      setImmediate(() => (this.turnLingers = undefined));
    }
    this.streamUntil = performance.now() + this.lingerMs;
    return this.turnLingers;
  }

  /** Resolves for every job waiting together at the same moment, so they join one group. */
  wait(): Promise<void> {
    if (!this.waiting) {
      let end!: () => void;
      const ended = new Promise<void>((resolve) => (end = resolve));
      const timer = setTimeout(() => this.end(), this.lingerMs);
      this.waiting = { jobs: 0, end: () => (clearTimeout(timer), end()), ended };
    }
    const waiting = this.waiting;
    if (++waiting.jobs >= SUBMIT_GROUP_MAX) this.end();
    return waiting.ended;
  }

  private end(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.end();
  }
}
