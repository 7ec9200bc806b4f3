import { randomUUID, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { TOPICS, type BatchResult, type ErrorItem } from '@smsgw/contracts';
import { HttpError, type Bus, type Logger } from '@smsgw/kit';
import { planBatchInSlices, type BatchLimits, type BatchPlan } from './batch-plan';
import { isCompressed, readBatchBody } from './batch-reader';
import type { BatchStore } from './batch-store';
import { shortfall } from './credit-snapshot';
import { LargeBatchGate } from './large-batch-gate';
import {
  notAllowed,
  type CallbackUrlCheck,
  type OptOutGuard,
  type SenderGuard,
} from '@smsgw/acceptance';
import type { MtRouter } from '@smsgw/routing';
import { routeBatchInSlices } from './batch-routing';

/** Who sends the batch: routes may filter on the account's username. */
export interface BatchSender {
  accountId: string;
  username: string;
}

export interface BatchIntakeLimits extends BatchLimits {
  maxBytes: number;
  /** Above this many bytes (or without a Content-Length) a batch is large (LargeBatchGate). */
  largeBytes: number;
}

export interface BatchHeaders {
  contentLength: number | undefined;
  contentEncoding: string | undefined;
}

/** Objects and arrays a valid batch nests: body, messages, message, custom_tlvs, a TLV; one to spare. */
const MAX_DEPTH = 6;

const SHORT_MESSAGE = {
  INSUFFICIENT_CREDIT: 'Not enough credit for this batch',
  QUOTA_EXCEEDED: 'Message quota exhausted for this batch',
} as const;

/**
 * Accepts a batch: read it as it arrives (refusing early what cannot be paid for), validate all
 * of it, apply the account's sender rules, charge all of it and store it in one statement, then
 * tell the scheduler. The recipients are expanded later, by the scheduler, so the answer comes at
 * once.
 */
export class BatchIntake {
  private readonly gate = new LargeBatchGate();

  constructor(
    private readonly store: BatchStore,
    private readonly bus: Bus,
    private readonly logger: Logger,
    private readonly limits: BatchIntakeLimits,
    private readonly senders: SenderGuard,
    private readonly optOuts: OptOutGuard,
    private readonly router: MtRouter,
    private readonly callbackUrls: CallbackUrlCheck,
    private readonly onAccepted: (recipients: number) => void = () => undefined,
  ) {}

  /** Reads the body from the request stream, then accepts it. */
  async receive(
    sender: BatchSender,
    body: Readable,
    headers: BatchHeaders,
  ): Promise<BatchResult['data']> {
    const read = await this.read(sender, body, headers);
    try {
      return await this.accept(sender, read.batch);
    } finally {
      read.release();
    }
  }

  /**
   * Reads a batch as it arrives, bounded whatever its content or encoding: one large batch per
   * account at a time (a compressed one is large whatever its length on the wire), the size after
   * decompression, and recipients the account cannot pay for at the lowest price it may have.
   * `options.raw` sees the bytes as sent; `options.checkCredit` false reads a batch whose
   * Idempotency-Key is already taken, whose answer may be a replay whatever the account has now.
   * The release ends the account's turn; call it once the batch is accepted or refused.
   */
  async read(
    sender: BatchSender,
    body: Readable,
    headers: BatchHeaders,
    options: { raw?: Hash; checkCredit?: boolean } = {},
  ): Promise<{ batch: unknown; release: () => void }> {
    if (headers.contentLength !== undefined && headers.contentLength > this.limits.maxBytes) {
      throw new HttpError(
        'PAYLOAD_TOO_LARGE',
        `The batch is larger than ${this.limits.maxBytes} bytes`,
      );
    }
    const { accountId } = sender;
    const large =
      headers.contentLength === undefined ||
      headers.contentLength > this.limits.largeBytes ||
      isCompressed(headers.contentEncoding);
    const release = large ? this.gate.enter(accountId) : () => undefined;
    try {
      const credit = await this.store.creditSnapshot(
        accountId,
        this.router.lowestPriceFor(sender.username, accountId),
      );
      if (!credit) throw HttpError.unauthorized('Account no longer exists');
      const checkCredit = options.checkCredit ?? true;
      const batch = await readBatchBody(
        body,
        headers.contentEncoding,
        {
          maxBytes: this.limits.maxBytes,
          maxDepth: MAX_DEPTH,
          maxRecipients: this.limits.maxRecipients,
        },
        (recipients) => {
          const short = checkCredit ? shortfall(credit, recipients) : undefined;
          if (short) throw new HttpError(short, SHORT_MESSAGE[short]);
        },
        options.raw,
      );
      return { batch, release };
    } catch (err) {
      release();
      throw err;
    }
  }

  async accept(sender: BatchSender, body: unknown): Promise<BatchResult['data']> {
    const { accountId } = sender;
    const plan = await planBatchInSlices(body, this.limits, new Date());
    await this.checkCallbackUrls(plan);
    await this.applySenderRules(accountId, plan);
    await this.leaveOutOptedOut(accountId, plan);
    await routeBatchInSlices(this.router, sender, plan);
    const batchId = randomUUID();
    const outcome = await this.store.accept(batchId, accountId, plan);
    if (!outcome.ok) throw new HttpError(outcome.reason, SHORT_MESSAGE[outcome.reason]);
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
    // Jasmin's answer names a batch's delay, when it has one, in seconds ("3600s").
    const delay =
      plan.scheduledAt === null ? 0 : Math.round((plan.scheduledAt.getTime() - Date.now()) / 1000);
    return {
      batchId,
      messageCount: plan.recipients,
      ...(delay > 0 && { scheduled: `${delay}s` }),
    };
  }

  /**
   * The batch's callback URLs and each distinct dlr-url of its messages, before anything is
   * charged: one on a private address is a 400 naming where it is.
   */
  private async checkCallbackUrls(plan: BatchPlan): Promise<void> {
    await this.callbackUrls.check('batch_config.callback_url', plan.callbackUrl);
    await this.callbackUrls.check('batch_config.errback_url', plan.errbackUrl);
    const seen = new Set<string>();
    for (const [index, entry] of plan.entries.entries()) {
      const url = entry.report?.url;
      if (typeof url !== 'string' || seen.has(url)) continue;
      seen.add(url);
      await this.callbackUrls.check(`messages[${index}].dlr_url`, url);
    }
  }

  /**
   * Recipients on the account's opt-out list are left out, not charged, and counted; a batch with
   * nobody left to send to is refused.
   */
  private async leaveOutOptedOut(accountId: string, plan: BatchPlan): Promise<void> {
    const out = await this.optOuts.optedOut(
      accountId,
      plan.entries.flatMap((e) => e.recipients),
    );
    if (out.size === 0) return;
    let left = 0;
    for (const entry of plan.entries) {
      const kept = entry.recipients.filter((to) => !out.has(to));
      left += entry.recipients.length - kept.length;
      plan.recipients -= entry.recipients.length - kept.length;
      plan.segments -= (entry.recipients.length - kept.length) * entry.segments;
      entry.recipients = kept;
    }
    plan.entries = plan.entries.filter((e) => e.recipients.length > 0);
    plan.optedOut = left;
    if (plan.recipients === 0)
      throw new HttpError(
        'RECIPIENT_OPTED_OUT',
        "Every recipient of the batch opted out of this account's messages; nothing was charged",
      );
  }

  /** Every message's sender (globals applied) is checked; one refused refuses the whole batch. */
  private async applySenderRules(accountId: string, plan: BatchPlan): Promise<void> {
    const decide = await this.senders.decider(accountId);
    const refused: ErrorItem[] = [];
    plan.entries.forEach((entry, index) => {
      const decision = decide(entry.from ?? undefined);
      if (!decision.ok)
        refused.push({
          index,
          field: 'from',
          message: `this account may not send from ${entry.from ?? ''}`,
        });
      else entry.from = decision.from ?? null;
    });
    if (refused.length > 0) throw notAllowed('', refused);
  }
}
