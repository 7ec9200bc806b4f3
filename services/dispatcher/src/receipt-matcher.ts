import { DLR_GROUP_MAX, TOPICS, type MessageDlrEvent, type MessageState } from '@smsgw/contracts';
import { GroupCommit, type Bus, type Logger } from '@smsgw/kit';
import { receiptStatLabel, type DeliveryReceipt, type ReceiptState } from '@smsgw/smsc';
import type { MessageClaims, PartReceipt, ReceiptMatch } from './message-claims';
import type { DispatcherMetrics } from './metrics';

export interface ReceiptMatcherOptions {
  connector: string;
  /**
   * How long a receipt without a matching submitted message is held (it may beat submit_sm_resp).
   */
  holdMs: number;
  retryEveryMs: number;
  /** How long a receipt waits for others to share its statement. */
  lingerMs: number;
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
  /** Answers the SMSC's deliver_sm. */
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * Moves submitted messages to their final state from delivery receipts. A receipt can arrive before
 * the submit_sm_resp is recorded (docs/architecture.md § Receipts and message ids: Kannel lost
 * receipts that way), so an unmatched one is held and tried again instead of dropped.
 */
export class ReceiptMatcher {
  private readonly held = new Map<string, Held>();
  private timer: NodeJS.Timeout | undefined;
  /** Receipts come at the submit rate: they are recorded in groups, one statement each. */
  private readonly records: GroupCommit<PartReceipt, ReceiptMatch | undefined>;

  constructor(
    claims: MessageClaims,
    private readonly bus: Bus,
    private readonly logger: Logger,
    private readonly metrics: DispatcherMetrics,
    private readonly options: ReceiptMatcherOptions,
  ) {
    this.records = new GroupCommit(
      async (receipts) => {
        const matches = await claims.recordReceipts(receipts);
        await this.publishReports(matches.flatMap((m) => (m?.report ? [m.report] : [])));
        return matches;
      },
      { maxSize: DLR_GROUP_MAX, lingerMs: options.lingerMs },
    );
  }

  /**
   * The reports of one recorded group leave as one broker message: one per report cost the broker
   * and the notifier more than the report's own work. The outbox keeps them if the publish fails.
   */
  private async publishReports(reports: MessageDlrEvent[]): Promise<void> {
    if (reports.length === 0) return;
    await this.bus
      .publish(TOPICS.messageDlrGroup, { reports })
      .catch((err: unknown) =>
        this.logger.warn(
          { err, count: reports.length },
          'could not publish the delivery reports; the outbox keeps them',
        ),
      );
  }

  /**
   * Resolves once the receipt is recorded, or held past holdMs without a message to match; the
   * connector answers the SMSC's deliver_sm only then, so a receipt is never acknowledged and lost
   * in a crash. Rejects when it could not be recorded (the database did not answer): the SMSC is
   * told to deliver it again later.
   */
  readonly receive = (receipt: DeliveryReceipt): Promise<void> => {
    this.metrics.receipts.inc({
      connector: this.options.connector,
      status: receiptStatLabel(receipt.stat),
    });
    return new Promise<void>((resolve, reject) => {
      void this.match(receipt).then((outcome) => {
        if (outcome === 'matched') resolve();
        else if (outcome === 'error')
          reject(new Error(`could not record the receipt of ${receipt.smscId}`));
        else this.hold({ receipt, until: Date.now() + this.options.holdMs, resolve, reject });
      });
    });
  };

  private hold(entry: Held): void {
    // A receipt the SMSC sent again replaces the held one, which is answered (it is the same
    // receipt).
    this.held.get(entry.receipt.smscId)?.resolve();
    this.held.set(entry.receipt.smscId, entry);
    this.timer ??= setInterval(() => void this.retryHeld(), this.options.retryEveryMs);
    this.timer.unref();
  }

  private retrying = false;

  private async retryHeld(): Promise<void> {
    if (this.retrying) return;
    this.retrying = true;
    try {
      const now = Date.now();
      await Promise.all(
        [...this.held].map(async ([smscId, entry]) => {
          const outcome = await this.match(entry.receipt);
          if (this.held.get(smscId) !== entry) return;
          if (outcome === 'matched') {
            this.held.delete(smscId);
            entry.resolve();
          } else if (outcome === 'error') {
            this.held.delete(smscId);
            entry.reject(new Error(`could not record the receipt of ${smscId}`));
          } else if (entry.until <= now) {
            this.held.delete(smscId);
            this.logger.info(
              { smscId, stat: entry.receipt.stat },
              'delivery receipt matched no submitted message',
            );
            entry.resolve();
          }
        }),
      );
    } finally {
      this.retrying = false;
    }
    if (this.held.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Whether the receipt found its message (intermediate states need none: matched). */
  private async match(receipt: DeliveryReceipt): Promise<'matched' | 'unmatched' | 'error'> {
    const state = FINAL[receipt.state];
    if (!state) return 'matched';
    try {
      const matched = await this.records.add({ ...receipt, state });
      if (!matched) return 'unmatched';
      if (matched.final)
        this.metrics.final.inc({ connector: this.options.connector, state: matched.final });
      return 'matched';
    } catch (err) {
      this.logger.warn({ err, smscId: receipt.smscId }, 'could not record a delivery receipt');
      return 'error';
    }
  }

  /** Whether a receipt with this id waits, held, for its message to be recorded. */
  holds(smscId: string): boolean {
    return this.held.has(smscId);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
