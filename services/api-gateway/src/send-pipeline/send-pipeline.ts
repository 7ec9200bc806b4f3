import { randomUUID } from 'node:crypto';
import type { MessageParams, SendRequest } from '@smsgw/contracts';
import { HttpError, type Logger } from '@smsgw/kit';
import type { AcceptanceBatcher } from './acceptance-batcher';
import type { JobOutbox } from './job-outbox';
import type { SubmitJobPublisher } from './submit-jobs';
import { planMessage } from './message-plan';

export interface AcceptedMessage {
  id: string;
  cost: string;
  segments: number;
}

/** Dashed names as clients wrote them never reach storage: params are kept under canonical names. */
function extraParams(m: MessageParams): Record<string, unknown> {
  const { content: _c, hex_content: _h, coding: _k, from: _f, ...rest } = m;
  return rest;
}

/**
 * Accepts one message: plan its encoding and segments, charge and record it, then hand it to the
 * dispatcher through the bus (DESIGN.md promise 1); concurrent requests share the statement and
 * the broker message.
 *
 * The answer does not wait for the broker's confirm: the statement that recorded the message also
 * wrote the job_outbox row naming it, so from the commit on its job is either confirmed or will be
 * re-published by the dispatcher's sweep (docs/decisions.md, "The job outbox"). Only when more than
 * `maxUnconfirmed` jobs wait for the broker does a request wait for its own: a slow or absent broker
 * slows the callers down instead of filling this process's memory.
 */
export class MessageIntake {
  private readonly unconfirmed = new Set<Promise<void>>();

  constructor(
    private readonly acceptances: AcceptanceBatcher,
    private readonly outbox: Pick<JobOutbox, 'confirmed' | 'failed'>,
    private readonly jobs: SubmitJobPublisher,
    private readonly logger: Logger,
    private readonly maxParts: number,
    private readonly onAccepted: () => void = () => undefined,
    private readonly maxUnconfirmed = 1000,
  ) {}

  async accept(accountId: string, request: SendRequest): Promise<AcceptedMessage> {
    const plan = planMessage(request, this.maxParts);
    const id = randomUUID();
    const outcome = await this.acceptances.accept({
      id,
      accountId,
      batchId: null,
      to: request.to,
      from: request.from ?? null,
      content: request.content ?? null,
      hexContent: request.hex_content ?? null,
      coding: plan.coding,
      segments: plan.segments,
      params: extraParams(request),
    });
    if (!outcome.ok) {
      throw new HttpError(
        outcome.reason,
        outcome.reason === 'INSUFFICIENT_CREDIT'
          ? 'Not enough credit for this message'
          : 'Message quota exhausted',
      );
    }
    this.onAccepted();
    const confirmed = this.jobs.publish({ messageId: id, accountId, segments: plan.segments }).then(
      () => this.outbox.confirmed(outcome.outboxId),
      (err: unknown) => {
        // Committed already: the dispatcher's sweep re-publishes the jobs of the outbox row.
        this.outbox.failed(outcome.outboxId);
        this.logger.warn({ err, messageId: id }, 'publish failed; the sweep will re-publish');
      },
    );
    this.unconfirmed.add(confirmed);
    void confirmed.finally(() => this.unconfirmed.delete(confirmed));
    if (this.unconfirmed.size > this.maxUnconfirmed) await confirmed;
    return { id, cost: outcome.cost, segments: plan.segments };
  }

  /** Jobs published and not yet confirmed (or failed). */
  get unconfirmedJobs(): number {
    return this.unconfirmed.size;
  }

  /** Waits for the broker's answer to every job published so far (on shutdown, before the bus closes). */
  async drain(): Promise<void> {
    await Promise.all([...this.unconfirmed]);
  }
}
