import { TOPICS } from '@smsgw/contracts';
import type { Bus, Db, Logger } from '@smsgw/kit';
import { inboundPart, inboundRecord, withoutNul, type InboundPdu } from '@smsgw/smsc';
import {
  addInboundPart,
  recordInboundMessage,
  takeExpiredInboundParts,
  type InboundPartRow,
  type NewInboundMessage,
} from '@smsgw/store';
import type { InboundMetrics } from './metrics';

export interface InboundReceiverOptions {
  /** The connector the messages come through (inbound_messages.connector). */
  connector: string;
  /** Parts still missing after this long: the message is delivered as what arrived. */
  partTimeoutMs: number;
  /** The same message delivered again within this window is recognised as a repeat. */
  dedupWindowMs: number;
  /** How often the sweep for expired parts runs. */
  sweepEveryMs: number;
}

/**
 * Records each mobile-originated message before the SMSC gets its answer: a single one at once, a
 * part among its message's parts until all are there (then the message, joined in part order, and
 * the parts gone, in one transaction), then tells the notifier (inbound.received). The event only
 * brings the message sooner: the notifier also sweeps for messages left `received`.
 */
export class InboundReceiver {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly bus: Bus,
    private readonly logger: Logger,
    private readonly metrics: InboundMetrics,
    private readonly options: InboundReceiverOptions,
  ) {}

  readonly receive = async (received: InboundPdu): Promise<void> => {
    const { connector } = this.options;
    // Whatever the SMSC put in the addresses is recorded: a NUL in them must not refuse the part.
    const pdu = { ...received, from: withoutNul(received.from), to: withoutNul(received.to) };
    const { body, concatenation } = inboundPart(pdu);
    if (!concatenation) {
      this.metrics.received.inc({ connector, kind: 'single' });
      const message = this.message([{ coding: pdu.dataCoding, body }], pdu.from, pdu.to, 1);
      await this.recorded(message, 'single', await recordInboundMessage(this.db, message));
      return;
    }
    this.metrics.received.inc({ connector, kind: 'part' });
    // The part, and the message once it is whole, in one transaction: a crash keeps one or the other.
    const joined = await this.db.transaction(async (tx) => {
      const parts = await addInboundPart(tx, {
        connector,
        from_addr: pdu.from,
        to_addr: pdu.to,
        ...concatenation,
        coding: pdu.dataCoding,
        body,
      });
      if (parts.length === 0) return undefined;
      const message = this.message(parts, pdu.from, pdu.to, concatenation.total);
      return { message, fresh: await recordInboundMessage(tx, message) };
    });
    if (joined) await this.recorded(joined.message, 'joined', joined.fresh);
  };

  /** Delivers as incomplete the messages whose missing parts did not come in time. */
  async sweep(): Promise<number> {
    const recorded = await this.db.transaction(async (tx) => {
      const groups = await takeExpiredInboundParts(tx, this.options.partTimeoutMs);
      const out: { message: NewInboundMessage; fresh: boolean }[] = [];
      for (const parts of groups) {
        const message = this.message(parts, parts[0].from_addr, parts[0].to_addr, parts[0].total);
        out.push({ message, fresh: await recordInboundMessage(tx, message) });
      }
      return out;
    });
    for (const { message, fresh } of recorded) await this.recorded(message, 'incomplete', fresh);
    return recorded.length;
  }

  /** The whole message of these parts (in part order), decoded by its coding. */
  private message(
    parts: readonly Pick<InboundPartRow, 'coding' | 'body'>[],
    from: string,
    to: string,
    expected: number,
  ): NewInboundMessage {
    // Joined as bytes before decoding: a UCS-2 surrogate pair may straddle two parts.
    return inboundRecord({
      connector: this.options.connector,
      from,
      to,
      coding: parts[0].coding,
      bytes: Buffer.concat(parts.map((p) => p.body)),
      partsExpected: expected,
      partsReceived: parts.length,
      dedupWindowMs: this.options.dedupWindowMs,
      now: Date.now(),
    });
  }

  /** Counts it and tells the notifier, once committed; a repeat is only counted. */
  private async recorded(
    message: NewInboundMessage,
    kind: 'single' | 'joined' | 'incomplete',
    fresh: boolean,
  ): Promise<void> {
    const { connector } = this.options;
    if (!fresh) {
      this.metrics.duplicates.inc({ connector });
      this.logger.info(
        { connector, from: message.from, to: message.to },
        'inbound message delivered again; recorded once',
      );
      return;
    }
    this.metrics.messages.inc({ connector, kind });
    await this.bus
      .publish(TOPICS.inboundReceived, { inboundId: message.id })
      .catch((err: unknown) =>
        this.logger.warn(
          { err, inboundId: message.id },
          'could not publish inbound.received; the sweep finds it',
        ),
      );
  }

  start(): void {
    this.timer = setInterval(() => {
      this.sweep().catch((err: unknown) =>
        this.logger.warn({ err }, 'inbound part sweep failed; tried again next time'),
      );
    }, this.options.sweepEveryMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
