import type { Logger } from './logger';

/**
 * Runs `round` on a timer and whenever woken, never two at once: a wake during a round runs one
 * more round right after it. Work is read from Postgres each round, so a lost wake only waits for
 * the next tick.
 */
export class PollingLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly round: () => Promise<void>,
    private readonly logger: Logger,
    private readonly what: string,
  ) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => this.wake(), intervalMs);
    this.timer.unref();
    this.wake();
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.round()
      .catch((err: unknown) => this.logger.error({ err }, `${this.what} failed; will try again`))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Stops the timer and waits for the round in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }
}
