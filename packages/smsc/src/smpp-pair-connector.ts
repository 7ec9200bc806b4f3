import type { Logger } from '@smsgw/kit';
import type { InboundPdu } from './inbound';
import { SmppConnector, type SmppConnectorConfig } from './smpp-connector';
import type { WindowLoad } from './submit-window';
import type {
  DeliveryReceipt,
  NoAnswerPolicy,
  SmscConnector,
  SubmitRequest,
  Submission,
} from './smsc-connector';

/**
 * A connector bound as a transmitter plus a receiver, for SMSCs that take no transceiver binds:
 * submit_sm go over the transmitter session, receipts and inbound messages come over the receiver.
 * Each session keeps its own reconnect, liveness and backoff; the connector is up while the
 * transmitter is bound (the SMSC holds receipts while the receiver reconnects).
 */
export class SmppPairConnector implements SmscConnector {
  readonly name: string;
  readonly window: number;
  readonly onNoAnswer: NoAnswerPolicy;
  private readonly transmitter: SmppConnector;
  private readonly receiver: SmppConnector;

  constructor(options: SmppConnectorConfig, logger: Logger) {
    this.transmitter = new SmppConnector({ ...options, bindAs: 'transmitter' }, logger);
    this.receiver = new SmppConnector({ ...options, bindAs: 'receiver' }, logger);
    this.name = this.transmitter.name;
    this.window = this.transmitter.window;
    this.onNoAnswer = this.transmitter.onNoAnswer;
  }

  async start(): Promise<void> {
    await Promise.all([this.transmitter.start(), this.receiver.start()]);
  }

  placesFor(parts: number): number {
    return this.transmitter.placesFor(parts);
  }

  load(): WindowLoad {
    return this.transmitter.load();
  }

  room(): number {
    return this.transmitter.room();
  }

  onRoom(listener: () => void): void {
    this.transmitter.onRoom(listener);
  }

  submit(request: SubmitRequest): Submission {
    return this.transmitter.submit(request);
  }

  submitAll(requests: readonly SubmitRequest[]): Submission[] {
    return this.transmitter.submitAll(requests);
  }

  onReceipt(listener: (receipt: DeliveryReceipt) => void | Promise<void>): void {
    // Some SMSCs send receipts over any bound session of the system_id: both are heard.
    this.transmitter.onReceipt(listener);
    this.receiver.onReceipt(listener);
  }

  onInbound(listener: (inbound: InboundPdu) => Promise<void>): void {
    this.transmitter.onInbound(listener);
    this.receiver.onInbound(listener);
  }

  isUp(): boolean {
    return this.transmitter.isUp();
  }

  /** Sessions bound at the SMSC: up to two. */
  sessions(): number {
    return (this.transmitter.isUp() ? 1 : 0) + (this.receiver.isUp() ? 1 : 0);
  }

  async stop(): Promise<void> {
    await Promise.all([this.transmitter.stop(), this.receiver.stop()]);
  }
}
