/** The gate is full: the caller should answer 503 at once instead of waiting. */
export class KdfBusyError extends Error {
  override name = 'KdfBusyError';
}

/**
 * Bounds the key-derivation work of logins: a few run at once, a bounded number wait, the rest
 * are refused at once. A flood of guesses then costs a fixed share of the CPU and cannot build a
 * queue that valid customers would wait behind.
 */
export class KdfGate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly concurrency: number,
    readonly maxWaiting: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active < this.concurrency) this.active++;
    else if (this.waiting.length < this.maxWaiting)
      // The slot is handed over by the one that finishes, so active stays counted.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    else throw new KdfBusyError('too many logins are being checked');
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  get load(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }
}
