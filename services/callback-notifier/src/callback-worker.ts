import { PollingLoop, type Logger } from '@smsgw/kit';
import type { CallbackOutcome, CallbackSender } from './callback-sender';
import type { CallbackAttempt, CallbackStore } from './callback-store';
import type { NotifierMetrics } from './metrics';
import { notifierDefaults } from './defaults';

/** The first attempt and the retries of Jasmin's default dlr-thrower configuration. */
const JASMIN_DLR_MAX_ATTEMPTS = 4;

export interface CallbackWorkerOptions {
  maxAttempts: number;
  /** First retry delay; each next one doubles, up to notifierDefaults.maxRetryDelayMs. */
  retryBaseMs: number;
  pollIntervalMs: number;
  /** Requests in progress at once, over all hosts. */
  concurrency: number;
  timeoutMs: number;
}

/**
 * Sends due callback requests and decides, per answer, between done, retry with backoff and giving
 * up. Requests are taken as places free up, not in rounds that wait for their slowest request, and
 * none waits for its host: one slow receiver holds back neither the others nor its own lease.
 */
export class CallbackWorker {
  private readonly loop: PollingLoop;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly store: CallbackStore,
    private readonly sender: CallbackSender,
    private readonly logger: Logger,
    private readonly metrics: NotifierMetrics,
    private readonly options: CallbackWorkerOptions,
    /** Sends a Kannel sms-service's answer back to the subscriber (kannel-service requests). */
    private readonly serviceReplies?: {
      /** `unrecorded`: no reply could be tied to the message, and the attempt is to be given up. */
      answer(inboundId: string, outcome: CallbackOutcome): Promise<unknown>;
      resume(inboundId: string): Promise<boolean>;
    },
  ) {
    this.loop = new PollingLoop(() => this.round(), logger, 'callback round');
  }

  start(): void {
    this.loop.start(this.options.pollIntervalMs);
  }

  wake(): void {
    this.loop.wake();
  }

  /**
   * A lease longer than any request: a request starts at once after its take and ends by its hard
   * deadline, so the lease cannot end while it is in flight and no other notifier sends it too.
   */
  private get leaseMs(): number {
    return this.options.timeoutMs * 2 + notifierDefaults.leaseMarginMs;
  }

  private async round(): Promise<void> {
    for (let i = 0; i < 1000 && !this.loop.isStopped; i++) {
      const free = this.options.concurrency - this.inFlight.size;
      if (free <= 0) return;
      const due = await this.store.takeDue(free, this.leaseMs, this.sender.busyHosts());
      if (due.length === 0) return;
      const startBy =
        Date.now() + this.leaseMs - this.options.timeoutMs - notifierDefaults.leaseMarginMs;
      const signing = await this.store.signingSecrets(due);
      for (const attempt of due) {
        const delivery: Promise<void> = this.deliver(attempt, startBy, signing.get(attempt) ?? [])
          .catch((err: unknown) =>
            this.logger.warn(
              { err, messageId: attempt.message_id, kind: attempt.kind },
              'callback not recorded; it is taken again when its lease ends',
            ),
          )
          .finally(() => {
            this.inFlight.delete(delivery);
            this.loop.wake();
          });
        this.inFlight.add(delivery);
      }
    }
  }

  private async deliver(
    attempt: CallbackAttempt,
    startBy: number,
    secrets: string[],
  ): Promise<void> {
    if (attempt.kind === 'mo' && (await this.store.inboundAccountDisabled(attempt.message_id))) {
      // Not while its account is out of service: the message stays readable in its inbox.
      this.metrics.givenUp.inc({ kind: attempt.kind, reason: 'account_disabled' });
      await this.store.gaveUp(attempt, 'account disabled', 'account disabled');
      return;
    }
    if (
      attempt.format === 'kannel-service' &&
      (await this.serviceReplies?.resume(attempt.message_id))
    ) {
      // The service answered an earlier delivery, which stopped before recording it: not again.
      await this.store.succeeded(attempt, 'answered before');
      return;
    }
    const outcome =
      Date.now() <= startBy
        ? await this.sender.send({
            url: attempt.url,
            method: attempt.method,
            params: attempt.query,
            secrets,
            id: `${attempt.message_id}.${attempt.kind}`,
            format: attempt.format ?? 'form',
          })
        : null;
    if (outcome === null) {
      // Not sent: its host is at its limit here (or the lease is too short now); due again soon.
      await this.store.handBack(attempt, notifierDefaults.handBackMs);
      return;
    }
    const labels = { kind: attempt.kind };
    const attempts = attempt.attempts + 1;
    // Kannel calls an sms-service once and answers the subscriber whatever came back: its text,
    // or its "could not fetch" when the call failed (smsbox.c url_result_thread). A URL the
    // gateway refuses to call is the operator's to fix, and the subscriber gets nothing.
    if (attempt.format === 'kannel-service' && (outcome.ok || outcome.retry)) {
      if ((await this.serviceReplies?.answer(attempt.message_id, outcome)) === 'unrecorded') {
        // Called, but nothing tells a delivery that runs again so: left to its lease, the attempt
        // would call the service again at every lease while the database refuses the reply.
        this.metrics.sent.inc({ ...labels, outcome: 'failed' });
        this.metrics.givenUp.inc({ ...labels, reason: 'reply_unrecorded' });
        this.metrics.attempts.observe({ ...labels, outcome: 'failed' }, attempts);
        await this.store.gaveUp(attempt, 'sms-service reply not recorded', 'reply not recorded');
        return;
      }
      if (!outcome.ok) {
        this.metrics.sent.inc({ ...labels, outcome: 'failed' });
        this.metrics.givenUp.inc({ ...labels, reason: 'attempts' });
        this.metrics.attempts.observe({ ...labels, outcome: 'failed' }, attempts);
        await this.store.gaveUp(attempt, outcome.reason, outcome.category);
        return;
      }
    }
    if (outcome.ok) {
      this.metrics.sent.inc({ ...labels, outcome: 'ok' });
      this.metrics.attempts.observe({ ...labels, outcome: 'ok' }, attempts);
      await this.store.succeeded(attempt, `HTTP ${outcome.status}`);
      return;
    }
    if (!outcome.retry || attempts >= this.maxAttemptsOf(attempt)) {
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

  /**
   * Jasmin's DLRThrower gives a report up after its max_retries retries, so a
   * Jasmin client's receiver gets a report at most that often here too.
   */
  private maxAttemptsOf(attempt: CallbackAttempt): number {
    return attempt.format === 'jasmin-dlr'
      ? Math.min(this.options.maxAttempts, JASMIN_DLR_MAX_ATTEMPTS)
      : this.options.maxAttempts;
  }

  /** Stops taking requests and waits for those in flight. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.inFlight]);
  }
}
