import { PollingLoop, type Logger } from '@smsgw/kit';
import type { CallbackSender } from './callback-sender';
import type { CallbackAttempt, CallbackStore } from './callback-store';
import type { NotifierMetrics } from './metrics';
import { notifierDefaults } from './defaults';

export interface CallbackWorkerOptions {
  maxAttempts: number;
  /** First retry delay; each next one doubles, up to notifierDefaults.maxRetryDelayMs. */
  retryBaseMs: number;
  pollIntervalMs: number;
  /** Requests in progress at once, over all hosts. */
  concurrency: number;
  timeoutMs: number;
}

/** Sends due callback requests and decides, per answer, between done, retry with backoff and giving up. */
export class CallbackWorker {
  private readonly loop: PollingLoop;

  constructor(
    private readonly store: CallbackStore,
    private readonly sender: CallbackSender,
    private readonly logger: Logger,
    private readonly metrics: NotifierMetrics,
    private readonly options: CallbackWorkerOptions,
  ) {
    this.loop = new PollingLoop(() => this.round(), logger, 'callback round');
  }

  start(): void {
    this.loop.start(this.options.pollIntervalMs);
  }

  wake(): void {
    this.loop.wake();
  }

  private async round(): Promise<void> {
    // A lease longer than any request, so a request in progress is never taken twice.
    const leaseMs = this.options.timeoutMs * 2 + notifierDefaults.leaseMarginMs;
    for (let i = 0; i < 1000 && !this.loop.isStopped; i++) {
      const due = await this.store.takeDue(this.options.concurrency, leaseMs);
      if (due.length === 0) return;
      await Promise.all(due.map((attempt) => this.deliver(attempt)));
    }
  }

  private async deliver(attempt: CallbackAttempt): Promise<void> {
    const outcome = await this.sender.send({
      url: attempt.url,
      method: attempt.method,
      params: attempt.query,
    });
    const labels = { kind: attempt.kind };
    const attempts = attempt.attempts + 1;
    if (outcome.ok) {
      this.metrics.sent.inc({ ...labels, outcome: 'ok' });
      this.metrics.attempts.observe({ ...labels, outcome: 'ok' }, attempts);
      await this.store.succeeded(attempt, `HTTP ${outcome.status}`);
      return;
    }
    if (!outcome.retry || attempts >= this.options.maxAttempts) {
      this.metrics.sent.inc({ ...labels, outcome: 'failed' });
      this.metrics.givenUp.inc({ ...labels, reason: outcome.retry ? 'attempts' : 'refused' });
      this.metrics.attempts.observe({ ...labels, outcome: 'failed' }, attempts);
      this.logger.warn(
        { messageId: attempt.message_id, kind: attempt.kind, attempts, reason: outcome.reason },
        'callback given up',
      );
      await this.store.gaveUp(attempt, outcome.reason, outcome.category);
      return;
    }
    this.metrics.sent.inc({ ...labels, outcome: 'retry' });
    const delay = Math.min(
      notifierDefaults.maxRetryDelayMs,
      this.options.retryBaseMs * 2 ** (attempts - 1),
    );
    await this.store.retryLater(attempt, outcome.reason, delay);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
