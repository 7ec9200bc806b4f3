import { TickCork, type Logger } from '@smsgw/kit';
import type { OutgoingPdu, PDU, Session } from 'smpp';
import type { InboundPdu } from './inbound';
import { parseReceipt } from './receipt-text';
import { pduText, shortMessageBytes, statusName, useRawShortMessages } from './smpp-raw';
import { SubmitSmPdu } from './submit-sm-pdu';
import { DeliverSmResp } from './deliver-sm-resp';
import { installHotPduReader } from './pdu-reader';
import { sourceAddress } from './sender-address';
import { insecureTransportWarning, type SmppConnectorOptions } from './smpp-url';
import { SubmitWindow, WindowedConnector } from './submit-window';
import {
  SmscError,
  normalizeSmscId,
  type DeliveryReceipt,
  type NoAnswerPolicy,
  submission,
  type SmscConnector,
  type SubmitRequest,
  type SubmitResult,
  type Submission,
} from './smsc-connector';

const smpp = useRawShortMessages();
installHotPduReader();

/** The answer to a deliver_sm (written by us: one per receipt) or to a data_sm. */
function answerTo(pdu: PDU, status = 0): PDU | OutgoingPdu {
  if (pdu.command === 'deliver_sm') return new DeliverSmResp(pdu.sequence_number, status);
  return status === 0 ? pdu.response() : pdu.response({ command_status: status });
}

/**
 * Answers that no retry can fix; everything else (ESME_RTHROTTLED, ESME_RMSGQFUL, ESME_RSYSERR, …)
 * is worth trying again later.
 */
const PERMANENT = new Set([
  'ESME_RINVMSGLEN',
  'ESME_RINVDSTADR',
  'ESME_RINVSRCADR',
  'ESME_RINVESMCLASS',
  'ESME_RINVDCS',
  'ESME_RINVSRCTON',
  'ESME_RINVSRCNPI',
  'ESME_RINVDSTTON',
  'ESME_RINVDSTNPI',
  'ESME_RINVREGDLVFLG',
  'ESME_RINVPRTFLG',
  'ESME_RINVSCHED',
  'ESME_RINVEXPIRY',
  'ESME_RPROHIBITED',
  'ESME_RINVTLVVAL',
  'ESME_RINVSERTYP',
  'ESME_RSERTYPDENIED',
  'ESME_RSERTYPUNAUTH',
  'ESME_RINVSRCADDRSUBUNIT',
  'ESME_RINVDSTADDRSUBUNIT',
  'ESME_RINVNUMDESTS',
  'ESME_RINVDFTMSGID',
]);
const BAD_CREDENTIALS = new Set([
  'ESME_RINVPASWD',
  'ESME_RINVSYSID',
  'ESME_RBINDFAIL',
  'ESME_RINVSYSTYP',
]);

/** SMPP 3.4 ESME_RX_T_APPN: the ESME cannot take the PDU now, the SMSC should try again. */
const ESME_RX_T_APPN = 0x64;
/** node-smpp writes short_message with a one-octet length; SMPP 3.4 allows 254 octets at most. */
const MAX_SHORT_MESSAGE = 254;
/**
 * deliver_sm taken from a session and not answered yet (receipts and inbound messages waiting to be
 * recorded). An SMSC may send them without a window; past this many the session stops reading, so
 * TCP holds the rest at the SMSC instead of this process's memory, until half are answered.
 */
export const MAX_UNANSWERED_DELIVERIES = 2000;
const BACKOFF_MIN_MS = 200;
const BACKOFF_MAX_MS = 30_000;
const CONNECT_TIMEOUT_MS = 10_000;

interface Pending {
  resolve: (pdu: PDU) => void;
  reject: (err: SmscError) => void;
}

export type SmppConnectorConfig = SmppConnectorOptions & {
  name?: string;
  /**
   * Which bind this session makes: a transceiver (default) carries everything; a connector bound
   * as transmitter plus receiver is two of these (SmppPairConnector).
   */
  bindAs?: 'transceiver' | 'transmitter' | 'receiver';
  /** Told when the session becomes bound (true) or stops being bound (false). */
  onSessionChange?: (up: boolean) => void;
};

/**
 * One SMPP 3.4 transceiver session with what node-smpp lacks (docs/architecture.md § SMPP): a
 * window of outstanding submit_sm, response timeouts, a liveness check, reconnect with backoff and
 * jitter, receipts parsed from raw bytes.
 */
export class SmppConnector extends WindowedConnector implements SmscConnector {
  readonly name: string;
  readonly window: number;
  readonly onNoAnswer: NoAnswerPolicy;
  private readonly bindAs: 'transceiver' | 'transmitter' | 'receiver';
  private session: Session | undefined;
  private bound = false;
  private stopped = false;
  /** The window: submit_sm written and not answered, and submits waiting for places. */
  protected readonly places: SubmitWindow;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners: ((receipt: DeliveryReceipt) => void | Promise<void>)[] = [];
  private readonly sessionListeners: ((up: boolean) => void)[] = [];
  private readonly inboundListeners: ((inbound: InboundPdu) => Promise<void>)[] = [];
  private reconnectTimer: NodeJS.Timeout | undefined;
  private attempt = 0;
  /** Per session, as answers to a closed session's deliveries may still come in. */
  private readonly deliveries = new WeakMap<Session, { unanswered: number; paused: boolean }>();
  private firstBind: { resolve: () => void; reject: (err: Error) => void } | undefined;

  constructor(
    private readonly options: SmppConnectorConfig,
    private readonly logger: Logger,
  ) {
    super();
    this.name = options.name ?? 'smsc';
    this.window = options.window;
    this.places = new SubmitWindow(options.window, options.responseTimeoutMs, () => this.bound);
    this.onNoAnswer = options.onNoAnswer;
    this.bindAs = options.bindAs ?? 'transceiver';
    if (options.onSessionChange) this.sessionListeners.push(options.onSessionChange);
  }

  /**
   * Connects and binds; resolves on the first successful bind, rejects at once on refused
   * credentials.
   */
  start(): Promise<void> {
    if (this.stopped)
      return Promise.reject(new SmscError('STOPPED', false, 'connector was stopped'));
    if (this.session || this.firstBind)
      return Promise.reject(new Error('SmppConnector.start() called twice'));
    const { tls, host } = this.options;
    const security = !tls ? 'plain' : tls.rejectUnauthorized ? 'tls' : 'tls-unverified';
    const insecure = insecureTransportWarning(security, host);
    if (insecure) this.logger.warn({ connector: this.name, transport: security }, insecure);
    return new Promise((resolve, reject) => {
      this.firstBind = { resolve, reject };
      this.connect();
    });
  }

  onReceipt(listener: (receipt: DeliveryReceipt) => void | Promise<void>): void {
    this.listeners.push(listener);
  }

  onInbound(listener: (inbound: InboundPdu) => Promise<void>): void {
    this.inboundListeners.push(listener);
  }

  /** For the session gauge and logs. */
  onSessionChange(listener: (up: boolean) => void): void {
    this.sessionListeners.push(listener);
  }

  isUp(): boolean {
    return this.bound;
  }

  sessions(): number {
    return this.bound ? 1 : 0;
  }

  /** submit_sm written and not yet answered (for metrics and tests). */
  get inFlight(): number {
    return this.pending.size;
  }

  private connect(): void {
    const { host, port, enquireLinkMs, responseTimeoutMs, tls } = this.options;
    // The options-object form: connect(url, options) would read the options as a port
    // (docs/architecture.md § SMPP). node-smpp opens TLS for `ssmpp:` and hands the object to
    // tls.connect, so the CA and the name to check travel in it.
    const session = smpp.connect({
      url: `${tls ? 'ssmpp' : 'smpp'}://${host.includes(':') ? `[${host}]` : host}:${port}`,
      auto_enquire_link_period: enquireLinkMs,
      ...(tls && {
        ...(tls.ca !== undefined && { ca: tls.ca }),
        servername: tls.servername ?? host,
        rejectUnauthorized: tls.rejectUnauthorized,
      }),
    });
    this.session = session;
    let lastHeard = Date.now();
    let liveness: NodeJS.Timeout | undefined;
    // No TCP connection or no bind answer in time: drop it and let the reconnect loop try again.
    let linkTimer: NodeJS.Timeout | undefined = setTimeout(
      () => {
        this.logger.warn({ connector: this.name, host, port }, 'SMPP connect timed out');
        session.destroy();
      },
      Math.max(CONNECT_TIMEOUT_MS, responseTimeoutMs),
    );
    linkTimer.unref();

    session.on('connect', () => {
      // Without it Nagle's algorithm holds each small PDU back and a window of 1 crawls
      // (docs/architecture.md § SMPP).
      session.socket.setNoDelay(true);
      clearTimeout(linkTimer);
      linkTimer = setTimeout(() => {
        this.logger.warn(
          { connector: this.name, bind: this.bindAs },
          'SMSC did not answer the bind in time',
        );
        session.destroy();
      }, responseTimeoutMs);
      linkTimer.unref();
      // interface_version defaults to 0x50 in node-smpp, which 3.4 SMSCs refuse
      // (docs/architecture.md § SMPP).
      session[`bind_${this.bindAs}`](
        {
          system_id: this.options.systemId,
          password: this.options.password,
          system_type: this.options.systemType,
          interface_version: 0x34,
        },
        (pdu) => {
          clearTimeout(linkTimer);
          linkTimer = undefined;
          this.bindAnswered(session, pdu);
        },
      );
      // node-smpp sends enquire_link every enquireLinkMs but never checks the answer: a half-open
      // link would look up forever. Anything heard counts; silence past one period plus a response
      // timeout drops the session.
      liveness = setInterval(
        () => {
          if (Date.now() - lastHeard > enquireLinkMs + responseTimeoutMs) {
            this.logger.warn(
              { connector: this.name, silentMs: Date.now() - lastHeard },
              'SMSC silent; dropping the session',
            );
            session.destroy();
          }
        },
        Math.min(enquireLinkMs, 1000),
      );
      liveness.unref();
    });
    session.on('pdu', () => {
      lastHeard = Date.now();
    });
    session.on('error', (err: Error) => {
      this.logger.warn({ err: err.message, connector: this.name }, 'SMPP session error');
      // After a PDU it cannot parse node-smpp stops reading the socket for good; socket errors end
      // in 'close' anyway. Either way this session is done.
      session.destroy();
    });
    session.on('close', () => {
      clearTimeout(linkTimer);
      clearInterval(liveness);
      this.closed(session);
    });
    session.on('deliver_sm', (pdu: PDU) => this.deliverSm(session, pdu));
    session.on('data_sm', (pdu: PDU) => this.inbound(session, pdu));
    session.on('enquire_link', (pdu: PDU) => session.send(pdu.response()));
    session.on('unknown', (pdu: PDU) => session.send(pdu.response()));
    session.on('unbind', (pdu: PDU) => {
      this.logger.warn({ connector: this.name }, 'SMSC unbound the session');
      this.markDown();
      session.send(pdu.response());
      session.close();
    });
  }

  private markDown(): void {
    if (!this.bound) return;
    this.bound = false;
    for (const l of this.sessionListeners) l(false);
  }

  private bindAnswered(session: Session, pdu: PDU): void {
    if (this.session !== session) return;
    if (pdu.command_status === 0) {
      if (this.stopped) {
        session.close();
        return;
      }
      this.bound = true;
      this.attempt = 0;
      this.logger.info(
        { connector: this.name, host: this.options.host, port: this.options.port },
        'SMPP session bound',
      );
      for (const l of this.sessionListeners) l(true);
      this.firstBind?.resolve();
      this.firstBind = undefined;
      this.places.grant();
      return;
    }
    const status = statusName(pdu.command_status);
    if (BAD_CREDENTIALS.has(status) && this.firstBind) {
      this.firstBind.reject(
        new Error(
          `SMSC ${this.options.host}:${this.options.port} refused the bind: ${status} (check system_id and password in SMSC_URL)`,
        ),
      );
      this.firstBind = undefined;
      this.stopped = true;
    } else {
      // ESME_RALYBND after a restart: the SMSC still holds the old bind; back off and retry.
      this.logger[BAD_CREDENTIALS.has(status) ? 'error' : 'warn'](
        { connector: this.name, status },
        'SMPP bind refused; will retry',
      );
    }
    session.close();
  }

  private closed(session: Session): void {
    if (this.session !== session) return;
    const wasBound = this.bound;
    this.markDown();
    this.session = undefined;
    for (const [sequence, p] of this.pending) {
      this.pending.delete(sequence);
      p.reject(
        new SmscError(
          'CONNECTION_LOST',
          false,
          'SMPP session closed before the SMSC answered',
          undefined,
          { unanswered: true },
        ),
      );
    }
    if (this.stopped) return;
    const base = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.min(this.attempt++, 20));
    const delay = base / 2 + Math.random() * (base / 2);
    this.logger[wasBound ? 'warn' : 'debug'](
      { connector: this.name, delayMs: Math.round(delay), attempt: this.attempt },
      'SMPP session closed; reconnecting',
    );
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.stopped) this.connect();
    }, delay);
    this.reconnectTimer.unref();
  }

  /** Counts a deliver_sm until its answer; stops reading the session while too many wait. */
  private taken(session: Session): (response: PDU | OutgoingPdu) => void {
    let state = this.deliveries.get(session);
    if (!state) this.deliveries.set(session, (state = { unanswered: 0, paused: false }));
    const counted = state;
    counted.unanswered++;
    if (counted.unanswered >= MAX_UNANSWERED_DELIVERIES && !counted.paused) {
      counted.paused = true;
      session.pause();
    }
    return (response) => {
      counted.unanswered--;
      // The answers of a group of receipts recorded together leave in one write, as submits do.
      this.cork.hold(session.socket);
      session.send(response);
      if (counted.paused && counted.unanswered <= MAX_UNANSWERED_DELIVERIES / 2) {
        counted.paused = false;
        session.resume();
      }
    };
  }

  private deliverSm(session: Session, pdu: PDU): void {
    // Always answered, or the SMSC redelivers (and eventually throttles us); a receipt only once
    // recorded.
    const esmClass = Number(pdu['esm_class'] ?? 0);
    if ((esmClass & 0x3c) !== 0x04) {
      this.inbound(session, pdu);
      return;
    }
    let bytes = shortMessageBytes(pdu['short_message']);
    if (bytes.length === 0 && pdu['message_payload'] !== undefined)
      bytes = shortMessageBytes(pdu['message_payload']);
    const text =
      Number(pdu['data_coding'] ?? 0) === 0x08
        ? Buffer.from(bytes).swap16().toString('utf16le')
        : bytes.toString('latin1');
    const tlvId =
      typeof pdu['receipted_message_id'] === 'string' && pdu['receipted_message_id'] !== ''
        ? pdu['receipted_message_id']
        : undefined;
    const parsed = parseReceipt(text, {
      ...(tlvId !== undefined && { receiptedMessageId: tlvId }),
      ...(typeof pdu['message_state'] === 'number' && { messageState: pdu['message_state'] }),
    });
    if (!parsed) {
      session.send(answerTo(pdu));
      // The text may quote the message (`text:` holds its first characters, a one-time password
      // perhaps): only its length is logged.
      this.logger.warn(
        { connector: this.name, textLength: text.length },
        'delivery receipt without an id',
      );
      return;
    }
    const { rawId, ...rest } = parsed;
    // receipted_message_id carries the id as submit_sm_resp wrote it; the text is where SMSCs
    // switch to decimal.
    const smscId = normalizeSmscId(
      rawId,
      tlvId !== undefined ? this.options.idFormat : this.options.receiptIdFormat,
    );
    const receipt: DeliveryReceipt = { smscId, ...rest };
    const answer = this.taken(session);
    Promise.all(this.listeners.map(async (listener) => listener(receipt))).then(
      () => answer(answerTo(pdu)),
      (err: unknown) => {
        this.logger.warn(
          { err, connector: this.name, smscId },
          'receipt not recorded; the SMSC is asked to deliver it again',
        );
        answer(answerTo(pdu, ESME_RX_T_APPN));
      },
    );
  }

  /**
   * A mobile-originated message: acknowledged only once recorded, so one that cannot be recorded
   * (or that nobody here takes) is delivered again by the SMSC.
   */
  private inbound(session: Session, pdu: PDU): void {
    let bytes = shortMessageBytes(pdu['short_message']);
    if (bytes.length === 0 && pdu['message_payload'] !== undefined)
      bytes = shortMessageBytes(pdu['message_payload']);
    const ref = pdu['sar_msg_ref_num'];
    const total = pdu['sar_total_segments'];
    const seq = pdu['sar_segment_seqnum'];
    const inbound: InboundPdu = {
      from: typeof pdu['source_addr'] === 'string' ? pdu['source_addr'] : '',
      to: typeof pdu['destination_addr'] === 'string' ? pdu['destination_addr'] : '',
      dataCoding: Number(pdu['data_coding'] ?? 0),
      esmClass: Number(pdu['esm_class'] ?? 0),
      bytes,
      ...(typeof ref === 'number' &&
        typeof total === 'number' &&
        typeof seq === 'number' && { sar: { ref, total, seq } }),
    };
    if (this.inboundListeners.length === 0) {
      session.send(answerTo(pdu, ESME_RX_T_APPN));
      return;
    }
    const answer = this.taken(session);
    Promise.all(this.inboundListeners.map((listener) => listener(inbound))).then(
      () => answer(answerTo(pdu)),
      (err: unknown) => {
        this.logger.warn(
          { err, connector: this.name, from: inbound.from, to: inbound.to },
          'inbound message not recorded; the SMSC is asked to deliver it again',
        );
        answer(answerTo(pdu, ESME_RX_T_APPN));
      },
    );
  }

  /**
   * Writes one part now (a window slot is held for it); the promise settles with the SMSC's answer.
   */
  private writePart(
    session: Session,
    request: SubmitRequest,
    part: Buffer,
    esmClass: number,
  ): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const source = sourceAddress(request.from);
      const pdu = new SubmitSmPdu({
        sourceTon: this.options.sourceTon ?? source.ton,
        sourceNpi: this.options.sourceNpi ?? source.npi,
        sourceAddr: source.addr,
        destTon: this.options.destTon,
        destNpi: this.options.destNpi,
        destinationAddr: request.to,
        esmClass,
        priorityFlag: request.priority ?? 0,
        registeredDelivery: request.registeredDelivery ? 1 : 0,
        // Explicit, and the body as bytes (docs/architecture.md § SMPP).
        dataCoding: request.dataCoding,
        shortMessage: part,
        tlvs: request.tlvs,
        scheduleDeliveryTime: request.scheduleDeliveryTime,
        validityPeriod:
          request.validityMinutes !== undefined
            ? relativeValidity(request.validityMinutes)
            : undefined,
      });
      let settled = false;
      const finish = (): boolean => {
        if (settled) return false;
        settled = true;
        clearTimeout(timer);
        this.pending.delete(pdu.sequence_number);
        this.places.give(1);
        return true;
      };
      const timer = setTimeout(() => {
        delete session._callbacks[pdu.sequence_number];
        if (finish())
          reject(
            new SmscError(
              'TIMEOUT',
              false,
              `no submit_sm_resp within ${this.options.responseTimeoutMs} ms`,
              undefined,
              { unanswered: true },
            ),
          );
      }, this.options.responseTimeoutMs);
      const entry: Pending = {
        resolve: (response) => {
          if (!finish()) return;
          if (response.command_status === 0) {
            resolve(normalizeSmscId(pduText(response['message_id']), this.options.idFormat));
          } else {
            const code = statusName(response.command_status);
            reject(
              new SmscError(
                code,
                PERMANENT.has(code),
                `SMSC answered ${code} (0x${response.command_status.toString(16)})`,
                response.command_status,
              ),
            );
          }
        },
        reject: (err) => {
          if (finish()) reject(err);
        },
      };
      this.cork.hold(session.socket);
      if (!session.send(pdu, (response) => entry.resolve(response))) {
        entry.reject(new SmscError('NOT_BOUND', false, 'SMPP socket is not writable'));
        return;
      }
      this.pending.set(pdu.sequence_number, entry);
    });
  }

  placesFor(parts: number): number {
    return Math.max(1, Math.min(parts, this.window));
  }

  /**
   * The requests' first window's worth of parts each take their places as one entry of the
   * window, so all of them are written in one synchronous run once it has room for them all; each
   * `written` is told as its parts are in the corked socket, before they leave (see
   * `cork`). A request's further parts, past a window's worth, follow as places free.
   * Each submission resolves when every part of its request is answered.
   */
  submitAll(requests: readonly SubmitRequest[]): Submission[] {
    const refusals = requests.map((r) => this.refusal(r));
    const places = requests.reduce(
      (sum, r, i) => sum + (refusals[i] ? 0 : this.placesFor(r.parts.length)),
      0,
    );
    const entered = this.stopped
      ? Promise.reject(new SmscError('STOPPED', false, 'connector is stopping'))
      : this.places.take(places);
    // Each submission reports the failure; this copy only keeps it from going unhandled.
    entered.catch(() => undefined);
    return requests.map((request, i) =>
      submission(async (written) => {
        const refusal = refusals[i];
        if (refusal) throw refusal;
        await entered;
        return this.send(request, written);
      }),
    );
  }

  /** Why a request cannot be sent at all, found before it takes window places. */
  private refusal(request: SubmitRequest): SmscError | undefined {
    if (request.parts.length === 0)
      return new SmscError('EMPTY_MESSAGE', true, 'a submit needs at least one part');
    const tooLong = request.parts.findIndex((p) => p.length > MAX_SHORT_MESSAGE);
    if (tooLong >= 0)
      return new SmscError(
        'MESSAGE_TOO_LONG',
        true,
        `part ${tooLong + 1} has ${request.parts[tooLong].length} octets; short_message holds ${MAX_SHORT_MESSAGE}`,
      );
    if (
      request.scheduleDeliveryTime !== undefined &&
      !/^\d{12}\d{3}[-+R]$/.test(request.scheduleDeliveryTime)
    ) {
      // node-smpp would quietly turn a short string into a relative time.
      return new SmscError(
        'INVALID_SCHEDULE',
        true,
        'schedule_delivery_time must be SMPP time format YYMMDDhhmmsstnnp',
      );
    }
    return undefined;
  }

  /**
   * Writes the request's parts, the first window's worth on the places its group took, the rest as
   * places free; `written` is called in the turn of each run of writes. Resolves when every part is
   * answered.
   */
  private async send(request: SubmitRequest, written: () => void): Promise<SubmitResult> {
    const esmClass = (request.concatenated ?? request.parts.length > 1) ? 0x40 : 0;
    const answers: Promise<string>[] = [];
    let notWritten: unknown;
    try {
      let next = 0;
      let places = this.placesFor(request.parts.length);
      while (next < request.parts.length) {
        if (next > 0) {
          places = Math.min(request.parts.length - next, this.window);
          await this.places.take(places);
        }
        const session = this.session;
        if (!session || !this.bound) {
          this.places.give(places);
          throw new SmscError('NOT_BOUND', false, 'SMPP session is not bound');
        }
        for (let i = 0; i < places; i++, next++)
          answers.push(this.writePart(session, request, request.parts[next], esmClass));
        // Told in this turn: whatever the caller does on it in this turn goes before the parts.
        written();
      }
    } catch (err) {
      if (answers.length === 0) throw err;
      notWritten = err;
    }
    const settled = await Promise.allSettled(answers);
    const ids = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    if (notWritten === undefined && ids.length === request.parts.length) return { smscIds: ids };
    throw partsFailed(settled, notWritten);
  }

  /**
   * Submits of one tick (a dispatcher's group), and answers to deliver_sm, leave in one write
   * instead of one system call each (each small write is costly here, docs/architecture.md § SMPP).
   * The write is made on the next tick, once the promise reactions of this turn have run: their
   * `written` come before it, so a caller's commit issued on `written` reaches the database before
   * its PDUs reach the SMSC (a crash between the two can leave them unsent, never sent twice).
   */
  private readonly cork = new TickCork();

  /**
   * Refuses new work, waits (≤ 5 s) for outstanding answers, unbinds and closes; never reconnects
   * afterwards.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    if (this.firstBind) {
      this.firstBind.reject(
        new SmscError('STOPPED', false, 'connector stopped before the first bind'),
      );
      this.firstBind = undefined;
    }
    this.places.failQueued(new SmscError('STOPPED', false, 'connector is stopping'));
    const deadline = Date.now() + 5000;
    while (this.pending.size > 0 && this.session && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    const session = this.session;
    if (!session) return;
    if (this.bound) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2000);
        const sent = session.unbind({}, () => {
          clearTimeout(timer);
          resolve();
        });
        if (!sent) {
          clearTimeout(timer);
          resolve();
        }
      });
    }
    this.markDown();
    await new Promise<void>((resolve) => {
      if (session.socket.destroyed) return resolve();
      const timer = setTimeout(() => {
        session.destroy();
        resolve();
      }, 1000);
      session.socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      session.close();
    });
    this.session = undefined;
  }
}

/**
 * One error for a submit some of whose parts failed: it names the parts the SMSC accepted, and
 * says whether one went unanswered. The reason given is the one that decides what happens next:
 * an unanswered part first (the SMSC may have it), then a permanent refusal, then any other.
 */
function partsFailed(settled: PromiseSettledResult<string>[], notWritten: unknown): SmscError {
  const failures = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
  if (notWritten !== undefined) failures.push(notWritten);
  const errors = failures.map((f) =>
    f instanceof SmscError ? f : new SmscError('INTERNAL', false, String(f)),
  );
  const unanswered = errors.some((e) => e.unanswered);
  const reason = errors.find((e) => e.unanswered) ?? errors.find((e) => e.permanent) ?? errors[0];
  return new SmscError(reason.code, reason.permanent, reason.message, reason.commandStatus, {
    unanswered,
    acceptedParts: settled.map((s) => (s.status === 'fulfilled' ? s.value : undefined)),
  });
}

/** SMPP relative time format YYMMDDhhmmsstnnR, at most 99 days. */
export function relativeValidity(minutes: number): string {
  const total = Math.max(1, Math.min(Math.round(minutes), 99 * 1440 + 23 * 60 + 59));
  const days = Math.floor(total / 1440);
  const hours = Math.floor((total % 1440) / 60);
  const p = (n: number) => String(n).padStart(2, '0');
  return `0000${p(days)}${p(hours)}${p(total % 60)}00000R`;
}
