import type { DeliveryInfo, Logger } from '@smsgw/kit';
import { SmscError, type SmscConnector, type Submission, type SubmitRequest } from '@smsgw/smsc';
import type { MessageSubmitJob } from '@smsgw/contracts';
import type { ClaimedMessage, GroupClaim, MessageClaims } from './message-claims';
import type { DispatcherMetrics } from './metrics';
import { buildSubmitRequest } from './submit-request';
import type { SubmitTlvs } from './submit-tlvs';
import type { SubmitOutcomes } from './submit-outcomes';
import type { SmartQos } from './throughput/smart-qos';

/** A job taken into a group; `done` settles with its message's outcome. */
export interface GroupedJob {
  job: MessageSubmitJob;
  info: DeliveryInfo;
  done: (outcome: Promise<void>) => void;
}

export interface GroupDeps {
  claims: MessageClaims;
  connector: SmscConnector;
  outcomes: SubmitOutcomes;
  logger: Logger;
  metrics: DispatcherMetrics;
  tlvs?: SubmitTlvs | undefined;
  qos?: SmartQos | undefined;
  /** Messages this dispatcher holds from claim to record (a second job of one must not take it). */
  holding: Set<string>;
}

/** A claimed message on its way: what is sent of it now, and the parts sent before. */
interface Sending {
  message: ClaimedMessage;
  request: SubmitRequest;
  /** Part indexes sent now: those the SMSC did not accept on an earlier attempt. */
  toSend: number[];
  earlier: Record<number, string>;
}

/**
 * One group of jobs from claim to record. One statement claims the messages in a transaction left
 * open; their submit_sm go to the connector together, which writes them once its window has room
 * for all; the claim's COMMIT goes out in the turn they are written, before the corked socket's one
 * write (SmppConnector): committed `submitting` covers messages whose submit_sm left or were
 * leaving, the window in which a crash leaves the outcome unknown (promise 2). A crash before the
 * commit leaves them `queued` with nothing sent, so they are sent once later (docs/decisions.md
 * § Delivery guarantees). Each answer is then recorded through SubmitOutcomes.
 */
export class ClaimedGroup {
  constructor(
    private readonly deps: GroupDeps,
    private readonly jobs: readonly GroupedJob[],
  ) {}

  /**
   * Claims, submits and commits; `written` is called once the group's submit_sm are written (or
   * failed before): the next group may be claimed. Each job's `done` gets its message's outcome.
   */
  async run(written: () => void): Promise<void> {
    const { claims, tlvs } = this.deps;
    let claim: GroupClaim;
    try {
      await tlvs?.fresh();
      claim = await claims.begin(this.jobs.map((j) => j.job.messageId));
    } catch (err) {
      // The database did not answer: the bus delivers these jobs again later.
      written();
      const failure = err instanceof Error ? err : new Error(String(err));
      for (const j of this.jobs) j.done(Promise.reject(failure));
      return;
    }
    const claimed = new Map(claim.messages.map((m) => [m.id, m]));
    // The same message twice in a group is sent once: the first job takes it.
    const taken = this.jobs.map((j) => {
      const message = claimed.get(j.job.messageId);
      claimed.delete(j.job.messageId);
      return message;
    });
    const prepared = taken.map((message) => message && this.prepare(message));
    const sendable = prepared.filter((p): p is Sending => p !== undefined && !(p instanceof Error));
    const submissions = this.deps.connector.submitAll(
      sendable.map((s) => ({
        ...s.request,
        parts: s.toSend.map((i) => s.request.parts[i]),
        concatenated: s.request.concatenated ?? s.request.parts.length > 1,
      })),
    );
    const submissionOf = new Map(sendable.map((s, k) => [s, submissions[k]]));
    this.jobs.forEach((j, i) => {
      const message = taken[i];
      const sending = prepared[i];
      let outcome: Promise<void>;
      if (!message) outcome = this.unclaimed(j);
      else {
        this.deps.holding.add(message.id);
        outcome = (
          sending instanceof Error
            ? this.unencodable(message, claim, sending)
            : this.answer(sending!, submissionOf.get(sending!)!, claim)
        ).finally(() => this.deps.holding.delete(message.id));
      }
      j.done(outcome);
    });
    // Committed once every submit_sm of the group is written (or failed before), in the same turn:
    // the COMMIT goes out before the corked socket's write, so a crash cannot leave `queued` (to be
    // sent again) a message the SMSC has; and before the next group's claim starts, so nothing of
    // that claim's work stands between the COMMIT and the write.
    await Promise.all(submissions.map((s) => s.written));
    const committed = claim.commit().catch((err: unknown) =>
      // Each written message of the claim is claimed again (committed()).
      this.deps.logger.warn({ err }, 'could not commit a claim'),
    );
    written();
    await committed;
  }

  /** The message's request; an Error when it cannot be encoded. */
  private prepare(message: ClaimedMessage): Sending | Error {
    try {
      const request = buildSubmitRequest(
        message,
        this.deps.tlvs?.forSubmit(this.deps.connector.name, message.route),
      );
      // Parts the SMSC accepted on an earlier attempt keep their ids and are not sent again.
      const earlier = message.accepted_parts ?? {};
      const toSend = request.parts.flatMap((_, i) => (earlier[i + 1] === undefined ? [i] : []));
      return { message, request, toSend, earlier };
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  }

  private unclaimed(j: GroupedJob): Promise<void> {
    // Ours and still being recorded (the database was away longer than submitStaleMs).
    if (this.deps.holding.has(j.job.messageId)) return Promise.resolve();
    return this.deps.outcomes.unclaimed(j.job.messageId, j.info.attempt);
  }

  private async unencodable(message: ClaimedMessage, claim: GroupClaim, err: Error): Promise<void> {
    await this.committed(claim, message);
    await this.deps.outcomes.failed(message, `ENCODING: ${err.message}`, true);
  }

  /** Waits for the SMSC's answer to the message and records it. */
  private async answer(sending: Sending, submission: Submission, claim: GroupClaim): Promise<void> {
    const { connector, metrics, outcomes, qos } = this.deps;
    const { message, request, toSend, earlier } = sending;
    const started = process.hrtime.bigint();
    // The SMSC's time only: the claim's commit that follows is ours, and on a busy database it
    // would read as a slow SMSC and hold Smart QoS down.
    let answeredIn = 0;
    const answered = (): number => (answeredIn = Number(process.hrtime.bigint() - started) / 1e9);
    try {
      const result = await submission.finally(answered);
      await this.committed(claim, message);
      metrics.smscResponse.observe({ connector: connector.name, outcome: 'ok' }, answeredIn);
      qos?.onResponse(answeredIn * 1000);
      // A connector may answer one id for a whole message (HTTP): kept as it is when every part
      // was sent now.
      let smscIds = result.smscIds;
      if (toSend.length < request.parts.length) {
        smscIds = request.parts.map((_, i) => earlier[i + 1] ?? '');
        toSend.forEach((part, k) => (smscIds[part] = result.smscIds[k] ?? ''));
      }
      await outcomes.accepted(message, smscIds, result.smscIds.length);
    } catch (err) {
      // Written or not, the claim is committed before its outcome is recorded.
      await this.committed(claim, message);
      if (!(err instanceof SmscError)) throw err;
      metrics.smscResponse.observe({ connector: connector.name, outcome: err.code }, answeredIn);
      if (err.code === 'ESME_RTHROTTLED') qos?.onThrottled();
      await outcomes.refused(message, err, toSend, Object.keys(earlier).length > 0);
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
      this.deps.logger.warn(
        { err, messageId: message.id },
        'the claim of a written submit_sm was lost; claiming it again',
      );
    }
    await this.deps.outcomes.untilRecorded(message.id, () =>
      this.deps.claims.claimWritten(message.id),
    );
  }
}
