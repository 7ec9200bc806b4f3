import type { AddressInfo } from 'node:net';
import type { PDU, Server, Session } from 'smpp';
import { decodeText } from './encoding';
import { formatReceipt } from './receipt-text';
import { pduText, shortMessageBytes, useRawShortMessages } from './smpp-raw';
import { normalizeSmscId, type OptionalParameter } from './smsc-connector';
import { optionalParameters } from './pdu-tlvs';
import { moPdus, type OriginateRequest, type RawMoPdu } from './simulated-mo';

const smpp = useRawShortMessages();

/**
 * How the simulator writes its message ids. SMSCs differ here (docs/architecture.md § Receipts and
 * message ids), so a test can reproduce the one it worries about; the default is hex in
 * submit_sm_resp and decimal in receipts.
 */
export interface SimulatedIdFormat {
  /** The id in submit_sm_resp (default hex). */
  response?: 'hex' | 'decimal';
  /** The id in the receipt text (default decimal). */
  receipt?: 'hex' | 'decimal';
  /** Hex digits in upper case (default true). */
  upperCase?: boolean;
  /** Zeros put in front of the id, in both places (default 0). */
  leadingZeros?: number;
}

export interface SmppSimulatorOptions {
  host?: string;
  /**
   * How many received submits and sent receipts `received` and `receipts` keep, the most recent;
   * unset: all (tests). A simulator that runs for days (embedded mode's) sets it, or its records
   * would hold every message it ever took.
   */
  keepRecords?: number;
  /** Listen for SMPP over TLS with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
  /** 0: a free port. */
  port?: number;
  /** When set, binds must present these. */
  systemId?: string;
  password?: string;
  /** Delay before each submit_sm_resp: fixed, or [min, max]. */
  latencyMs?: number | [number, number];
  /** Share of submits answered ESME_RSYSERR. */
  failureRate?: number;
  /** Share of submits answered ESME_RTHROTTLED. */
  throttleRate?: number;
  /** Destinations answered ESME_RINVDSTADR. */
  rejectDestinations?: RegExp;
  /** Send a delivery receipt when registered_delivery asks for one. */
  deliveryReceipts?: boolean;
  receiptDelayMs?: number;
  /** Wait before delivering again a receipt the ESME answered with an error (default 200 ms). */
  receiptRetryMs?: number;
  /**
   * Send the receipt before the submit_sm_resp (as SMSCs with separate binds can), to test the
   * hold-and-match.
   */
  receiptBeforeResponse?: boolean;
  /**
   * Which session carries a receipt: the one the submit came on (default), or another bound session
   * of the same system_id that can receive, as SMSCs with separate TX/RX binds do. With no other
   * such session bound, the submitting one carries it rather than losing it.
   */
  receiptSession?: 'same' | 'other';
  /** How ids are written in submit_sm_resp and in receipts. */
  idFormat?: SimulatedIdFormat;
  /**
   * The receipt's stat, fixed or per destination; unset or undefined: DELIVRD, or UNDELIV at
   * undeliverableRate.
   */
  receiptStat?: string | ((to: string) => string | undefined);
  /** Share of receipts (0–1) reporting UNDELIV when receiptStat does not decide. */
  undeliverableRate?: number;
  random?: () => number;
  /**
   * Told of every accepted submit_sm (embedded mode logs them, so a newcomer sees what the SMSC
   * got).
   */
  onReceived?: (submit: ReceivedSubmit, text: string) => void;
}

export interface ReceivedSubmit {
  /** The id as the simulator answered it in submit_sm_resp (see idFormat). */
  messageId: string;
  /** The same id normalised, as SmppConnector reports it. */
  smscId: string;
  to: string;
  from: string;
  /** source_addr_ton and source_addr_npi as the submit_sm carried them. */
  sourceTon: number;
  sourceNpi: number;
  dataCoding: number;
  esmClass: number;
  registeredDelivery: number;
  shortMessage: Buffer;
  /** The submit_sm's optional parameters, by tag, each value's octets as they arrived. */
  tlvs: OptionalParameter[];
  receivedAt: Date;
}

export interface SimulatedMessage {
  to: string;
  from: string;
  text: string;
  dataCoding: number;
  parts: number;
  smscIds: string[];
}

export interface SentReceipt {
  /** The id as the receipt text wrote it (see idFormat). */
  receiptId: string;
  /** The same id normalised, as SmppConnector reports it. */
  smscId: string;
  to: string;
  stat: string;
  /** false when another session than the submitting one carried it (receiptSession 'other'). */
  onSubmittingSession: boolean;
  /** 1, then 2, 3… when the ESME answered the earlier deliver_sm with an error. */
  attempt: number;
}

/** An SMSC delivers a receipt the ESME refused again, a few times (SMPP 3.4 ESME_RX_T_APPN). */
const RECEIPT_ATTEMPTS = 5;

export interface BindRecord {
  systemId: string;
  interfaceVersion: number;
  command: string;
}

const STATUS = {
  ROK: 0,
  RINVBNDSTS: 0x04,
  RSYSERR: 0x08,
  RINVDSTADR: 0x0b,
  RINVPASWD: 0x0e,
  RTHROTTLED: 0x58,
};

/** Who is bound on a session: receipts go only to sessions that may receive them. */
interface BoundSession {
  systemId: string;
  receives: boolean;
}

/**
 * An SMSC for tests, embedded mode and benchmarks, built on the same library as the connector. By
 * default ids are answered in hex and written in receipts in decimal, as real SMSCs do
 * (docs/architecture.md § Receipts and message ids); ids start at 0xa0000000, so their hex always
 * has a letter and the connector's automatic detection has something to detect.
 */
export class SmppSimulator {
  readonly received: ReceivedSubmit[] = [];
  /** Every delivery receipt sent, in order. */
  readonly receipts: SentReceipt[] = [];
  readonly binds: BindRecord[] = [];
  /** unbind PDUs received from clients. */
  unbinds = 0;
  /** Most submit_sm the simulator held unanswered at once (checks a client's window). */
  maxOutstanding = 0;
  private outstanding = 0;
  private nextId = 0xa0000000;
  private server: Server | undefined;
  private readonly sessions = new Set<Session>();
  private readonly bound = new Map<Session, BoundSession>();
  /** Rotates receipts over the other sessions that may carry them. */
  private nextReceiver = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly random: () => number;
  /** A hung SMSC: takes what arrives but answers nothing, not even enquire_link. */
  private silent = false;

  constructor(private readonly options: SmppSimulatorOptions = {}) {
    this.random = options.random ?? Math.random;
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Sessions bound now (transceiver, transmitter or receiver). */
  get boundCount(): number {
    return this.bound.size;
  }

  /** The most sessions bound at once since start (or resetPeak). */
  peakBound = 0;

  resetPeak(): void {
    this.peakBound = this.bound.size;
  }

  /** Bound sessions that may receive (a mobile-originated message or a receipt). */
  get receivingCount(): number {
    return [...this.bound.values()].filter((b) => b.receives).length;
  }

  start(): Promise<{ host: string; port: number }> {
    const server = smpp.createServer(this.options.tls ?? {}, (session) => this.accept(session));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => {
        const address = server.address() as AddressInfo;
        resolve({ host: address.address, port: address.port });
      });
    });
  }

  private later(ms: number, fn: () => void): void {
    if (ms <= 0) {
      fn();
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
  }

  /** Draws only when the rate can matter, so tests can script the draws of the rates they set. */
  private chance(rate: number | undefined): boolean {
    return rate !== undefined && rate > 0 && this.random() < rate;
  }

  private latency(): number {
    const l = this.options.latencyMs ?? 0;
    return Array.isArray(l) ? l[0] + this.random() * (l[1] - l[0]) : l;
  }

  private accept(session: Session): void {
    session.socket.setNoDelay(true);
    // A client killed with unread data resets the connection; Node then destroys the socket with
    // PDUs still in its read buffer, unparsed. A real SMSC reads what reached it before the reset,
    // so the simulator parses what is buffered before the socket goes.
    const socket = session.socket;
    const destroy = socket.destroy.bind(socket);
    socket.destroy = (error?: Error) => {
      try {
        (session as unknown as { _extractPDUs(): void })._extractPDUs();
      } catch {
        // a half PDU: nothing more to read
      }
      return destroy(error);
    };
    this.sessions.add(session);
    session.on('close', () => {
      this.sessions.delete(session);
      this.bound.delete(session);
    });
    session.on('error', () => undefined);
    for (const command of ['bind_transceiver', 'bind_transmitter', 'bind_receiver']) {
      session.on(command, (pdu: PDU) => {
        const systemId = pduText(pdu['system_id']);
        this.binds.push({ systemId, interfaceVersion: Number(pdu['interface_version']), command });
        const wrong =
          (this.options.systemId !== undefined && systemId !== this.options.systemId) ||
          (this.options.password !== undefined && pdu['password'] !== this.options.password);
        if (wrong) {
          session.send(pdu.response({ command_status: STATUS.RINVPASWD }));
          return;
        }
        this.bound.set(session, { systemId, receives: command !== 'bind_transmitter' });
        this.peakBound = Math.max(this.peakBound, this.bound.size);
        session.send(pdu.response({ system_id: 'simulator' }));
      });
    }
    session.on('enquire_link', (pdu: PDU) => {
      if (!this.silent) session.send(pdu.response());
    });
    session.on('unbind', (pdu: PDU) => {
      this.unbinds++;
      this.bound.delete(session);
      session.send(pdu.response());
      session.close();
    });
    session.on('deliver_sm_resp', () => undefined);
    session.on('submit_sm', (pdu: PDU) => {
      if (!this.bound.has(session)) {
        session.send(pdu.response({ command_status: STATUS.RINVBNDSTS }));
        return;
      }
      this.submitted(session, pdu);
    });
  }

  private submitted(session: Session, pdu: PDU): void {
    const to = pduText(pdu['destination_addr']);
    let status = STATUS.ROK;
    if (this.options.rejectDestinations?.test(to)) status = STATUS.RINVDSTADR;
    else if (this.chance(this.options.throttleRate)) status = STATUS.RTHROTTLED;
    else if (this.chance(this.options.failureRate)) status = STATUS.RSYSERR;

    this.outstanding++;
    this.maxOutstanding = Math.max(this.maxOutstanding, this.outstanding);
    let messageId = '';
    let record: ReceivedSubmit | undefined;
    if (status === STATUS.ROK) {
      const id = this.nextId++;
      const base = this.options.idFormat?.response ?? 'hex';
      messageId = this.writeId(id, base);
      // Recorded on arrival: from here on the SMSC has the message, answered or not.
      record = {
        messageId,
        smscId: normalizeSmscId(messageId, base),
        to,
        from: pduText(pdu['source_addr']),
        sourceTon: Number(pdu['source_addr_ton'] ?? 0),
        sourceNpi: Number(pdu['source_addr_npi'] ?? 0),
        dataCoding: Number(pdu['data_coding'] ?? 0),
        esmClass: Number(pdu['esm_class'] ?? 0),
        registeredDelivery: Number(pdu['registered_delivery'] ?? 0),
        shortMessage: shortMessageBytes(pdu['short_message']),
        tlvs: optionalParameters(pdu),
        receivedAt: new Date(),
      };
      this.received.push(record);
      this.trim(this.received);
      this.options.onReceived?.(
        record,
        decodeText(stripUdh(record.shortMessage, record.esmClass).body, record.dataCoding),
      );
    }
    const wantsReceipt =
      record !== undefined &&
      (record.registeredDelivery & 0x03) !== 0 &&
      this.options.deliveryReceipts === true;
    const systemId = this.bound.get(session)?.systemId ?? '';
    if (wantsReceipt && this.options.receiptBeforeResponse)
      this.sendReceipt(session, systemId, record!);
    if (this.silent) {
      this.outstanding--;
      return;
    }
    this.later(this.latency(), () => {
      this.outstanding--;
      if (!this.sessions.has(session)) return;
      session.send(
        status === STATUS.ROK
          ? pdu.response({ message_id: messageId })
          : pdu.response({ command_status: status }),
      );
      if (record && wantsReceipt && !this.options.receiptBeforeResponse) {
        const done = record;
        this.later(this.options.receiptDelayMs ?? 0, () =>
          this.sendReceipt(session, systemId, done),
        );
      }
    });
  }

  private writeId(id: number, base: 'hex' | 'decimal'): string {
    const { upperCase = true, leadingZeros = 0 } = this.options.idFormat ?? {};
    const digits = base === 'hex' ? id.toString(16) : id.toString(10);
    return '0'.repeat(leadingZeros) + (upperCase ? digits.toUpperCase() : digits);
  }

  /**
   * The session a receipt for a submit that came on `submitting` (bound as systemId) goes out on.
   */
  private receiptCarrier(submitting: Session, systemId: string): Session | undefined {
    // A transmitter cannot take deliver_sm: its receipts go over a receiver of the same system_id.
    const transmitterOnly = this.bound.get(submitting)?.receives === false;
    if (this.options.receiptSession === 'other' || transmitterOnly) {
      const others = [...this.bound]
        .filter(([s, b]) => s !== submitting && b.receives && b.systemId === systemId)
        .map(([s]) => s);
      if (others.length > 0) return others[this.nextReceiver++ % others.length];
    }
    return this.bound.has(submitting) ? submitting : undefined;
  }

  private sendReceipt(
    submitting: Session,
    systemId: string,
    record: ReceivedSubmit,
    attempt = 1,
  ): void {
    const session = this.receiptCarrier(submitting, systemId);
    if (!session) return;
    const chosen = this.options.receiptStat;
    const stat =
      (typeof chosen === 'function' ? chosen(record.to) : chosen) ??
      (this.chance(this.options.undeliverableRate) ? 'UNDELIV' : 'DELIVRD');
    const base = this.options.idFormat?.receipt ?? 'decimal';
    const receiptId = this.writeId(Number(record.smscId), base);
    this.receipts.push({
      receiptId,
      smscId: record.smscId,
      to: record.to,
      stat,
      onSubmittingSession: session === submitting,
      attempt,
    });
    this.trim(this.receipts);
    const text = formatReceipt({
      id: receiptId,
      stat,
      err: stat === 'DELIVRD' ? '000' : '001',
      submitted: record.receivedAt,
      done: new Date(),
      text: decodeText(stripUdh(record.shortMessage, record.esmClass).body, record.dataCoding),
    });
    session.deliver_sm(
      {
        source_addr: record.to,
        destination_addr: record.from,
        esm_class: 0x04,
        data_coding: 0,
        short_message: Buffer.from(text, 'latin1'),
      },
      (response) => {
        if (response.command_status === 0 || attempt >= RECEIPT_ATTEMPTS) return;
        this.later(this.options.receiptRetryMs ?? 200, () =>
          this.sendReceipt(submitting, systemId, record, attempt + 1),
        );
      },
    );
  }

  /** Drops the oldest records past keepRecords, in one splice once there are twice as many. */
  private trim(records: unknown[]): void {
    const keep = this.options.keepRecords;
    if (keep !== undefined && records.length >= 2 * keep) records.splice(0, records.length - keep);
  }

  /** What arrived, with concatenated parts joined (by UDH reference) and text decoded. */
  messages(): SimulatedMessage[] {
    const out: (SimulatedMessage & { order: number })[] = [];
    const open = new Map<
      string,
      { first: number; parts: Map<number, ReceivedSubmit>; total: number }
    >();
    const groups: { first: number; parts: Map<number, ReceivedSubmit>; total: number }[] = [];
    this.received.forEach((r, index) => {
      const { udh, body } = stripUdh(r.shortMessage, r.esmClass);
      const concat = udh ? concatInfo(udh) : undefined;
      if (concat) {
        const key = `${r.from}|${r.to}|${concat.ref}|${concat.total}`;
        let group = open.get(key);
        // A reference is reused once it wraps: a part number seen again starts a new message.
        if (!group || group.parts.has(concat.seq)) {
          group = { first: index, parts: new Map(), total: concat.total };
          open.set(key, group);
          groups.push(group);
        }
        group.parts.set(concat.seq, r);
        return;
      }
      out.push({
        order: index,
        to: r.to,
        from: r.from,
        text: decodeText(body, r.dataCoding),
        dataCoding: r.dataCoding,
        parts: 1,
        smscIds: [r.smscId],
      });
    });
    for (const group of groups) {
      if (group.parts.size !== group.total) continue;
      const ordered = [...group.parts.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r);
      const body = Buffer.concat(ordered.map((r) => stripUdh(r.shortMessage, r.esmClass).body));
      const first = ordered[0];
      out.push({
        order: group.first,
        to: first.to,
        from: first.from,
        text: decodeText(body, first.dataCoding),
        dataCoding: first.dataCoding,
        parts: ordered.length,
        smscIds: ordered.map((r) => r.smscId),
      });
    }
    return out.sort((a, b) => a.order - b.order).map(({ order: _order, ...message }) => message);
  }

  private nextMoRef = 1;

  /**
   * Delivers a mobile-originated message to a bound client that may receive (one deliver_sm per
   * part, in the request's order), each after the answer to the one before; answers the
   * command_status of each. Rejects when no such client is bound.
   */
  async originate(request: OriginateRequest): Promise<number[]> {
    const session = [...this.bound].find(([, b]) => b.receives)?.[0];
    if (!session) throw new Error('no client bound to receive a mobile-originated message');
    const ref = this.nextMoRef;
    this.nextMoRef = (this.nextMoRef % 255) + 1;
    const statuses: number[] = [];
    for (const pdu of moPdus(request, ref))
      statuses.push(
        await new Promise<number>((resolve) =>
          session.deliver_sm({ ...pdu }, (response) => resolve(response.command_status)),
        ),
      );
    return statuses;
  }

  /**
   * Sends one PDU as given to a bound client that may receive; answers its command_status, or
   * undefined when no answer came within `timeoutMs` (an SMSC would then deliver it again).
   */
  async originatePdu(pdu: RawMoPdu, timeoutMs = 10_000): Promise<number | undefined> {
    const session = [...this.bound].find(([, b]) => b.receives)?.[0];
    if (!session) throw new Error('no client bound to receive a mobile-originated message');
    return new Promise<number | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), timeoutMs);
      session.send(new smpp.PDU(pdu.command, { ...pdu.fields }), (response) => {
        clearTimeout(timer);
        resolve(response.command_status);
      });
    });
  }

  /** Resolves once at least count submit_sm were accepted; bounded in time. */
  async waitFor(count: number, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline)
        throw new Error(
          `simulator received ${this.received.length} of ${count} submit_sm within ${timeoutMs} ms`,
        );
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Changes the share of submits answered ESME_RTHROTTLED, e.g. to end a simulated overload. */
  setThrottleRate(rate: number): void {
    this.options.throttleRate = rate;
  }

  /**
   * While silent, submits are taken (recorded, as the SMSC has them) but nothing is answered: no
   * submit_sm_resp, no receipt, no enquire_link_resp; a hung SMSC as a client sees one.
   */
  setSilent(silent: boolean): void {
    this.silent = silent;
  }

  /**
   * Drops every client's session at once, answered or not, as an SMSC that restarts or a network
   * that breaks: what the sessions had sent is kept (see accept), what was unanswered stays so.
   */
  dropSessions(): void {
    for (const session of this.sessions) session.socket.destroy();
  }

  reset(): void {
    this.received.length = 0;
    this.receipts.length = 0;
    this.binds.length = 0;
    this.unbinds = 0;
    this.maxOutstanding = this.outstanding;
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const session of this.sessions) session.socket.destroy();
    this.sessions.clear();
    this.bound.clear();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * Splits a short_message into its UDH (length octet included) and body when esm_class says it has
 * one.
 */
function stripUdh(shortMessage: Buffer, esmClass: number): { udh: Buffer | null; body: Buffer } {
  if ((esmClass & 0x40) === 0 || shortMessage.length === 0)
    return { udh: null, body: shortMessage };
  const length = Math.min(shortMessage[0] + 1, shortMessage.length);
  return { udh: shortMessage.subarray(0, length), body: shortMessage.subarray(length) };
}

/** The concatenation element of a UDH (IEI 0x00, 8-bit reference, or 0x08, 16-bit), if any. */
function concatInfo(udh: Buffer): { ref: number; total: number; seq: number } | undefined {
  let at = 1;
  while (at + 1 < udh.length) {
    const iei = udh[at];
    const length = udh[at + 1];
    const data = udh.subarray(at + 2, at + 2 + length);
    if (iei === 0x00 && length === 3 && data.length === 3)
      return { ref: data[0], total: data[1], seq: data[2] };
    if (iei === 0x08 && length === 4 && data.length === 4)
      return { ref: data.readUInt16BE(0), total: data[2], seq: data[3] };
    at += 2 + length;
  }
  return undefined;
}
