/**
 * A customer's platform on Perl's Net::SMPP: each NetSmppEsme is one connection, driven through
 * esme.pl (one Perl process) with JSON lines. Requests go out in Net::SMPP's asynchronous mode, so
 * several may be on the wire at once (a long message's parts, a burst past the throughput); every
 * wait is bounded.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ensureNetSmpp } from './install';

const DRIVER = join(__dirname, 'esme.pl');
/** How long a request waits for its response before the test fails. */
const ANSWER_TIMEOUT_MS = 30_000;

/** A PDU as Net::SMPP decoded it. */
export interface SmppPdu {
  command: string;
  commandId: number;
  status: number;
  sequence: number;
  /** The mandatory fields by Net::SMPP's names (SMPP 3.4's). */
  fields: Record<string, string | number>;
  shortMessage: Buffer;
  /** TLVs by tag. */
  tlvs: Map<number, Buffer>;
}

interface WireEvent {
  event?: 'pdu' | 'closed';
  reply?: number | null;
  seq?: number;
  error?: string;
  reason?: string;
  command?: string;
  command_id?: number;
  status?: number;
  sequence?: number;
  fields?: Record<string, string | number>;
  short_message?: string;
  tlvs?: Record<string, string>;
}

export type BindKind = 'transmitter' | 'receiver' | 'transceiver';

export interface Submit {
  source_addr?: string;
  source_addr_ton?: number;
  source_addr_npi?: number;
  destination_addr: string;
  dest_addr_ton?: number;
  dest_addr_npi?: number;
  esm_class?: number;
  data_coding?: number;
  registered_delivery?: number;
  priority_flag?: number;
  validity_period?: string;
  /** The bytes of short_message (empty when the content goes in message_payload). */
  short_message: Buffer;
  /** TLVs by Net::SMPP's name (message_payload, sar_msg_ref_num, …) or tag. */
  tlvs?: Record<string, Buffer>;
}

export interface EsmeOptions {
  port: number;
  host?: string;
  /** false: deliver_sm are left unanswered until answerDeliver is called. */
  answerDeliverSm?: boolean;
}

const RESPONSE = 0x80000000;

export class NetSmppEsme {
  private readonly perl: ChildProcessWithoutNullStreams;
  private nextId = 0;
  private readonly replies = new Map<number, (event: WireEvent) => void>();
  private readonly responses = new Map<number, (pdu: SmppPdu) => void>();
  /**
   * Responses read before their request's seq reached the caller: readline emits the lines of one
   * chunk at once, before the promise that learns the seq resumes.
   */
  private readonly unclaimed = new Map<number, SmppPdu>();
  private readonly arrivals = new Set<() => void>();
  private stderr = '';
  /** Requests the server sent (deliver_sm, enquire_link, unbind), in order. */
  readonly received: SmppPdu[] = [];
  closed = false;
  closeReason = '';

  private constructor(private readonly options: EsmeOptions) {
    this.perl = spawn('perl', [DRIVER], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.perl.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-4000);
    });
    this.perl.on('exit', () => this.onClosed('the Perl client exited'));
    createInterface({ input: this.perl.stdout }).on('line', (line) =>
      this.onEvent(JSON.parse(line) as WireEvent),
    );
  }

  /** A client with no connection yet; the first bind opens it. */
  static create(options: EsmeOptions): NetSmppEsme {
    ensureNetSmpp();
    const esme = new NetSmppEsme(options);
    if (options.answerDeliverSm === false) void esme.command({ op: 'set', answer_deliver_sm: 0 });
    return esme;
  }

  /** deliver_sm received, in order. */
  get delivered(): SmppPdu[] {
    return this.received.filter((p) => p.command === 'deliver_sm');
  }

  private onEvent(event: WireEvent): void {
    if (event.reply !== undefined && event.reply !== null) {
      const resolve = this.replies.get(event.reply);
      this.replies.delete(event.reply);
      resolve?.(event);
      return;
    }
    if (event.event === 'closed') {
      this.onClosed(event.reason ?? 'closed');
      return;
    }
    if (event.event !== 'pdu') return;
    const pdu: SmppPdu = {
      command: event.command ?? '',
      commandId: event.command_id ?? 0,
      status: event.status ?? 0,
      sequence: event.sequence ?? 0,
      fields: event.fields ?? {},
      shortMessage: Buffer.from(event.short_message ?? '', 'hex'),
      tlvs: new Map(
        Object.entries(event.tlvs ?? {}).map(([t, v]) => [Number(t), Buffer.from(v, 'hex')]),
      ),
    };
    if (pdu.commandId & RESPONSE) {
      const resolve = this.responses.get(pdu.sequence);
      this.responses.delete(pdu.sequence);
      if (resolve) resolve(pdu);
      else this.unclaimed.set(pdu.sequence, pdu);
    } else {
      this.received.push(pdu);
    }
    for (const wake of this.arrivals) wake();
  }

  private onClosed(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.closeReason = reason;
    for (const wake of this.arrivals) wake();
  }

  private command(body: Record<string, unknown>): Promise<WireEvent> {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.replies.delete(id);
        reject(new Error(`esme.pl did not answer ${String(body.op)}; stderr: ${this.stderr}`));
      }, ANSWER_TIMEOUT_MS);
      this.replies.set(id, (event) => {
        clearTimeout(timer);
        if (event.error) reject(new Error(`esme.pl ${String(body.op)}: ${event.error}`));
        else resolve(event);
      });
      this.perl.stdin.write(`${JSON.stringify({ id, ...body })}\n`);
    });
  }

  /** Sends a request and resolves with its response; rejects when the connection closes first. */
  private async request(body: Record<string, unknown>): Promise<SmppPdu> {
    const answer = new Promise<SmppPdu>((resolve, reject) => {
      let sequence: number | undefined;
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`no answer to ${String(body.op)} within ${ANSWER_TIMEOUT_MS} ms`));
      }, ANSWER_TIMEOUT_MS);
      const onClose = (): void => {
        if (!this.closed) return;
        stop();
        reject(new Error(`closed before the answer to ${String(body.op)}: ${this.closeReason}`));
      };
      const stop = (): void => {
        clearTimeout(timer);
        this.arrivals.delete(onClose);
        if (sequence !== undefined) this.responses.delete(sequence);
      };
      this.command(body).then(
        (event) => {
          sequence = event.seq!;
          const early = this.unclaimed.get(sequence);
          this.unclaimed.delete(sequence);
          if (early) {
            stop();
            resolve(early);
            return;
          }
          this.responses.set(sequence, (pdu) => {
            stop();
            resolve(pdu);
          });
          this.arrivals.add(onClose);
          onClose();
        },
        (error: Error) => {
          stop();
          reject(error);
        },
      );
    });
    return answer;
  }

  bind(kind: BindKind, systemId: string, password: string): Promise<SmppPdu> {
    return this.request({
      op: 'bind',
      type: kind,
      host: this.options.host ?? '127.0.0.1',
      port: this.options.port,
      system_id: systemId,
      password,
    });
  }

  /** submit_sm; resolves with its status and message_id. */
  async submit(s: Submit): Promise<{ status: number; id: string }> {
    const { short_message, tlvs, ...fields } = s;
    const resp = await this.request({
      op: 'submit_sm',
      ...fields,
      short_message: short_message.toString('hex'),
      tlvs: Object.fromEntries(Object.entries(tlvs ?? {}).map(([k, v]) => [k, v.toString('hex')])),
    });
    return { status: resp.status, id: String(resp.fields.message_id ?? '') };
  }

  enquireLink(): Promise<SmppPdu> {
    return this.request({ op: 'enquire_link' });
  }

  unbind(): Promise<SmppPdu> {
    return this.request({ op: 'unbind' });
  }

  /** Answers a deliver_sm left unanswered (answerDeliverSm: false). */
  async answerDeliver(pdu: SmppPdu, status = 0): Promise<void> {
    await this.command({ op: 'deliver_sm_resp', seq: pdu.sequence, status });
  }

  /**
   * The first request from the server that matches, waiting up to timeoutMs for it; rejects when
   * the time runs out or the connection closes without one.
   */
  next(match: (pdu: SmppPdu) => boolean, timeoutMs: number): Promise<SmppPdu> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const found = this.received.find(match);
        if (found) done(() => resolve(found));
        else if (this.closed)
          done(() => reject(new Error(`closed (${this.closeReason}) without the PDU awaited`)));
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`no such PDU within ${timeoutMs} ms`))),
        timeoutMs,
      );
      const done = (then: () => void): void => {
        clearTimeout(timer);
        this.arrivals.delete(check);
        then();
      };
      this.arrivals.add(check);
      check();
    });
  }

  /** Waits until the connection is closed (by the server, or the client), up to timeoutMs. */
  async whenClosed(timeoutMs: number): Promise<void> {
    await this.next(() => false, timeoutMs).catch((error: Error) => {
      if (!this.closed) throw error;
    });
  }

  /** Drops the connection without unbind, as a platform that crashes, and ends the process. */
  close(): void {
    this.perl.stdin.end();
    this.perl.kill('SIGKILL');
  }
}
