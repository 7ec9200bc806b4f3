import type { MessageSubmitGroupJob, MessageSubmitJob } from '@smsgw/contracts';
import type { Bus, DeliveryInfo, Logger } from '@smsgw/kit';
import type { SmscConnector } from '@smsgw/smsc';
import { ClaimedGroup, type GroupedJob } from './claimed-group';
import type { MessageClaims } from './message-claims';
import type { DispatcherMetrics } from './metrics';
import { SubmitOutcomes, type Failover, type SupplierCosts } from './submit-outcomes';
import type { SubmitTlvs } from './submit-tlvs';
import type { SubmitPacing } from './throughput/submit-pacing';
import { dispatcherDefaults } from './defaults';

export { RetryLater, type Failover } from './submit-outcomes';

export interface DispatcherOptions {
  /** Attempts before a transiently failing message is given up (and refunded). */
  maxAttempts: number;
  /** A message still `submitting` after this long belongs to a dispatcher that died mid-submit. */
  submitStaleMs: number;
  /** Connector and route TLVs to add to each submit_sm (none: only the message's own). */
  tlvs?: SubmitTlvs;
  /** The connectors' supplier prices, so each accepted message records what it cost us. */
  costs?: SupplierCosts;
}

interface Waiting extends GroupedJob {
  /** The window places its message takes (the connector says how many). */
  places: number;
}

/** What this dispatcher holds of a connector's work, for operators. */
export interface DispatcherLoad {
  /** Window places written and not answered (the connector's count). */
  inWindow: number;
  /** Messages taken from the bus and not yet written: unclaimed here, or queued at the connector. */
  waiting: number;
}

/**
 * Takes `message.submit` jobs to the SMSC in groups: under load, one statement claims many
 * messages, their submit_sm leave together, and one statement records the SMSC's answers. Each
 * group goes its way from claim to record in a ClaimedGroup; what happens to a refused or
 * unanswered one is the failure policy's (failure-policy.ts). The window is the connector's: this
 * class reads its room to decide when to claim, and claims no more than fits in it plus one group
 * ahead.
 */
export class MessageDispatcher {
  private readonly waiting: Waiting[] = [];
  private readonly outcomes: SubmitOutcomes;
  private claimsInFlight = 0;
  /** Jobs taken into a group and not yet settled (drain waits for them). */
  private inProgress = 0;
  /**
   * Messages this dispatcher claimed and has not settled: a second job of one (an outbox relay or
   * the sweep publishing again after a database outage) must not take it for a dead dispatcher's.
   */
  private readonly holding = new Set<string>();
  private stopping = false;

  constructor(
    private readonly claims: MessageClaims,
    private readonly connector: SmscConnector,
    bus: Bus,
    private readonly logger: Logger,
    private readonly metrics: DispatcherMetrics,
    private readonly options: DispatcherOptions,
    /** The waits before a submit (throughput/): caps, this worker's rate, smart QoS. */
    private readonly pacing?: SubmitPacing,
    failover?: Failover,
  ) {
    this.outcomes = new SubmitOutcomes(
      claims,
      bus,
      logger,
      metrics,
      {
        connector: connector.name,
        onNoAnswer: connector.onNoAnswer,
        maxAttempts: options.maxAttempts,
        submitStaleMs: options.submitStaleMs,
      },
      failover,
      options.costs,
    );
    connector.onRoom(() => this.claimNext());
  }

  /** Messages the SMSC accepted through this dispatcher (the connector's rate in its status). */
  get submittedCount(): number {
    return this.outcomes.acceptedCount;
  }

  /** The last SMSC error, for the connector's status. */
  get lastFailure(): { text: string; at: Date } | undefined {
    return this.outcomes.lastFailure;
  }

  readonly handle = async (job: MessageSubmitJob, info: DeliveryInfo): Promise<void> => {
    const { done } = await this.admit(job, info);
    await done;
  };

  /**
   * A group job's messages pass the pacing one after the other (so a paused gate holds back a
   * group, not a prefetch of reservations) and are then submitted like single jobs. The job is
   * retried if any of them must be; the others are then no-ops (their claim is conditional).
   */
  readonly handleGroup = async (job: MessageSubmitGroupJob, info: DeliveryInfo): Promise<void> => {
    const outcomes: Promise<void>[] = [];
    for (const m of job.messages)
      outcomes.push(
        (
          await this.admit(
            { messageId: m.messageId, accountId: job.accountId, segments: m.segments },
            info,
          )
        ).done,
      );
    const failure = (await Promise.allSettled(outcomes)).find(
      (r): r is PromiseRejectedResult => r.status === 'rejected',
    );
    if (failure) throw failure.reason;
  };

  /** Paces the job, then queues it for the next group; `done` settles with its outcome. */
  private async admit(job: MessageSubmitJob, info: DeliveryInfo): Promise<{ done: Promise<void> }> {
    await this.pacing?.pass(job.accountId, job.segments ?? 1, () => this.stopping);
    const done = new Promise<void>((resolve, reject) => {
      this.waiting.push({
        job,
        info,
        places: this.connector.placesFor(job.segments ?? 1),
        done: (outcome) => void outcome.then(resolve, reject),
      });
    });
    this.claimNext();
    return { done };
  }

  private claimScheduled = false;

  /**
   * Claims the next group once this turn's jobs and answers are in (an answer per tick would
   * otherwise make groups of one).
   */
  private claimNext(): void {
    if (this.claimScheduled || this.waiting.length === 0) return;
    this.claimScheduled = true;
    setImmediate(() => {
      this.claimScheduled = false;
      this.claimGroup();
    });
  }

  /**
   * Claims the next group while earlier groups are still in the window, so that it is ready to be
   * written the moment their answers free places: the claim's round trip to Postgres (several
   * milliseconds under load, against an SMSC that answers in one or two) no longer holds window
   * places idle. A group is at most half a window, so one is written while the next is claimed.
   * At most two groups are claimed and not yet written; the second only when it can be a sizeable
   * one or the connector has room for all that waits, so jobs arriving meanwhile gather into it.
   */
  private claimGroup(): void {
    const window = this.connector.window;
    if (this.claimsInFlight >= dispatcherDefaults.claims.maxAhead) return;
    // Answers not yet recorded are what a crash turns into SUBMIT_OUTCOME_UNKNOWN: keep them to a
    // window.
    if (this.outcomes.unrecorded >= window) return;
    if (
      this.claimsInFlight > 0 &&
      this.waiting.length < window / 4 &&
      this.connector.room() < this.waiting.length
    )
      return;
    const cap = Math.max(1, Math.floor(window / 2));
    const group: Waiting[] = [];
    let places = 0;
    while (
      this.waiting.length > 0 &&
      (group.length === 0 || places + this.waiting[0].places <= cap)
    ) {
      const next = this.waiting.shift()!;
      group.push(next);
      places += next.places;
    }
    if (group.length === 0) return;
    this.claimsInFlight++;
    this.inProgress += group.length;
    const settled = group.map((w) => ({
      ...w,
      done: (outcome: Promise<void>) =>
        w.done(
          outcome.finally(() => {
            this.inProgress--;
            this.claimNext();
          }),
        ),
    }));
    let ended = false;
    void new ClaimedGroup(
      {
        claims: this.claims,
        connector: this.connector,
        outcomes: this.outcomes,
        logger: this.logger,
        metrics: this.metrics,
        tlvs: this.options.tlvs,
        qos: this.pacing?.qos,
        holding: this.holding,
      },
      settled,
    ).run(() => {
      if (ended) return;
      ended = true;
      this.claimsInFlight--;
      this.claimNext();
    });
  }

  /** The window in use and the messages waiting, from the connector and this dispatcher. */
  load(): DispatcherLoad {
    const connector = this.connector.load();
    return { inWindow: connector.inWindow, waiting: this.waiting.length + connector.queued };
  }

  /** Waits for submissions in progress (graceful shutdown). */
  async drain(): Promise<void> {
    this.stopping = true;
    await this.pacing?.stop();
    while (this.inProgress > 0 || this.waiting.length > 0)
      await new Promise((r) => setTimeout(r, 10));
    await this.outcomes.drain();
  }
}
