import { GroupCommit, PollingLoop, type Db, type Logger } from '@smsgw/kit';
import {
  deleteSmppDeliveries,
  expireSmppDeliveries,
  releaseSmppDelivery,
  smppDeliveriesWaiting,
  takeSmppDeliveries,
  type SmppDeliveryRow,
} from '@smsgw/store';
import type { SmppServerMetrics } from './metrics';
import { inboundDeliverSm, receiptDeliverSm } from './receipt-pdu';
import type { SmppServer } from './smpp-server';

export interface DeliveriesOptions {
  /** How often the waiting deliveries of the accounts bound here are looked for. */
  pollMs: number;
  /** A deliver_sm not answered within this is sent again (on any session of the account). */
  answerTimeoutMs: number;
  /** Dropped after waiting this long (SMPP_RECEIPT_EXPIRY_HOURS). */
  expiryHours: number;
  /** Taken at once per round. */
  batch: number;
}

/**
 * Sends what waits in smpp_deliveries (receipts, inbound messages) to the receiver and
 * transceiver sessions bound to this replica: each row is leased while its deliver_sm is out,
 * deleted when the customer answers ESME_ROK, and sent again after the lease otherwise, so
 * nothing is lost when a session drops and nothing waits for a replica that died. The rows
 * answered while one deletion is in flight go together in the next (a customer answers a round's
 * deliver_sm in bursts), so a window of receipts costs a few statements, not one each.
 */
export class Deliveries {
  private readonly loop: PollingLoop;
  private readonly housekeeping: PollingLoop;
  private readonly done: GroupCommit<string, undefined>;
  private turn = 0;

  constructor(
    private readonly db: Db,
    private readonly server: SmppServer,
    private readonly metrics: SmppServerMetrics,
    private readonly logger: Logger,
    private readonly options: DeliveriesOptions,
  ) {
    this.loop = new PollingLoop(() => this.round(), logger, 'SMPP deliveries');
    this.housekeeping = new PollingLoop(() => this.expire(), logger, 'SMPP deliveries expiry');
    this.done = new GroupCommit(
      async (ids) => {
        await deleteSmppDeliveries(db, ids);
        return ids.map(() => undefined);
      },
      { maxSize: 1000 },
    );
  }

  start(): void {
    this.server.onReceiverBound = () => this.loop.wake();
    this.loop.start(this.options.pollMs);
    this.housekeeping.start(10_000);
  }

  /** Something may be waiting now (a receiver bound, a receipt was kept). */
  wake(): void {
    this.loop.wake();
  }

  private async round(): Promise<void> {
    const accounts = this.server.receivingAccounts();
    if (accounts.length === 0) return;
    // Leased a little longer than a deliver_sm may wait for its answer.
    const rows = await takeSmppDeliveries(
      this.db,
      accounts,
      this.options.answerTimeoutMs + 1_000,
      this.options.batch,
    );
    await Promise.all(rows.map((row) => this.deliver(row)));
    if (rows.length === this.options.batch) this.loop.wake();
  }

  private async deliver(row: SmppDeliveryRow): Promise<void> {
    const sessions = this.server.receiversOf(row.account_id);
    if (sessions.length === 0) return;
    const session = sessions[this.turn++ % sessions.length];
    const fields =
      row.kind === 'receipt' ? receiptDeliverSm(row.source_id, row.pdu) : inboundDeliverSm(row.pdu);
    try {
      const status = await session.deliver(fields, this.options.answerTimeoutMs);
      if (status !== 0) {
        this.logger.info(
          { session: session.id, status, attempts: row.attempts },
          'customer refused a deliver_sm; it is sent again later',
        );
        return;
      }
      this.metrics.delivered.inc({ account: session.account!.username, kind: row.kind });
      // Left, the row is sent again after its lease: at least once, as after a crash here.
      await this.done
        .add(row.id)
        .catch((err: unknown) =>
          this.logger.warn(
            { err },
            'deleting answered SMPP deliveries failed; they are sent again',
          ),
        );
    } catch (err) {
      this.logger.info(
        { err, session: session.id, attempts: row.attempts },
        'deliver_sm unanswered; it is sent again',
      );
      if (!session.receives) {
        await releaseSmppDelivery(this.db, row.id);
        this.loop.wake();
      }
    }
  }

  private async expire(): Promise<void> {
    const dropped = await expireSmppDeliveries(this.db, this.options.expiryHours);
    if (dropped > 0)
      this.logger.warn({ dropped }, 'SMPP receipts and inbound messages expired unsent');
    for (const kind of ['receipt', 'inbound']) {
      this.metrics.waiting.set({ kind }, 0);
      this.metrics.oldestWaiting.set({ kind }, 0);
    }
    for (const w of await smppDeliveriesWaiting(this.db)) {
      this.metrics.waiting.set({ kind: w.kind }, w.count);
      this.metrics.oldestWaiting.set({ kind: w.kind }, w.oldest_seconds);
    }
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.housekeeping.stop();
  }
}
