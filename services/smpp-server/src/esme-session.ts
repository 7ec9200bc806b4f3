import { randomUUID } from 'node:crypto';
import type { PDU, Session } from 'smpp';
import type { EntryPointOptions } from '@smsgw/acceptance';
import type { MessageStatus, Principal, SmppAccount } from '@smsgw/contracts';
import { HttpError, TickCork, type Logger } from '@smsgw/kit';
import {
  EncodingError,
  planMessage,
  pduText,
  shortMessageBytes,
  useRawShortMessages,
} from '@smsgw/smsc';
import type { AccountLimits } from './account-limits';
import type { BindCredentials } from './bind-credentials';
import type { SmppServerMetrics } from './metrics';
import { messageState } from './message-state';
import { refusalStatus, STATUS, type StatusName } from './smpp-status';
import { readSubmit, sendBody, type SubmitPart } from './submit-request';

// Bytes as the customer sent them: short_message is never decoded (docs/architecture.md § SMPP).
const smpp = useRawShortMessages();

export type BindType = 'transmitter' | 'receiver' | 'transceiver';

const BIND_TYPES: Record<string, BindType> = {
  bind_transmitter: 'transmitter',
  bind_receiver: 'receiver',
  bind_transceiver: 'transceiver',
};

/** What the server's sessions share: the acceptance of /secure/send and the account's limits. */
export interface SubmitAcceptance {
  accept(principal: Principal, body: unknown, options?: EntryPointOptions): Promise<{ id: string }>;
  status(accountId: string, id: string): Promise<MessageStatus['data'] | undefined>;
}

export interface SessionSettings {
  /** A connection that has not bound within this is closed. */
  bindTimeoutMs: number;
  /** A session that sent nothing (not even an enquire_link_resp) within this is unbound. */
  idleTimeoutMs: number;
  /** A quiet session is sent an enquire_link this often. */
  enquireLinkMs: number;
  /** The most requests of one session the server works on at once. */
  window: number;
  /** The system_id the server gives in its bind responses. */
  systemId: string;
  /** A session whose unsent output passes this many bytes is not read until its client reads. */
  maxUnsentBytes: number;
  /** A session whose output stays past that bound this long is closed. */
  stalledOutputMs: number;
}

export interface SessionDeps {
  credentials: BindCredentials;
  limits: AccountLimits;
  acceptance: SubmitAcceptance;
  /** cancel_sm: cancels and refunds one of the account's messages that has not left yet. */
  cancel(accountId: string, id: string): Promise<'cancelled' | 'too_late' | 'not_found'>;
  metrics: SmppServerMetrics;
  logger: Logger;
  settings: SessionSettings;
  /** Called once the session is bound, and once it is gone (bound or not). */
  onBound(session: EsmeSession): void;
  onClosed(session: EsmeSession): void;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The status a refusal of the acceptance (or anything it threw) is answered with. */
export function statusOf(err: unknown): StatusName {
  return err instanceof HttpError ? refusalStatus(err.code, err.extra.field) : 'ESME_RSYSERR';
}

/**
 * One customer connection, from the first PDU to its close: bind, then requests answered in the
 * order their work ends, with at most `window` at once; enquire_link both ways; unbind.
 */
export class EsmeSession {
  readonly id = randomUUID();
  readonly address: string;
  account: SmppAccount | undefined;
  bindType: BindType | undefined;
  since: Date | undefined;
  /** Requests received and not answered yet. */
  inFlight = 0;
  private closed = false;
  /**
   * The deliver_sm sent and not answered yet, each by what fails it: a close fails them all at
   * once, instead of a close listener per PDU (a window of them would pile up on the socket).
   */
  private readonly unanswered = new Set<(err: Error) => void>();
  /** A bind is being checked: the session is not counted as a connection that never binds. */
  binding = false;
  /**
   * The PDUs written in one turn leave in one write on the next tick, not one system call each:
   * the answers of one acceptance group come in one turn, and so do the deliver_sm of one round.
   */
  private readonly cork = new TickCork();
  private lastHeard = Date.now();
  private readonly bindTimer: NodeJS.Timeout;
  private readonly linkTimer: NodeJS.Timeout;
  /** Set while reading is paused because the client does not read its answers. */
  private stalled: NodeJS.Timeout | undefined;
  /** Submits of the last whole seconds, for the admin listing. */
  private submitsThisSecond = { second: 0, count: 0, previous: 0 };

  constructor(
    readonly session: Session,
    private readonly deps: SessionDeps,
  ) {
    this.address = session.socket.remoteAddress ?? '';
    session.socket.setNoDelay(true);
    // No PDU may end more than its own session: what handling one throws closes this one only
    // (node-smpp calls this listener outside its own try, so a throw would end the process).
    session.on('pdu', (pdu: PDU) => this.guard(() => this.onPdu(pdu)));
    session.socket.on('drain', () => this.drained());
    session.on('error', (err: unknown) => {
      deps.logger.info({ err, session: this.id }, 'SMPP session error; closing it');
      this.destroy();
    });
    session.on('close', () => this.onClose());
    this.bindTimer = setTimeout(() => {
      if (!this.account) {
        deps.logger.info({ address: this.address }, 'no bind in time; closing the connection');
        this.destroy();
      }
    }, deps.settings.bindTimeoutMs);
    const linkEvery = Math.min(deps.settings.enquireLinkMs, deps.settings.idleTimeoutMs / 2);
    this.linkTimer = setInterval(() => this.checkLink(), Math.max(250, linkEvery));
  }

  get bound(): boolean {
    return this.account !== undefined && !this.closed;
  }

  /** Whether deliver_sm may go to this session (receiver or transceiver). */
  get receives(): boolean {
    return this.bound && this.bindType !== 'transmitter';
  }

  get submitsPerSecond(): number {
    const second = Math.floor(Date.now() / 1000);
    const s = this.submitsThisSecond;
    return s.second === second ? s.previous : s.second === second - 1 ? s.count : 0;
  }

  private countSubmit(): void {
    const second = Math.floor(Date.now() / 1000);
    const s = this.submitsThisSecond;
    if (s.second !== second) {
      s.previous = s.second === second - 1 ? s.count : 0;
      s.second = second;
      s.count = 0;
    }
    s.count += 1;
  }

  private checkLink(): void {
    // Before a bind the bind timeout alone applies: unbind is for bound sessions (SMPP 3.4 4.2).
    if (this.closed || !this.account) return;
    const quiet = Date.now() - this.lastHeard;
    if (quiet >= this.deps.settings.idleTimeoutMs) {
      this.deps.logger.info({ session: this.id }, 'SMPP session silent too long; unbinding it');
      void this.unbind();
      return;
    }
    if (quiet >= this.deps.settings.enquireLinkMs / 2) this.session.enquire_link({});
  }

  private guard(work: () => Promise<void> | undefined): void {
    const failed = (err: unknown): void => {
      this.deps.logger.warn({ err, session: this.id }, 'handling an SMPP PDU failed; closing it');
      this.deps.metrics.pduFailures.inc();
      this.destroy();
    };
    try {
      work()?.catch(failed);
    } catch (err) {
      failed(err);
    }
  }

  private write(pdu: PDU, onResponse?: (resp: PDU) => void): void {
    this.cork.hold(this.session.socket);
    this.session.send(pdu, onResponse);
    this.checkOutput();
  }

  /**
   * Backpressure: a client that sends and never reads would make every answer wait in memory.
   * Past the bound its session is not read (TCP holds the client back), and it is closed if it
   * does not read within the stall time.
   */
  private checkOutput(): void {
    const { maxUnsentBytes, stalledOutputMs } = this.deps.settings;
    if (this.stalled || this.session.socket.writableLength <= maxUnsentBytes) return;
    this.session.pause();
    this.deps.metrics.stalledSessions.inc();
    this.stalled = setTimeout(() => {
      this.deps.logger.info({ session: this.id }, 'SMPP client reads no answers; closing it');
      this.destroy();
    }, stalledOutputMs);
  }

  private drained(): void {
    if (!this.stalled) return;
    clearTimeout(this.stalled);
    this.stalled = undefined;
    this.session.resume();
  }

  private respond(pdu: PDU, status: StatusName, fields: Record<string, unknown> = {}): void {
    if (this.closed) return;
    this.write(pdu.response({ ...fields, command_status: STATUS[status] }));
  }

  /** An answer for a command this server does not take, or one that has no response. */
  private nack(pdu: PDU, status: StatusName = 'ESME_RINVCMDID'): void {
    if (this.closed) return;
    this.write(
      new smpp.PDU('generic_nack', {
        sequence_number: pdu.sequence_number,
        command_status: STATUS[status],
      }),
    );
  }

  private onPdu(pdu: PDU): Promise<void> | undefined {
    this.lastHeard = Date.now();
    if (pdu.isResponse()) return; // answers to our PDUs go to their callbacks
    switch (pdu.command) {
      case 'bind_transmitter':
      case 'bind_receiver':
      case 'bind_transceiver':
        return this.bind(pdu);
      case 'enquire_link':
        this.respond(pdu, 'ESME_ROK');
        return;
      case 'unbind':
        this.respond(pdu, 'ESME_ROK');
        this.session.close();
        return;
      case 'generic_nack':
        return;
    }
    // outbind and alert_notification go from an SMSC to an ESME and have no response; an unknown
    // command has none either.
    if (!(`${pdu.command}_resp` in smpp.commands)) {
      this.nack(pdu);
      return;
    }
    if (!this.account) {
      this.respond(pdu, 'ESME_RINVBNDSTS');
      return;
    }
    if (!['submit_sm', 'query_sm', 'cancel_sm'].includes(pdu.command)) {
      // Commands SMPP defines that this server does not take (data_sm, submit_multi,
      // replace_sm, …) get a generic_nack, as for an unknown command.
      this.nack(pdu);
      return;
    }
    // Every request counts against the window, not only submit_sm: each is work for the database.
    if (this.inFlight >= this.deps.settings.window) {
      if (pdu.command === 'submit_sm') this.answerSubmit(pdu, 'ESME_RMSGQFUL');
      else this.respond(pdu, 'ESME_RMSGQFUL');
      return;
    }
    this.inFlight += 1;
    const work =
      pdu.command === 'submit_sm'
        ? this.submit(pdu)
        : pdu.command === 'query_sm'
          ? this.query(pdu)
          : this.cancel(pdu);
    return work.finally(() => (this.inFlight -= 1));
  }

  private async bind(pdu: PDU): Promise<void> {
    const bindType = BIND_TYPES[pdu.command];
    if (this.account || this.binding) {
      this.respond(pdu, 'ESME_RALYBND', { system_id: this.deps.settings.systemId });
      return;
    }
    this.binding = true;
    const refuse = (status: StatusName): void => {
      this.deps.metrics.binds.inc({ outcome: status });
      this.respond(pdu, status, { system_id: this.deps.settings.systemId });
      this.binding = false;
    };
    let account: SmppAccount;
    try {
      account = await this.deps.credentials.check(
        pduText(pdu['system_id']),
        pduText(pdu['password']),
        this.address === '' ? undefined : plainAddress(this.address),
      );
    } catch (err) {
      const status: StatusName =
        err instanceof HttpError && err.code === 'UNAUTHORIZED'
          ? 'ESME_RINVPASWD'
          : err instanceof HttpError && err.code === 'SERVICE_UNAVAILABLE'
            ? 'ESME_RSYSERR'
            : 'ESME_RBINDFAIL';
      if (!(err instanceof HttpError))
        this.deps.logger.error({ err, session: this.id }, 'checking an SMPP bind failed');
      refuse(status);
      return;
    }
    let placed: boolean;
    try {
      placed = await this.deps.limits.openSession(account.accountId, this.id, account.maxSessions);
    } catch (err) {
      this.deps.logger.error({ err, session: this.id }, 'taking an SMPP session place failed');
      refuse('ESME_RSYSERR');
      return;
    }
    if (!placed) {
      refuse('ESME_RBINDFAIL');
      return;
    }
    if (this.closed) {
      await this.deps.limits
        .closeSession(account.accountId, this.id)
        .catch((err: unknown) =>
          this.deps.logger.warn({ err, session: this.id }, 'freeing an SMPP session place failed'),
        );
      return;
    }
    clearTimeout(this.bindTimer);
    // Silence is counted from the bind's answer: the time spent checking it was the server's.
    this.lastHeard = Date.now();
    this.account = account;
    this.bindType = bindType;
    this.since = new Date();
    this.binding = false;
    this.deps.metrics.binds.inc({ outcome: 'ok' });
    this.respond(pdu, 'ESME_ROK', { system_id: this.deps.settings.systemId });
    this.deps.onBound(this);
  }

  private get principal(): Principal {
    const account = this.account!;
    return { accountId: account.accountId, username: account.username, via: 'basic' };
  }

  /**
   * Accepts one submit_sm as /secure/send does, as one message: a part of the customer's long
   * message too, charged as one part and sent with its UDH or SAR TLVs as they came, so that the
   * SMSC and the handset join it with the customer's other parts (docs/smpp-server.md).
   */
  private async acceptPart(part: SubmitPart): Promise<string> {
    if (part.sarTlvs.length > 0) onePart(part);
    return (
      await this.deps.acceptance.accept(this.principal, sendBody(part), {
        entry: 'smpp',
        smppReceipt: part.receipt,
        tlvs: part.sarTlvs,
      })
    ).id;
  }

  private async submit(pdu: PDU): Promise<void> {
    const account = this.account!;
    if (this.bindType === 'receiver') {
      this.respond(pdu, 'ESME_RINVBNDSTS');
      return;
    }
    this.countSubmit();
    try {
      if (
        account.throughput !== null &&
        !(await this.deps.limits.takeMessage(account.accountId, account.throughput))
      ) {
        this.answerSubmit(pdu, 'ESME_RTHROTTLED');
        return;
      }
      const bytes = shortMessageBytes(pdu['short_message']);
      const part = readSubmit(
        pdu,
        bytes.length === 0 && pdu['message_payload'] !== undefined
          ? shortMessageBytes(pdu['message_payload'])
          : bytes,
      );
      this.answerSubmit(pdu, 'ESME_ROK', await this.acceptPart(part));
    } catch (err) {
      const status = statusOf(err);
      if (status === 'ESME_RSYSERR')
        this.deps.logger.error({ err, session: this.id }, 'submit_sm failed');
      this.answerSubmit(pdu, status);
    }
  }

  private answerSubmit(pdu: PDU, status: StatusName, messageId = ''): void {
    this.deps.metrics.submits.inc({ account: this.account!.username, status });
    this.respond(pdu, status, { message_id: messageId });
  }

  private async query(pdu: PDU): Promise<void> {
    const id = pduText(pdu['message_id']);
    try {
      const status = UUID.test(id)
        ? await this.deps.acceptance.status(this.account!.accountId, id)
        : undefined;
      if (!status) {
        this.respond(pdu, 'ESME_RINVMSGID', { message_id: id });
        return;
      }
      const state = messageState(status.state);
      this.respond(pdu, 'ESME_ROK', {
        message_id: id,
        final_date: state.final ? smppTime(new Date(status.updatedAt)) : '',
        message_state: state.value,
        error_code: 0,
      });
    } catch (err) {
      this.deps.logger.error({ err, session: this.id }, 'query_sm failed');
      this.respond(pdu, 'ESME_RSYSERR', { message_id: id });
    }
  }

  /**
   * cancel_sm of one message by its id: cancelled and refunded while it waits to be sent,
   * ESME_RCANCELFAIL once it has left or ended. Cancelling every message of a source and
   * destination (an empty message_id) is not offered: it is answered ESME_RINVMSGID.
   */
  private async cancel(pdu: PDU): Promise<void> {
    const id = pduText(pdu['message_id']);
    try {
      const outcome = UUID.test(id)
        ? await this.deps.cancel(this.account!.accountId, id)
        : 'not_found';
      const status: StatusName =
        outcome === 'cancelled'
          ? 'ESME_ROK'
          : outcome === 'too_late'
            ? 'ESME_RCANCELFAIL'
            : 'ESME_RINVMSGID';
      this.respond(pdu, status);
    } catch (err) {
      this.deps.logger.error({ err, session: this.id }, 'cancel_sm failed');
      this.respond(pdu, 'ESME_RSYSERR');
    }
  }

  /**
   * Sends a deliver_sm and resolves with the customer's answer status, or rejects when the
   * session closes or the answer does not come within `timeoutMs`.
   */
  deliver(fields: Record<string, unknown>, timeoutMs: number): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      if (!this.receives) {
        reject(new Error('session not bound to receive'));
        return;
      }
      if (this.closed) {
        reject(new Error('session closed'));
        return;
      }
      let sequence = 0;
      const fail = (err: Error): void => {
        clearTimeout(timer);
        this.unanswered.delete(fail);
        reject(err);
      };
      const timer = setTimeout(() => {
        delete this.session._callbacks[sequence];
        fail(new Error('deliver_sm unanswered'));
      }, timeoutMs);
      this.unanswered.add(fail);
      const pdu = new smpp.PDU('deliver_sm', fields);
      this.write(pdu, (resp: PDU) => {
        clearTimeout(timer);
        this.unanswered.delete(fail);
        resolve(resp.command_status);
      });
      sequence = pdu.sequence_number;
    });
  }

  /** Unbinds (the customer can re-bind elsewhere) and closes; gone within `graceMs` either way. */
  unbind(graceMs = 1_000): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed) {
        resolve();
        return;
      }
      this.session.once('close', () => resolve());
      const force = setTimeout(() => this.destroy(), graceMs);
      force.unref();
      const sent = this.session.unbind({}, () => this.session.close());
      if (!sent) this.destroy();
    });
  }

  destroy(): void {
    this.session.destroy();
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.bindTimer);
    clearTimeout(this.stalled);
    clearInterval(this.linkTimer);
    for (const fail of [...this.unanswered]) fail(new Error('session closed'));
    if (this.account)
      this.deps.limits
        .closeSession(this.account.accountId, this.id)
        .catch((err: unknown) =>
          this.deps.logger.warn({ err, session: this.id }, 'freeing an SMPP session place failed'),
        );
    this.deps.onClosed(this);
  }
}

/**
 * A part with SAR TLVs must go in one submit_sm: the gateway would otherwise cut it in parts of
 * its own, each carrying the customer's SAR parameters.
 */
function onePart(part: SubmitPart): void {
  try {
    planMessage({ hexContent: part.body.toString('hex'), coding: part.coding }, 1);
  } catch (err) {
    if (err instanceof EncodingError)
      throw HttpError.invalid(
        'content',
        `a part of a long message fits in one part: ${err.message}`,
      );
    throw err;
  }
}

/** An IPv4 address as the socket gives it mapped into IPv6 (::ffff:a.b.c.d) is that IPv4 address. */
export function plainAddress(address: string): string {
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/** A date as an SMPP absolute time, in UTC (YYMMDDhhmmss000+). */
export function smppTime(date: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${p(date.getUTCFullYear() % 100)}${p(date.getUTCMonth() + 1)}${p(date.getUTCDate())}${p(date.getUTCHours())}${p(date.getUTCMinutes())}${p(date.getUTCSeconds())}000+`;
}
