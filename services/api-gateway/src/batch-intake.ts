import { randomUUID } from 'node:crypto';
import { TOPICS } from '@smsgw/contracts';
import { HttpError, type Bus, type Logger } from '@smsgw/kit';
import { planBatch, type BatchLimits } from './batch-plan';
import type { BatchStore } from './batch-store';

/**
 * Accepts a batch: validate all of it, charge all of it and store it in one statement, then tell
 * the scheduler. The recipients are expanded later, by the scheduler, so the answer comes at once.
 */
export class BatchIntake {
  constructor(
    private readonly store: BatchStore,
    private readonly bus: Bus,
    private readonly logger: Logger,
    private readonly limits: BatchLimits,
    private readonly onAccepted: (recipients: number) => void = () => undefined,
  ) {}

  async accept(
    accountId: string,
    body: unknown,
  ): Promise<{ batchId: string; messageCount: number }> {
    const plan = planBatch(body, this.limits, new Date());
    const batchId = randomUUID();
    const outcome = await this.store.accept(batchId, accountId, plan);
    if (!outcome.ok) {
      throw new HttpError(
        outcome.reason,
        outcome.reason === 'INSUFFICIENT_CREDIT'
          ? 'Not enough credit for this batch'
          : 'Message quota exhausted for this batch',
      );
    }
    this.onAccepted(plan.recipients);
    // The scheduler also polls Postgres, so a lost event only delays the batch by one poll.
    await this.bus
      .publish(TOPICS.batchAccepted, { batchId })
      .catch((err: unknown) => this.logger.warn({ err, batchId }, 'could not announce the batch'));
    this.logger.info(
      {
        batchId,
        recipients: plan.recipients,
        segments: plan.segments,
        scheduledAt: plan.scheduledAt,
      },
      'batch accepted',
    );
    return { batchId, messageCount: plan.recipients };
  }
}
