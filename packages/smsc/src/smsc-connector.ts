import type { InboundPdu } from './inbound';
import type { WindowLoad } from './submit-window';

/**
 * The seam between the dispatcher and an SMSC (docs/architecture.md § The parts: one interface, one
 * implementation per file). Connectors take already-encoded parts (see encoding.ts), so every
 * connector sends exactly the bytes and data_coding the gateway charged for.
 */

export interface SubmitRequest {
  /** Destination, digits only (international format without '+'). */
  to: string;
  /** Sender; alphanumeric or digits. null lets the SMSC choose. */
  from: string | null;
  /** SMPP data_coding, always explicit (docs/architecture.md § Receipts and message ids). */
  dataCoding: number;
  /** One short_message body per part, each already carrying its UDH when there are several. */
  parts: Buffer[];
  /**
   * The parts carry a UDH, so esm_class has UDHI (default: when there are several). Set when only
   * some parts of a long message are sent again (one such part still carries its UDH), and for a
   * single part with the client's own UDH (Kannel's `udh`).
   */
  concatenated?: boolean;
  /** Ask the SMSC for a delivery receipt (registered_delivery 1). */
  registeredDelivery: boolean;
  /** SMPP priority_flag 0–3. */
  priority?: number;
  /** Minutes until the SMSC may give up (validity_period, relative). */
  validityMinutes?: number;
  /** SMPP absolute time string for schedule_delivery_time. */
  scheduleDeliveryTime?: string;
  /**
   * SMPP optional parameters written after the mandatory fields of every part, in this order,
   * octet for octet (checked at acceptance). HTTP connectors have no place for them.
   */
  tlvs?: readonly OptionalParameter[];
}

/** One SMPP optional parameter (TLV): its tag and its value's octets. */
export interface OptionalParameter {
  tag: number;
  value: Buffer;
}

/**
 * A submit in flight: settles with the SMSC's answer, like a promise of it. `written` resolves once
 * the parts are written, before any answer (or when the submit failed before writing anything):
 * what the SMSC may hold from then on is the caller's to record. SMPP resolves it while they are
 * still in the corked socket, so what the caller does on it in the same turn (a commit) goes out
 * before them; HTTP once the request has left.
 */
export type Submission = Promise<SubmitResult> & { readonly written: Promise<void> };

/** Runs a connector's submit, giving it the function that marks the parts written. */
export function submission(send: (written: () => void) => Promise<SubmitResult>): Submission {
  let markWritten!: () => void;
  const written = new Promise<void>((resolve) => (markWritten = resolve));
  const answered = send(markWritten);
  // Failed before writing: nothing to wait for. The caller handles the rejection itself.
  answered.then(markWritten, markWritten);
  return Object.assign(answered, { written });
}

export interface SubmitResult {
  /** The SMSC's id for each part, normalised (normalizeSmscId), in part order. */
  smscIds: string[];
}

export type ReceiptState =
  | 'delivered'
  | 'undelivered'
  | 'expired'
  | 'rejected'
  | 'deleted'
  | 'accepted'
  | 'unknown'
  | 'enroute';

/** A delivery receipt (deliver_sm with esm_class 0x04), parsed. */
export interface DeliveryReceipt {
  /** Normalised SMSC message id (normalizeSmscId): matches SubmitResult.smscIds. */
  smscId: string;
  state: ReceiptState;
  /** The receipt's own fields, as the SMSC sent them (DLR callbacks forward them). */
  stat: string;
  err: string;
  sub: string;
  dlvrd: string;
  submitDate: string;
  doneDate: string;
  text: string;
}

/**
 * What the dispatcher does with a submit_sm that was written and got no answer (a timeout, a lost
 * session): the SMSC may have taken it. `unknown` records that outcome and never resends nor
 * refunds it; `resend` sends it again (at least once), up to the attempt limit.
 */
export const NO_ANSWER_POLICIES = ['unknown', 'resend'] as const;
export type NoAnswerPolicy = (typeof NO_ANSWER_POLICIES)[number];

export interface SmscErrorDetail {
  /** The request was written and got no answer: the SMSC may have taken it. */
  unanswered?: boolean;
  /**
   * Per part of the request, the SMSC id of each part the SMSC accepted before another part
   * failed (undefined for the others).
   */
  acceptedParts?: readonly (string | undefined)[];
}

/** An SMSC refusal or a failure to get an answer. */
export class SmscError extends Error {
  override name = 'SmscError';
  readonly unanswered: boolean;
  readonly acceptedParts: readonly (string | undefined)[];
  constructor(
    /**
     * Stable code for logs, metrics and the message's error column, e.g. ESME_RTHROTTLED, TIMEOUT.
     */
    readonly code: string,
    /** true: retrying cannot help (bad destination, rejected content). false: try again later. */
    readonly permanent: boolean,
    message?: string,
    /** SMPP command_status when the SMSC answered. */
    readonly commandStatus?: number,
    detail: SmscErrorDetail = {},
  ) {
    super(message ?? code);
    this.unanswered = detail.unanswered ?? false;
    this.acceptedParts = detail.acceptedParts ?? [];
  }
}

export interface SmscConnector {
  /** Connector name for metrics and DLR callbacks (`connector` parameter). */
  readonly name: string;
  /**
   * Places in its window: PDUs outstanding at once for SMPP, requests in progress for HTTP. The
   * connector alone counts them (SubmitWindow); callers read its room and load.
   */
  readonly window: number;
  /** What to do with a submit that was written and got no answer (`on_no_answer` in the URL). */
  readonly onNoAnswer: NoAnswerPolicy;
  /** Connects and binds; resolves once the first bind succeeded, keeps reconnecting afterwards. */
  start(): Promise<void>;
  /** The window places a message of `parts` parts takes when it is written. */
  placesFor(parts: number): number;
  /** Places written and unanswered, and places queued for the window. */
  load(): WindowLoad;
  /** Places free now that nothing queued waits for. */
  room(): number;
  /** Told each time places come free. */
  onRoom(listener: () => void): void;
  /**
   * Submits every part; rejects with SmscError once every written part has its answer or its
   * timeout (the error tells which parts were accepted and whether one went unanswered). Resolves
   * only once every part has its response. Its `written` tells when the parts left. Never waits
   * itself: without room the request is queued, bounded by the response timeout.
   */
  submit(request: SubmitRequest): Submission;
  /**
   * Submits requests as one group: they take their window places together and are written
   * together, so a caller's work on their `written` (a claim's commit) precedes all of them.
   */
  submitAll(requests: readonly SubmitRequest[]): Submission[];
  /**
   * Called for every delivery receipt the SMSC sends. The SMSC's deliver_sm is answered once the
   * listeners' promises settle: OK when they resolve, a temporary error when one rejects (the SMSC
   * delivers it again later), so a receipt is acknowledged only once it is recorded.
   */
  onReceipt(listener: (receipt: DeliveryReceipt) => void | Promise<void>): void;
  /**
   * Called for every mobile-originated message (or part of one) the SMSC delivers, acknowledged
   * like receipts: OK once the listeners resolve, a temporary error when one rejects. With no
   * listener an inbound message is refused with a temporary error, never acknowledged and dropped.
   */
  onInbound(listener: (inbound: InboundPdu) => Promise<void>): void;
  /** true while bound (for /readyz and the smsgw_smsc_session_up gauge). */
  isUp(): boolean;
  /** Sessions bound at the SMSC now (two for a transmitter plus a receiver; 1 for HTTP while up). */
  sessions(): number;
  /** Waits for outstanding responses (bounded), unbinds and closes. */
  stop(): Promise<void>;
}

/**
 * SMSCs write the same id in hex in submit_sm_resp and in decimal in the receipt, or change case
 * and leading zeros (docs/architecture.md § Receipts and message ids). Ids of only hex digits are
 * compared as numbers: a hex id containing a-f and a decimal id of only digits are both read as
 * what they most plausibly are.
 */
export function normalizeSmscId(raw: string, hint: 'hex' | 'decimal' | 'auto' = 'auto'): string {
  const id = raw.trim().replace(/\0+$/, '');
  if (id === '') return id;
  if (/^[0-9]+$/.test(id) && hint !== 'hex') return BigInt(id).toString(10);
  if (/^[0-9a-fA-F]+$/.test(id) && hint !== 'decimal') return BigInt('0x' + id).toString(10);
  return id.toLowerCase();
}
