import { connect, type Socket } from 'node:net';
import type { Segment } from './http-load';

/**
 * A customer's platform for the benchmark: one transceiver session on raw sockets (SMPP 3.4 4.1
 * bind, 4.4 submit_sm, 4.6 deliver_sm), keeping `window` submit_sm unanswered at once, each asking
 * for a receipt, and counting the receipts that come back as deliver_sm. Raw, so the load
 * generator's own CPU per message stays small beside what it measures.
 */
const BIND_TRANSCEIVER = 0x00000009;
const SUBMIT_SM = 0x00000004;
const DELIVER_SM = 0x00000005;
const ENQUIRE_LINK = 0x00000015;
const UNBIND = 0x00000006;
const RESP = 0x80000000;

const cstr = (text: string): Buffer =>
  Buffer.concat([Buffer.from(text, 'latin1'), Buffer.from([0])]);

function pdu(commandId: number, sequence: number, body: Buffer, status = 0): Buffer {
  const head = Buffer.alloc(16);
  head.writeUInt32BE(16 + body.length, 0);
  head.writeUInt32BE(commandId >>> 0, 4);
  head.writeUInt32BE(status, 8);
  head.writeUInt32BE(sequence, 12);
  return Buffer.concat([head, body]);
}

/** submit_sm of "Hello" to one number, registered_delivery 1, as /secure/send's bench body. */
const SUBMIT_BODY = Buffer.concat([
  cstr(''), // service_type
  Buffer.from([1, 1]),
  cstr(''), // source_addr: the account's default
  Buffer.from([1, 1]),
  cstr('41790000001'),
  Buffer.from([0, 0, 0]), // esm_class, protocol_id, priority_flag
  cstr(''), // schedule_delivery_time
  cstr(''), // validity_period
  Buffer.from([1, 0, 0, 0]), // registered_delivery, replace_if_present, data_coding, sm_default_msg_id
  Buffer.from([5]),
  Buffer.from('Hello', 'latin1'),
]);

/** esm_class of a deliver_sm body: after service_type, source and destination addresses. */
function esmClassOf(body: Buffer): number {
  let at = body.indexOf(0) + 1 + 2; // service_type, source ton and npi
  at = body.indexOf(0, at) + 1 + 2; // source_addr, destination ton and npi
  at = body.indexOf(0, at) + 1; // destination_addr
  return body[at];
}

/**
 * Receipts (deliver_sm with esm_class 0x04) answered by any session of the account: the gateway
 * sends a receipt on whichever of the account's sessions it likes, so they are counted together.
 */
export class ReceiptCount {
  value = 0;

  /** From now: waits until `accepted` more receipts came, or none came for a minute. */
  tracker(): (accepted: number) => Promise<{ done: number; at: number }> {
    const from = this.value;
    return async (accepted) => {
      let seen = this.value;
      let progressAt = Date.now();
      while (this.value - from < accepted && Date.now() - progressAt < 60_000) {
        await new Promise((r) => setTimeout(r, 20));
        if (this.value !== seen) {
          seen = this.value;
          progressAt = Date.now();
        }
      }
      return { done: Math.min(accepted, this.value - from), at: Date.now() };
    };
  }
}

export class SmppLoadClient {
  private buffer: Buffer = Buffer.alloc(0);
  private sequence = 0;
  private readonly waiting = new Map<number, (status: number) => void>();

  private constructor(
    private readonly socket: Socket,
    private readonly receipts: ReceiptCount,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => undefined);
  }

  static async bind(
    port: number,
    systemId: string,
    password: string,
    receipts: ReceiptCount,
  ): Promise<SmppLoadClient> {
    const socket = connect({ host: '127.0.0.1', port });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const client = new SmppLoadClient(socket, receipts);
    const status = await client.request(
      BIND_TRANSCEIVER,
      Buffer.concat([
        cstr(systemId),
        cstr(password),
        cstr(''),
        Buffer.from([0x34, 0, 0]),
        cstr(''),
      ]),
    );
    if (status !== 0) throw new Error(`bind_transceiver refused with status ${status}`);
    return client;
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const answers: Buffer[] = [];
    while (this.buffer.length >= 16) {
      const length = this.buffer.readUInt32BE(0);
      if (this.buffer.length < length) break;
      const commandId = this.buffer.readUInt32BE(4);
      const status = this.buffer.readUInt32BE(8);
      const sequence = this.buffer.readUInt32BE(12);
      if (commandId & RESP) {
        const resolve = this.waiting.get(sequence);
        this.waiting.delete(sequence);
        resolve?.(status);
      } else if (commandId === DELIVER_SM) {
        if (esmClassOf(this.buffer.subarray(16, length)) === 0x04) this.receipts.value += 1;
        answers.push(pdu(DELIVER_SM | RESP, sequence, cstr('')));
      } else if (commandId === ENQUIRE_LINK) {
        answers.push(pdu(ENQUIRE_LINK | RESP, sequence, Buffer.alloc(0)));
      }
      this.buffer = this.buffer.subarray(length);
    }
    // The answers of one read leave in one write, as the gateway's side does.
    if (answers.length > 0) this.socket.write(Buffer.concat(answers));
  }

  private request(commandId: number, body: Buffer): Promise<number> {
    const sequence = ++this.sequence;
    return new Promise((resolve) => {
      this.waiting.set(sequence, resolve);
      this.socket.write(pdu(commandId, sequence, body));
    });
  }

  /** submit_sm for `seconds` with `window` unanswered at once; answered like an HTTP segment. */
  async load(window: number, seconds: number): Promise<Segment> {
    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    let requests = 0;
    let ok = 0;
    const started = Date.now();
    const end = started + seconds * 1000;
    const lane = async (): Promise<void> => {
      while (Date.now() < end) {
        const sent = performance.now();
        requests += 1;
        const status = await this.request(SUBMIT_SM, SUBMIT_BODY);
        latencies.push(performance.now() - sent);
        if (status === 0) ok += 1;
        else {
          const name = `0x${status.toString(16)}`;
          statuses[name] = (statuses[name] ?? 0) + 1;
        }
      }
    };
    await Promise.all(Array.from({ length: window }, lane));
    latencies.sort((a, b) => a - b);
    const at = (q: number) => Math.round(latencies[Math.floor(q * (latencies.length - 1))] ?? 0);
    return {
      requests,
      ok,
      seconds: (Date.now() - started) / 1000,
      p50: at(0.5),
      p99: at(0.99),
      non2xx: requests - ok,
      statuses,
      errors: 0,
    };
  }

  async close(): Promise<void> {
    await Promise.race([
      this.request(UNBIND, Buffer.alloc(0)),
      new Promise((r) => setTimeout(r, 2000)),
    ]);
    this.socket.destroy();
  }
}
