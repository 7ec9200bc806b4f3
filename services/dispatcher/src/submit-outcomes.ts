import { TOPICS, type MessageResultEvent, type MessageSubmitJob } from '@smsgw/contracts';
import { GroupCommit, type Bus, type Logger } from '@smsgw/kit';
import type { SmscError, NoAnswerPolicy } from '@smsgw/smsc';
import type { ClaimedMessage, MessageClaims, SubmittedMessage } from './message-claims';
import type { DispatcherMetrics } from './metrics';
import { decideFailure, decideUnclaimed, type Settlement } from './failure-policy';
import { dispatcherDefaults } from './defaults';

/**
 * What a route says of an SMSC's refusal: whether it passes the message to its next connector
 * (reroute_on), and how the message's job gets there.
 */
export interface Failover {
  reroutesOn(route: string | null, status: string): boolean;
  /** Publishes the job of a message that now waits for `connector`. */
  publish(job: MessageSubmitJob, connector: string): Promise<void>;
}

/** Thrown to have the bus deliver the job again later. */
export class RetryLater extends Error {
  override name = 'RetryLater';
}

/** What a part costs us through a connector (PriceBook.costFor). */
export interface SupplierCosts {
  costFor(connector: string, to: string): { price: string; versionId: string } | undefined;
}

export interface OutcomeSettings {
  connector: string;
  onNoAnswer: NoAnswerPolicy;
  maxAttempts: number;
  submitStaleMs: number;
}

/**
 * Records what became of each submit: the SMSC's ids in groups (one statement for many answers),
 * and a failure as the failure policy decides (failure-policy.ts); publishes the result events.
 * Every record of what the SMSC was given is retried until the database answers (bounded).
 */
export class SubmitOutcomes {
  private readonly submitted: GroupCommit<
    SubmittedMessage,
    { moved: boolean; event: MessageResultEvent | null }
  >;
  /** Result events being published (drain waits for them). */
  private readonly publishing = new Set<Promise<void>>();
  /** Messages the SMSC accepted through this dispatcher (the connector's rate in its status). */
  acceptedCount = 0;
  /** The last SMSC error, for the connector's status. */
  lastFailure: { text: string; at: Date } | undefined;

  constructor(
    private readonly claims: MessageClaims,
    private readonly bus: Bus,
    private readonly logger: Logger,
    private readonly metrics: DispatcherMetrics,
    private readonly settings: OutcomeSettings,
    private readonly failover?: Failover,
    private readonly costs?: SupplierCosts,
  ) {
    this.submitted = new GroupCommit(
      async (messages) => {
        const moved = await claims.markSubmitted(messages);
        return messages.map((m) => ({ moved: moved.has(m.id), event: moved.get(m.id) ?? null }));
      },
      {
        maxSize: dispatcherDefaults.answers.maxGroup,
        concurrency: dispatcherDefaults.answers.concurrency,
      },
    );
  }

  /**
   * Answers waiting to be recorded: what a crash turns into SUBMIT_OUTCOME_UNKNOWN, so the
   * dispatcher claims no more while a window's worth wait.
   */
  get unrecorded(): number {
    return this.submitted.size;
  }

  /** The SMSC accepted every part: its ids are recorded with others' in one statement. */
  async accepted(message: ClaimedMessage, smscIds: string[], pdus: number): Promise<void> {
    const cost = this.costOf(message);
    const { moved, event } = await this.untilRecorded(message.id, () =>
      this.submitted.add({ id: message.id, smscIds, cost }),
    );
    if (moved) {
      this.acceptedCount++;
      this.metrics.submitted.inc({ connector: this.settings.connector });
      this.metrics.submittedPdus.inc({ connector: this.settings.connector }, pdus);
    }
    if (event) this.publishResult(event);
  }

  /** The cost through this connector; undefined when none is known (nor its lists loaded yet). */
  private costOf(message: ClaimedMessage): { price: string; versionId: string } | undefined {
    try {
      return this.costs?.costFor(this.settings.connector, message.to_addr);
    } catch (err) {
      this.logger.warn({ err, messageId: message.id }, 'the cost of a message is not known');
      return undefined;
    }
  }

  /**
   * A submit that failed, settled as the failure policy decides. Throws RetryLater when the
   * message waits again for its job's next delivery.
   */
  async refused(
    message: ClaimedMessage,
    err: SmscError,
    sentParts: readonly number[],
    acceptedBefore: boolean,
  ): Promise<void> {
    const { connector } = this.settings;
    this.lastFailure = { text: `${err.code}: ${err.message}`, at: new Date() };
    const accepted = sentParts.flatMap((part, k) => {
      const smscId = err.acceptedParts[k];
      return smscId === undefined ? [] : [{ seq: part + 1, smscId }];
    });
    const decision = decideFailure({
      code: err.code,
      permanent: err.permanent,
      unanswered: err.unanswered,
      mayBeAtSmsc:
        err.unanswered || accepted.length > 0 || acceptedBefore || message.unanswered_submits > 0,
      routeReroutes: this.failover?.reroutesOn(message.route, err.code) ?? false,
      onNoAnswer: this.settings.onNoAnswer,
      attempts: message.attempts,
      maxAttempts: this.settings.maxAttempts,
    });
    let settlement: Settlement;
    if (decision.action === 'reroute') {
      if (await this.reroute(message, err.code)) return;
      settlement = decision.otherwise;
    } else settlement = decision;
    switch (settlement.action) {
      case 'unknown':
        this.logger.warn(
          { messageId: message.id, reason: err.code },
          'submit_sm written and not answered: outcome unknown, not resent',
        );
        return this.failed(message, 'SUBMIT_OUTCOME_UNKNOWN', false);
      case 'fail':
        return this.failed(message, settlement.reason, settlement.refund);
      case 'retry': {
        this.metrics.retried.inc({ connector, reason: err.code });
        const state = await this.claims.requeue(message.id, err.code, {
          acceptedSeqs: accepted.map((a) => a.seq),
          acceptedSmscIds: accepted.map((a) => a.smscId),
          unanswered: err.unanswered,
        });
        if (state === 'cancelled') {
          this.logger.info(
            { messageId: message.id, batchId: message.batch_id },
            'batch cancelled while the message was being submitted; not sent again',
          );
          return;
        }
        throw new RetryLater(`${err.code}: retry later`);
      }
    }
  }

  /** Passes the message to its route's next connector; false when the route has none. */
  private async reroute(message: ClaimedMessage, code: string): Promise<boolean> {
    const { connector } = this.settings;
    const next = await this.claims.failOver(message.id, `${code} at ${connector}`);
    if (next === undefined) return false;
    this.metrics.rerouted.inc({ connector, to: next, reason: code });
    this.logger.info(
      { messageId: message.id, from: connector, to: next, reason: code },
      "refused by the SMSC; passed to the route's next connector",
    );
    // Recorded already: a failed publish leaves it to the sweep, which publishes it there.
    await this.failover!.publish(
      { messageId: message.id, accountId: message.account_id, segments: message.segments },
      next,
    ).catch((err: unknown) =>
      this.logger.warn({ err, messageId: message.id }, 'could not publish the failed-over job'),
    );
    return true;
  }

  /** Redelivered or duplicate job whose message was not claimable (decideUnclaimed). */
  async unclaimed(id: string, attempt: number): Promise<void> {
    const current = await this.claims.current(id);
    const decision = decideUnclaimed(
      current && { state: current.state, ageMs: current.age_ms },
      this.settings.submitStaleMs,
    );
    if (decision === 'nothing') return;
    if (decision === 'look-later')
      throw new RetryLater(`message ${id} is being submitted elsewhere (attempt ${attempt})`);
    const { failed, event } = await this.claims.fail(id, 'SUBMIT_OUTCOME_UNKNOWN', false);
    if (!failed) return;
    this.metrics.failed.inc({
      connector: this.settings.connector,
      reason: 'SUBMIT_OUTCOME_UNKNOWN',
    });
    this.logger.warn(
      { messageId: id },
      'submission outcome unknown after a dispatcher stopped; not resent',
    );
    if (event) this.publishResult(event);
  }

  async failed(message: ClaimedMessage, reason: string, refund: boolean): Promise<void> {
    const { failed, event } = await this.claims.fail(message.id, reason, refund);
    if (!failed) return;
    this.metrics.failed.inc({
      connector: this.settings.connector,
      reason: reason.split(/[ :]/)[0],
    });
    this.logger.info(
      { messageId: message.id, batchId: message.batch_id, reason },
      'message failed',
    );
    if (event) this.publishResult(event);
  }

  /**
   * Runs a statement that records what the SMSC has already been given, again and again until the
   * database answers (bounded): giving up early would leave the message to be sent again, or to
   * end with an unknown outcome although its answer was in hand.
   */
  async untilRecorded<T>(messageId: string, record: () => Promise<T>): Promise<T> {
    const { reclaimWrittenMs, reclaimFirstDelayMs } = dispatcherDefaults.claims;
    const deadline = Date.now() + reclaimWrittenMs;
    for (let delay: number = reclaimFirstDelayMs; ; delay = Math.min(delay * 2, 5000)) {
      try {
        return await record();
      } catch (err) {
        if (Date.now() + delay > deadline) {
          this.logger.error(
            { err, messageId },
            'could not record what the SMSC was given; the bus delivers its job again',
          );
          throw err;
        }
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  /**
   * The event is in the outbox already (written with the state): this publish only brings it to
   * the notifier sooner, so a failure is logged, not retried, and never makes the job look undone.
   * It holds no window place; drain() waits for it, so a graceful stop loses none.
   */
  private publishResult(event: MessageResultEvent): void {
    const publish = this.bus
      .publish(TOPICS.messageResult, event)
      .catch((err: unknown) =>
        this.logger.warn(
          { err, messageId: event.messageId },
          'could not publish the message result; the outbox keeps it',
        ),
      );
    this.publishing.add(publish);
    void publish.finally(() => this.publishing.delete(publish));
  }

  /** Waits for the result events being published. */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.publishing]);
  }
}
