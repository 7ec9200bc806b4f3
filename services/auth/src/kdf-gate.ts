/** The gate is full: the caller should answer 503 at once instead of waiting. */
export class KdfBusyError extends Error {
  override name = 'KdfBusyError';
}

interface Waiter {
  resume: () => void;
  refuse: (err: Error) => void;
  /** Asked whenever a slot frees: suspect checks (names that failed lately) go last. */
  suspect: () => boolean;
}

const notSuspect = () => false;

/**
 * Bounds the key-derivation work of logins: a few run at once, a bounded number wait, the rest
 * are refused at once. Suspect checks wait behind all others and give up their place to them
 * when the line is full. A flood of guesses then costs a fixed share of the CPU and cannot build
 * a queue that valid customers would wait behind.
 */
export class KdfGate {
  private active = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    readonly concurrency: number,
    readonly maxWaiting: number,
  ) {}

  async run<T>(work: () => Promise<T>, suspect: () => boolean = notSuspect): Promise<T> {
    if (this.active < this.concurrency) this.active++;
    else {
      if (this.waiting.length >= this.maxWaiting) this.makeRoom(suspect());
      // The slot is handed over by the one that finishes, so active stays counted.
      await new Promise<void>((resume, refuse) => this.waiting.push({ resume, refuse, suspect }));
    }
    try {
      return await work();
    } finally {
      this.handOver();
    }
  }

  /** Refuses the newest suspect waiter for a check that is not suspect; else refuses this one. */
  private makeRoom(newcomerIsSuspect: boolean): void {
    if (!newcomerIsSuspect)
      for (let i = this.waiting.length - 1; i >= 0; i--) {
        const waiter = this.waiting[i];
        if (!waiter.suspect()) continue;
        this.waiting.splice(i, 1);
        waiter.refuse(new KdfBusyError('too many logins are being checked'));
        return;
      }
    throw new KdfBusyError('too many logins are being checked');
  }

  private handOver(): void {
    const first = this.waiting.findIndex((w) => !w.suspect());
    const [next] = this.waiting.splice(first < 0 ? 0 : first, 1);
    if (next) next.resume();
    else this.active--;
  }

  get load(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }
}
