import { TOPICS, type MessageState } from '@smsgw/contracts';
import { GroupCommit, type Bus, type Logger } from '@smsgw/kit';
import type { DeliveryReceipt, ReceiptState } from '@smsgw/smsc';
import type { MessageClaims, PartReceipt, ReceiptMatch } from './message-claims';
import type { DispatcherMetrics } from './metrics';

export interface ReceiptMatcherOptions {
  connector: string;
  /** How long a receipt without a matching submitted message is held (it may beat submit_sm_resp). */
  holdMs: number;
  retryEveryMs: number;
}

/** Receipt states that end a message; intermediate ones (enroute, accepted) change nothing. */
const FINAL: Partial<Record<ReceiptState, MessageState>> = {
  delivered: 'delivered',
  undelivered: 'undelivered',
  expired: 'expired',
  rejected: 'rejected',
  deleted: 'undelivered',
  unknown: 'undelivered',
};

interface Held {
  receipt: DeliveryReceipt;
  until: number;
}

/**
 * Moves submitted messages to their final state from delivery receipts. A receipt can arrive
 * before the submit_sm_resp is recorded (TRAPS.md: Kannel lost ~5% that way), so an unmatched one
 * is held and tried again instead of dropped.
 */
export class ReceiptMatcher {
  private readonly held = new Map<string, Held>();
  private timer: NodeJS.Timeout | undefined;
  /** Receipts come at the submit rate: they are recorded in groups, one transaction each. */
  private readonly records: GroupCommit<PartReceipt, ReceiptMatch | undefined>;

  constructor(
    claims: MessageClaims,
    private readonly bus: Bus,
    private readonly logger: Logger,
    private readonly metrics: DispatcherMetrics,
    private readonly options: ReceiptMatcherOptions,
  ) {
    this.records = new GroupCommit((receipts) => claims.recordReceipts(receipts), { maxSize: 500 });
  }

  readonly receive = (receipt: DeliveryReceipt): void => {
    this.metrics.receipts.inc({ connector: this.options.connector, status: receipt.stat || receipt.state });
    void this.match(receipt).then((matched) => {
      if (!matched) this.hold(receipt);
    });
  };

  private hold(receipt: DeliveryReceipt): void {
    this.held.set(receipt.smscId, { receipt, until: Date.now() + this.options.holdMs });
    this.timer ??= setInterval(() => void this.retryHeld(), this.options.retryEveryMs);
    this.timer.unref();
  }

  private async retryHeld(): Promise<void> {
    const now = Date.now();
    for (const [smscId, entry] of [...this.held]) {
      if (await this.match(entry.receipt)) {
        this.held.delete(smscId);
      } else if (entry.until <= now) {
        this.held.delete(smscId);
        this.logger.info({ smscId, stat: entry.receipt.stat }, 'delivery receipt matched no submitted message');
      }
    }
    if (this.held.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** true when the receipt found its message (or needs none: intermediate states). */
  private async match(receipt: DeliveryReceipt): Promise<boolean> {
    const state = FINAL[receipt.state];
    if (!state) return true;
    try {
      const matched = await this.records.add({ ...receipt, state });
      if (!matched) return false;
      if (matched.final) this.metrics.final.inc({ connector: this.options.connector, state: matched.final });
      if (matched.report) {
        const report = matched.report;
        await this.bus
          .publish(TOPICS.messageDlr, report)
          .catch((err: unknown) => this.logger.warn({ err, messageId: report.messageId }, 'could not publish the delivery report; the outbox keeps it'));
      }
      return true;
    } catch (err) {
      this.logger.warn({ err, smscId: receipt.smscId }, 'could not record a delivery receipt');
      return false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
