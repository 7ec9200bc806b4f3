/**
 * A customer's SMPP client, written here from SMPP 3.4 (section 3.2 the PDU format, 4.1 bind,
 * 4.4 submit_sm, 4.6 deliver_sm, 4.8 query_sm, 4.9 cancel_sm, 4.11 enquire_link, 5.3 TLVs) on raw sockets. The
 * gateway's own side uses the npm `smpp` package, and the npm registry offers no other SMPP
 * client, so the suite speaks the protocol itself rather than through the library it tests
 * against: a misreading of the spec shared by both ends cannot hide here.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export const CMD = {
  generic_nack: 0x80000000,
  bind_receiver: 0x00000001,
  bind_transmitter: 0x00000002,
  query_sm: 0x00000003,
  cancel_sm: 0x00000008,
  submit_sm: 0x00000004,
  deliver_sm: 0x00000005,
  unbind: 0x00000006,
  bind_transceiver: 0x00000009,
  enquire_link: 0x00000015,
  data_sm: 0x00000103,
} as const;
const RESP = 0x80000000;

export interface Pdu {
  commandId: number;
  status: number;
  sequence: number;
  body: Buffer;
}

/** A C-Octet String: the text and its terminating NULL. */
export const cstr = (text: string): Buffer =>
  Buffer.concat([Buffer.from(text, 'latin1'), Buffer.from([0])]);
const u8 = (n: number): Buffer => Buffer.from([n]);

export function tlv(tag: number, value: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(tag, 0);
  head.writeUInt16BE(value.length, 2);
  return Buffer.concat([head, value]);
}

/** Reads C-Octet Strings and integers in order from a PDU body. */
export class BodyReader {
  at = 0;
  constructor(readonly body: Buffer) {}
  cstr(): string {
    const end = this.body.indexOf(0, this.at);
    const text = this.body.toString('latin1', this.at, end < 0 ? this.body.length : end);
    this.at = end < 0 ? this.body.length : end + 1;
    return text;
  }
  u8(): number {
    return this.body[this.at++];
  }
  bytes(n: number): Buffer {
    const out = this.body.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  /** The TLVs after the mandatory fields, by tag. */
  tlvs(): Map<number, Buffer> {
    const found = new Map<number, Buffer>();
    while (this.at + 4 <= this.body.length) {
      const tag = this.body.readUInt16BE(this.at);
      const length = this.body.readUInt16BE(this.at + 2);
      found.set(tag, this.body.subarray(this.at + 4, this.at + 4 + length));
      this.at += 4 + length;
    }
    return found;
  }
}

export interface SubmitOptions {
  from?: string;
  to: string;
  bytes: Buffer;
  dataCoding?: number;
  esmClass?: number;
  registeredDelivery?: number;
  priority?: number;
  validity?: string;
  tlvs?: Buffer[];
}

export function submitBody(o: SubmitOptions): Buffer {
  const message = o.bytes.length <= 254 ? o.bytes : Buffer.alloc(0);
  return Buffer.concat([
    cstr(''), // service_type
    u8(o.from && /\D/.test(o.from) ? 5 : 1),
    u8(1),
    cstr(o.from ?? ''),
    u8(1),
    u8(1),
    cstr(o.to),
    u8(o.esmClass ?? 0),
    u8(0), // protocol_id
    u8(o.priority ?? 0),
    cstr(''), // schedule_delivery_time
    cstr(o.validity ?? ''),
    u8(o.registeredDelivery ?? 0),
    u8(0), // replace_if_present_flag
    u8(o.dataCoding ?? 0),
    u8(0), // sm_default_msg_id
    u8(message.length),
    message,
    ...(o.bytes.length > 254 ? [tlv(0x0424, o.bytes)] : []),
    ...(o.tlvs ?? []),
  ]);
}

/** A deliver_sm as the customer reads it. */
export interface Delivered {
  from: string;
  to: string;
  esmClass: number;
  dataCoding: number;
  bytes: Buffer;
  tlvs: Map<number, Buffer>;
}

export function readDeliver(body: Buffer): Delivered {
  const r = new BodyReader(body);
  r.cstr(); // service_type
  r.u8();
  r.u8();
  const from = r.cstr();
  r.u8();
  r.u8();
  const to = r.cstr();
  const esmClass = r.u8();
  r.u8(); // protocol_id
  r.u8(); // priority_flag
  r.cstr(); // schedule_delivery_time
  r.cstr(); // validity_period
  r.u8(); // registered_delivery
  r.u8(); // replace_if_present_flag
  const dataCoding = r.u8();
  r.u8(); // sm_default_msg_id
  const length = r.u8();
  const bytes = r.bytes(length);
  const tlvs = r.tlvs();
  return {
    from,
    to,
    esmClass,
    dataCoding,
    bytes: bytes.length > 0 ? bytes : (tlvs.get(0x0424) ?? bytes),
    tlvs,
  };
}

export interface EsmeOptions {
  host?: string;
  port: number;
  /** The loopback address the client connects from (the server's caps are per address). */
  localAddress?: string;
  tls?: { ca: string };
  /** How the client answers a deliver_sm (default ESME_ROK); undefined: leaves it unanswered. */
  answerDeliver?: (d: Delivered) => number | undefined;
  /** false: the client ignores the server's enquire_link, as a hung platform would. */
  answerEnquireLink?: boolean;
}

/** One customer connection. */
export class Esme {
  private readonly socket: Socket;
  private buffer = Buffer.alloc(0);
  private sequence = 0;
  private readonly waiting = new Map<number, (pdu: Pdu) => void>();
  /** deliver_sm received, in order. */
  readonly delivered: Delivered[] = [];
  /** Requests the server sent (enquire_link, unbind, deliver_sm), by command id. */
  readonly received: Pdu[] = [];
  closed = false;
  readonly ready: Promise<void>;

  constructor(private readonly options: EsmeOptions) {
    const host = options.host ?? '127.0.0.1';
    this.socket = options.tls
      ? tlsConnect({ host, port: options.port, ca: options.tls.ca, servername: 'localhost' })
      : tcpConnect({
          host,
          port: options.port,
          ...(options.localAddress !== undefined && { localAddress: options.localAddress }),
        });
    this.ready = new Promise((resolve, reject) => {
      this.socket.once(options.tls ? 'secureConnect' : 'connect', () => resolve());
      this.socket.once('error', reject);
    });
    this.socket.on('error', () => undefined);
    this.socket.on('data', (chunk) => this.onData(chunk));
    this.socket.on('close', () => {
      this.closed = true;
    });
  }

  private onData(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    while (this.buffer.length >= 16) {
      const length = this.buffer.readUInt32BE(0);
      if (this.buffer.length < length) return;
      const pdu: Pdu = {
        commandId: this.buffer.readUInt32BE(4),
        status: this.buffer.readUInt32BE(8),
        sequence: this.buffer.readUInt32BE(12),
        body: Buffer.from(this.buffer.subarray(16, length)),
      };
      this.buffer = this.buffer.subarray(length);
      this.onPdu(pdu);
    }
  }

  private onPdu(pdu: Pdu): void {
    if (pdu.commandId & RESP) {
      const resolve = this.waiting.get(pdu.sequence);
      this.waiting.delete(pdu.sequence);
      resolve?.(pdu);
      return;
    }
    this.received.push(pdu);
    if (pdu.commandId === CMD.enquire_link && this.options.answerEnquireLink !== false)
      this.write(CMD.enquire_link | RESP, 0, pdu.sequence);
    if (pdu.commandId === CMD.unbind) {
      this.write(CMD.unbind | RESP, 0, pdu.sequence);
      this.socket.end();
    }
    if (pdu.commandId === CMD.deliver_sm) {
      const delivered = readDeliver(pdu.body);
      const status = (this.options.answerDeliver ?? (() => 0))(delivered);
      if (status === undefined) return;
      this.delivered.push(delivered);
      this.write(CMD.deliver_sm | RESP, status, pdu.sequence, cstr(''));
    }
  }

  /** Writes a raw PDU (header and body). */
  write(commandId: number, status: number, sequence: number, body: Buffer = Buffer.alloc(0)): void {
    const head = Buffer.alloc(16);
    head.writeUInt32BE(16 + body.length, 0);
    head.writeUInt32BE(commandId >>> 0, 4);
    head.writeUInt32BE(status, 8);
    head.writeUInt32BE(sequence, 12);
    this.socket.write(Buffer.concat([head, body]));
  }

  /** Writes bytes as they are: a PDU whose header may lie about its length. */
  writeRaw(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** Sends a request and resolves with its response (or rejects when the connection closes). */
  request(commandId: number, body: Buffer = Buffer.alloc(0)): Promise<Pdu> {
    const sequence = ++this.sequence;
    return new Promise<Pdu>((resolve, reject) => {
      const onClose = (): void =>
        reject(new Error(`closed before the answer to 0x${commandId.toString(16)}`));
      this.socket.once('close', onClose);
      this.waiting.set(sequence, (pdu) => {
        this.socket.off('close', onClose);
        resolve(pdu);
      });
      this.write(commandId, 0, sequence, body);
    });
  }

  bind(
    kind: 'bind_transmitter' | 'bind_receiver' | 'bind_transceiver',
    systemId: string,
    password: string,
  ): Promise<Pdu> {
    return this.request(
      CMD[kind],
      Buffer.concat([cstr(systemId), cstr(password), cstr(''), u8(0x34), u8(0), u8(0), cstr('')]),
    );
  }

  /** submit_sm; resolves with its status and message_id. */
  async submit(o: SubmitOptions): Promise<{ status: number; id: string }> {
    const resp = await this.request(CMD.submit_sm, submitBody(o));
    return { status: resp.status, id: new BodyReader(resp.body).cstr() };
  }

  async query(id: string): Promise<{ status: number; state: number; finalDate: string }> {
    const resp = await this.request(
      CMD.query_sm,
      Buffer.concat([cstr(id), u8(0), u8(0), cstr('')]),
    );
    const r = new BodyReader(resp.body);
    r.cstr();
    const finalDate = resp.body.length > 0 ? r.cstr() : '';
    return { status: resp.status, finalDate, state: resp.body.length > 0 ? r.u8() : 0 };
  }

  /** cancel_sm of one message by its id (SMPP 3.4 4.9.1); resolves with the status. */
  async cancel(id: string, to: string, from = ''): Promise<number> {
    const resp = await this.request(
      CMD.cancel_sm,
      Buffer.concat([cstr(''), cstr(id), u8(1), u8(1), cstr(from), u8(1), u8(1), cstr(to)]),
    );
    return resp.status;
  }

  unbind(): Promise<Pdu> {
    return this.request(CMD.unbind);
  }

  close(): void {
    this.socket.destroy();
  }
}

export async function openEsme(options: EsmeOptions): Promise<Esme> {
  const esme = new Esme(options);
  await esme.ready;
  return esme;
}
