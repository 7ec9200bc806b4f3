import {
  TOPICS,
  type MessageResultEvent,
  type MessageSubmitGroupJob,
  type MessageSubmitJob,
} from '@smsgw/contracts';
import { GroupCommit, type Bus, type DeliveryInfo, type Logger } from '@smsgw/kit';
import { SmscError, type SmscConnector } from '@smsgw/smsc';
import type { ClaimedMessage, GroupClaim, MessageClaims, SubmittedMessage } from './message-claims';
import type { DispatcherMetrics } from './metrics';
import { buildSubmitRequest } from './submit-request';
import type { SubmitTlvs } from './submit-tlvs';
import type { SubmitPacing } from './throughput/submit-pacing';
import { dispatcherDefaults } from './defaults';

export interface DispatcherOptions {
  /** Attempts before a transiently failing message is given up (and refunded). */
  maxAttempts: number;
  /** A message still `submitting` after this long belongs to a dispatcher that died mid-submit. */
  submitStaleMs: number;
  /**
   * Submissions in progress at once; kept at the connector's window so nothing is claimed early.
   */
  window: number;
  /** Connector and route TLVs to add to each submit_sm (none: only the message's own). */
  tlvs?: SubmitTlvs;
}

/**
 * What a route says of an SMSC's refusal: whether it passes the message to its next connector
 * (reroute_on), and how the message's job gets there.
 */
export interface Failover {
  reroutesOn(route: string | null, status: string): boolean;
  /** Publishes the job of a message that now waits for `connector`. */
  publish(job: MessageSubmitJob, connector: string): Promise<void>;
}

const noop = (): void => undefined;

/** Thrown to have the bus deliver the job again later. */
export class RetryLater extends Error {
  override name = 'RetryLater';
}

interface Waiting {
  job: MessageSubmitJob;
  info: DeliveryInfo;
  /** Window places held for it: the PDUs it was charged for. */
  slots: number;
  done: (outcome: Promise<void>) => void;
}

/**
 * Takes `message.submit` jobs to the SMSC in groups: under load, one statement claims many
 * messages, their submit_sm leave together, and one statement records the SMSC's answers. A
 * group is claimed ahead, in a transaction left open until window places are free and its submit_sm
 * are written into the corked socket; its COMMIT goes out in that turn, before the socket's one
 * write (SmppConnector): committed `submitting` covers messages whose submit_sm left or were
 * leaving, the window in which a crash leaves the outcome unknown (promise 2). A crash before the
 * commit leaves them `queued` with nothing sent, so they are sent once later (docs/decisions.md,
 * delivery guarantees).
 */
export class MessageDispatcher {
  private readonly waiting: Waiting[] = [];
  private readonly submitted: GroupCommit<
    SubmittedMessage,
    { moved: boolean; event: MessageResultEvent | null }
  >;
  private slotsInUse = 0;
  private claimsInFlight = 0;
  /** Jobs taken into a group and not yet settled (drain waits for them). */
  private inProgress = 0;
  /**
   * Messages this dispatcher claimed and has not settled: a second job of one (an outbox relay or
   * the sweep publishing again after a database outage) must not take it for a dead dispatcher's.
   */
  private readonly holding = new Set<string>();

  constructor(
    private readonly claims: MessageClaims,
    private readonly connector: SmscConnector,
    private readonly bus: Bus,
    private readonly logger: Logger,
    private readonly metrics: DispatcherMetrics,
    private readonly options: DispatcherOptions,
    /** The waits before a submit (throughput/): caps, this worker's rate, smart QoS. */
    private readonly pacing?: SubmitPacing,
    private readonly failover?: Failover,
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

  private stopping = false;
  /** Messages the SMSC accepted through this dispatcher (the connector's rate in its status). */
  submittedCount = 0;
  /** The last SMSC error, for the connector's status. */
  lastFailure: { text: string; at: Date } | undefined;

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
        slots: Math.min(Math.max(1, job.segments ?? 1), this.options.window),
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
    if (this.claimScheduled) return;
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
   * places idle. A group is at most half a window, so one is
   * written while the next is claimed. At most two groups are claimed and not yet written; the
   * second only when it can be a sizeable one or the window has room for it at once, so jobs
   * arriving meanwhile gather into it.
   */
  private claimGroup(): void {
    if (this.claimsInFlight >= dispatcherDefaults.claims.maxAhead) return;
    // Answers not yet recorded are what a crash turns into SUBMIT_OUTCOME_UNKNOWN: keep them to a
    // window.
    if (this.submitted.size >= this.options.window) return;
    // A second group goes when it is sizeable, or when the window has places for all that waits.
    const free = this.options.window - this.slotsInUse;
    if (
      this.claimsInFlight > 0 &&
      this.waiting.length < this.options.window / 4 &&
      free < this.waiting.length
    )
      return;
    const cap = Math.max(1, Math.floor(this.options.window / 2));
    const group: Waiting[] = [];
    let slots = 0;
    while (
      this.waiting.length > 0 &&
      (group.length === 0 || slots + this.waiting[0].slots <= cap)
    ) {
      const next = this.waiting.shift()!;
      group.push(next);
      slots += next.slots;
    }
    if (group.length === 0) return;
    this.claimsInFlight++;
    this.inProgress += group.length;
    let ended = false;
    void this.submitGroup(group, () => {
      if (ended) return;
      ended = true;
      this.claimsInFlight--;
      this.claimNext();
    });
  }

  /** Claimed groups waiting for window places, in claim order. */
  private readonly placeWaiters: { slots: number; granted: () => void }[] = [];

  /** Resolves once `slots` window places are taken for the caller (first come, first served). */
  private takePlaces(slots: number): Promise<void> {
    return new Promise<void>((granted) => {
      this.placeWaiters.push({ slots, granted });
      this.grantPlaces();
    });
  }

  private grantPlaces(): void {
    while (
      this.placeWaiters.length > 0 &&
      this.placeWaiters[0].slots <= this.options.window - this.slotsInUse
    ) {
      const next = this.placeWaiters.shift()!;
      this.slotsInUse += next.slots;
      next.granted();
    }
  }

  private releaseSlots(slots: number): void {
    this.slotsInUse -= slots;
    this.grantPlaces();
    this.claimNext();
  }

  /**
   * Claims the group, waits for window places for what it claimed, and writes all of it in one
   * turn: the claim's COMMIT is issued in that turn, before the one write that takes its submit_sm
   * out. `written` is called once the group's submit_sm are written: the next group may be claimed.
   */
  private async submitGroup(group: Waiting[], written: () => void): Promise<void> {
    let claim: GroupClaim;
    try {
      await this.options.tlvs?.fresh();
      claim = await this.claims.begin(group.map((w) => w.job.messageId));
    } catch (err) {
      // The database did not answer: the bus delivers these jobs again later.
      written();
      for (const w of group) {
        this.inProgress--;
        w.done(Promise.reject(err instanceof Error ? err : new Error(String(err))));
      }
      return;
    }
    const claimed = new Map(claim.messages.map((m) => [m.id, m]));
    // The same message twice in a group is sent once: the first job takes it.
    const taken = group.map((w) => {
      const message = claimed.get(w.job.messageId);
      claimed.delete(w.job.messageId);
      return message;
    });
    const places = group.reduce((sum, w, i) => sum + (taken[i] ? w.slots : 0), 0);
    if (places > 0) await this.takePlaces(places);
    const writes: Promise<void>[] = [];
    group.forEach((w, i) => {
      const message = taken[i];
      let freed = !message;
      // Its window places come back with the SMSC's answer, not after the answer is recorded.
      const free = (): void => {
        if (freed) return;
        freed = true;
        this.releaseSlots(w.slots);
      };
      let outcome: Promise<void>;
      if (!message) {
        outcome = this.handleUnclaimed(w.job.messageId, w.info);
      } else {
        let onWritten!: () => void;
        const wrote = new Promise<void>((resolve) => (onWritten = resolve));
        this.holding.add(message.id);
        outcome = this.submit(message, claim, onWritten, free).finally(() =>
          this.holding.delete(message.id),
        );
        writes.push(Promise.race([wrote, outcome.then(noop, noop)]));
      }
      w.done(
        outcome.finally(() => {
          free();
          this.inProgress--;
          this.claimNext();
        }),
      );
    });
    // Committed once every submit_sm of the group is written (or failed before), in the same turn:
    // the COMMIT goes out before the corked socket's write, so a crash cannot leave `queued` (to be
    // sent again) a message the SMSC has; and before the next group's claim starts, so nothing of
    // that claim's work stands between the COMMIT and the write.
    await Promise.all(writes);
    const committed = claim.commit().catch((err: unknown) =>
      // Each written message of the claim is claimed again (committed()).
      this.logger.warn({ err }, 'could not commit a claim'),
    );
    written();
    await committed;
  }

  private async submit(
    message: ClaimedMessage,
    claim: GroupClaim,
    onWritten: () => void,
    answered: () => void,
  ): Promise<void> {
    let request;
    try {
      request = buildSubmitRequest(
        message,
        this.options.tlvs?.forSubmit(this.connector.name, message.route),
      );
    } catch (err) {
      onWritten();
      await this.committed(claim, message);
      await this.failed(message, `ENCODING: ${(err as Error).message}`, true);
      return;
    }
    // Parts the SMSC accepted on an earlier attempt keep their ids and are not sent again.
    const earlier = message.accepted_parts ?? {};
    const toSend = request.parts.flatMap((_, i) => (earlier[i + 1] === undefined ? [i] : []));
    const started = process.hrtime.bigint();
    try {
      const submission = this.connector.submit({
        ...request,
        parts: toSend.map((i) => request.parts[i]),
        concatenated: request.concatenated ?? request.parts.length > 1,
      });
      // The claim commits once the parts are written, before they leave: the connector says when.
      void submission.written.then(onWritten);
      const result = await submission;
      answered();
      await this.committed(claim, message);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.metrics.smscResponse.observe({ connector: this.connector.name, outcome: 'ok' }, seconds);
      this.pacing?.qos?.onResponse(seconds * 1000);
      // A connector may answer one id for a whole message (HTTP): kept as it is when every part
      // was sent now.
      let smscIds = result.smscIds;
      if (toSend.length < request.parts.length) {
        smscIds = request.parts.map((_, i) => earlier[i + 1] ?? '');
        toSend.forEach((part, k) => (smscIds[part] = result.smscIds[k] ?? ''));
      }
      const { moved, event } = await this.untilRecorded(message.id, () =>
        this.submitted.add({ id: message.id, smscIds }),
      );
      if (moved) {
        this.submittedCount++;
        this.metrics.submitted.inc({ connector: this.connector.name });
        this.metrics.submittedPdus.inc({ connector: this.connector.name }, result.smscIds.length);
      }
      if (event) this.publishResult(event);
    } catch (err) {
      answered();
      // Written or not, the claim is committed before its outcome is recorded.
      await this.committed(claim, message);
      if (!(err instanceof SmscError)) throw err;
      this.lastFailure = { text: `${err.code}: ${err.message}`, at: new Date() };
      this.metrics.smscResponse.observe(
        { connector: this.connector.name, outcome: err.code },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
      if (err.code === 'ESME_RTHROTTLED') this.pacing?.qos?.onThrottled();
      await this.submitFailed(message, err, toSend, Object.keys(earlier).length > 0);
    }
  }

  /**
   * The group's claim committed. When the database lost it after the submit_sm left (the session
   * ended by a restart or a failover), the message is back to waiting in the database while the
   * SMSC may have it: it is claimed again as `submitting`, retried until the database answers, so
   * the bus's next delivery of its job cannot send it a second time.
   */
  private async committed(claim: GroupClaim, message: ClaimedMessage): Promise<void> {
    try {
      await claim.commit();
      return;
    } catch (err) {
      this.logger.warn(
        { err, messageId: message.id },
        'the claim of a written submit_sm was lost; claiming it again',
      );
    }
    await this.untilRecorded(message.id, () => this.claims.claimWritten(message.id));
  }

  /**
   * Runs a statement that records what the SMSC has already been given, again and again until the
   * database answers (bounded): giving up early would leave the message to be sent again, or to
   * end with an unknown outcome although its answer was in hand.
   */
  private async untilRecorded<T>(messageId: string, record: () => Promise<T>): Promise<T> {
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
   * What follows a submit that failed. A submit_sm written and never answered may be at the SMSC:
   * by default its outcome is recorded unknown, never sent again nor refunded (as when a dispatcher
   * dies after writing); with `on_no_answer=resend` it goes again like a refused one. A message
   * the SMSC may hold any part of is never refunded.
   */
  private async submitFailed(
    message: ClaimedMessage,
    err: SmscError,
    sentParts: readonly number[],
    acceptedBefore: boolean,
  ): Promise<void> {
    const accepted = sentParts.flatMap((part, k) => {
      const smscId = err.acceptedParts[k];
      return smscId === undefined ? [] : [{ seq: part + 1, smscId }];
    });
    const mayBeAtSmsc =
      err.unanswered || accepted.length > 0 || acceptedBefore || message.unanswered_submits > 0;
    // Only a message no part of which the SMSC may hold can go to another SMSC.
    if (!mayBeAtSmsc && this.failover?.reroutesOn(message.route, err.code)) {
      const next = await this.claims.failOver(message.id, `${err.code} at ${this.connector.name}`);
      if (next !== undefined) {
        this.metrics.rerouted.inc({ connector: this.connector.name, to: next, reason: err.code });
        this.logger.info(
          { messageId: message.id, from: this.connector.name, to: next, reason: err.code },
          "refused by the SMSC; passed to the route's next connector",
        );
        // Recorded already: a failed publish leaves it to the sweep, which publishes it there.
        await this.failover
          .publish(
            { messageId: message.id, accountId: message.account_id, segments: message.segments },
            next,
          )
          .catch((err: unknown) =>
            this.logger.warn(
              { err, messageId: message.id },
              'could not publish the failed-over job',
            ),
          );
        return;
      }
    }
    if (err.unanswered && this.connector.onNoAnswer === 'unknown') {
      this.logger.warn(
        { messageId: message.id, reason: err.code },
        'submit_sm written and not answered: outcome unknown, not resent',
      );
      await this.failed(message, 'SUBMIT_OUTCOME_UNKNOWN', false);
      return;
    }
    if (err.permanent) {
      await this.failed(message, err.code, !mayBeAtSmsc);
      return;
    }
    if (message.attempts >= this.options.maxAttempts) {
      await this.failed(message, `${err.code} after ${message.attempts} attempts`, !mayBeAtSmsc);
      return;
    }
    this.metrics.retried.inc({ connector: this.connector.name, reason: err.code });
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

  /** Redelivered or duplicate job: only a stale `submitting` needs anything done. */
  private async handleUnclaimed(id: string, info: DeliveryInfo): Promise<void> {
    // Ours and still being recorded (the database was away longer than submitStaleMs).
    if (this.holding.has(id)) return;
    const current = await this.claims.current(id);
    if (!current || current.state !== 'submitting') return;
    if (current.age_ms < this.options.submitStaleMs) {
      // Another dispatcher may still be waiting for the SMSC's answer: look again later.
      throw new RetryLater(`message ${id} is being submitted elsewhere (attempt ${info.attempt})`);
    }
    // submit_sm may or may not have left before the crash; sending again could deliver it twice.
    const { failed, event } = await this.claims.fail(id, 'SUBMIT_OUTCOME_UNKNOWN', false);
    if (!failed) return;
    this.metrics.failed.inc({ connector: this.connector.name, reason: 'SUBMIT_OUTCOME_UNKNOWN' });
    this.logger.warn(
      { messageId: id },
      'submission outcome unknown after a dispatcher stopped; not resent',
    );
    if (event) this.publishResult(event);
  }

  private async failed(message: ClaimedMessage, reason: string, refund: boolean): Promise<void> {
    const { failed, event } = await this.claims.fail(message.id, reason, refund);
    if (!failed) return;
    this.metrics.failed.inc({ connector: this.connector.name, reason: reason.split(/[ :]/)[0] });
    this.logger.info(
      { messageId: message.id, batchId: message.batch_id, reason },
      'message failed',
    );
    if (event) this.publishResult(event);
  }

  /**
   * Result events are published without holding a window slot for the broker's confirm (the state
   * is recorded already); drain() waits for them, so a graceful stop loses none.
   */
  private readonly publishing = new Set<Promise<void>>();

  private track(publish: Promise<void>): void {
    this.publishing.add(publish);
    void publish.finally(() => this.publishing.delete(publish));
  }

  /**
   * The event is in the outbox already (written with the state): this publish only brings it to
   * the notifier sooner, so a failure is logged, not retried, and never makes the job look undone.
   */
  private publishResult(event: MessageResultEvent): void {
    this.track(
      this.bus
        .publish(TOPICS.messageResult, event)
        .catch((err: unknown) =>
          this.logger.warn(
            { err, messageId: event.messageId },
            'could not publish the message result; the outbox keeps it',
          ),
        ),
    );
  }

  /** Window places taken by submissions waiting for the SMSC's answer. */
  get windowInUse(): number {
    return this.slotsInUse;
  }

  /** Jobs taken from the bus and not yet submitted. */
  get waitingCount(): number {
    return this.waiting.length + this.placeWaiters.length;
  }

  /** Waits for submissions in progress (graceful shutdown). */
  async drain(): Promise<void> {
    this.stopping = true;
    await this.pacing?.stop();
    while (this.inProgress > 0 || this.waiting.length > 0)
      await new Promise((r) => setTimeout(r, 10));
    await Promise.allSettled([...this.publishing]);
  }
}
