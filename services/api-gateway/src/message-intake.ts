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
 */
export class MessageIntake {
  constructor(
    private readonly acceptances: AcceptanceBatcher,
    private readonly outbox: Pick<JobOutbox, 'confirmed' | 'failed'>,
    private readonly jobs: SubmitJobPublisher,
    private readonly logger: Logger,
    private readonly maxParts: number,
    private readonly onAccepted: () => void = () => undefined,
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
        outcome.reason === 'INSUFFICIENT_CREDIT' ? 'Not enough credit for this message' : 'Message quota exhausted',
      );
    }
    this.onAccepted();
    try {
      await this.jobs.publish({ messageId: id, accountId, segments: plan.segments });
      this.outbox.confirmed(outcome.outboxId);
    } catch (err) {
      // Committed already: the dispatcher's sweep re-publishes the jobs of the outbox row.
      this.outbox.failed(outcome.outboxId);
      this.logger.warn({ err, messageId: id }, 'publish failed; the sweep will re-publish');
    }
    return { id, cost: outcome.cost, segments: plan.segments };
  }
}
