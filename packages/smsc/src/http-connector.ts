import http from 'node:http';
import https from 'node:https';
import { UrlRefusedError, type Logger, type UrlGuard } from '@smsgw/kit';
import { decodeText, stripUdh, TEXT_CODINGS } from './encoding';
import type { InboundPdu } from './inbound';
import { insecureTransportWarning, noAnswerPolicy, transportSecurity } from './smpp-url';
import {
  SmscError,
  normalizeSmscId,
  type NoAnswerPolicy,
  type DeliveryReceipt,
  submission,
  type SmscConnector,
  type SubmitRequest,
  type SubmitResult,
  type Submission,
} from './smsc-connector';
import { SubmitWindow, WindowedConnector } from './submit-window';

class TimeoutError extends Error {
  override name = 'TimeoutError';
  constructor() {
    super('the upstream did not answer in time');
  }
}

/** More of an answer than `Success "<id>"` could ever need: a larger one is not read further. */
export const MAX_UPSTREAM_ANSWER_BYTES = 64 * 1024;

class AnswerTooLargeError extends Error {
  override name = 'AnswerTooLargeError';
  constructor() {
    super(`the upstream's answer exceeds ${MAX_UPSTREAM_ANSWER_BYTES} bytes`);
  }
}

export interface HttpConnectorOptions {
  /** The upstream's base URL, without credentials: `<base>/send` is called. */
  baseUrl: string;
  username: string;
  password: string;
  /** Requests in progress at once. */
  window: number;
  timeoutMs: number;
  onNoAnswer: NoAnswerPolicy;
  name?: string;
}

function errorCode(err: Error): string {
  if (err instanceof TimeoutError) return 'TIMEOUT';
  if (err instanceof AnswerTooLargeError) return 'ANSWER_TOO_LARGE';
  if (err instanceof UrlRefusedError) return 'ADDRESS_REFUSED';
  return 'CONNECTION_LOST';
}

/** `http(s)://user:password@host:port/path?window=10&timeout_ms=10000&on_no_answer=unknown`. */
export function parseHttpSmscUrl(url: string): HttpConnectorOptions {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new Error('SMSC_URL: expected http:// or https://');
  const number = (name: string, fallback: number, min: number, max: number): number => {
    const raw = parsed.searchParams.get(name);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max)
      throw new Error(`SMSC_URL: ${name} must be a whole number from ${min} to ${max}`);
    return value;
  };
  for (const key of parsed.searchParams.keys())
    if (key !== 'window' && key !== 'timeout_ms' && key !== 'on_no_answer')
      throw new Error(`SMSC_URL: unknown parameter ${key}`);
  const options = {
    username: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    window: number('window', 10, 1, 1000),
    timeoutMs: number('timeout_ms', 10_000, 100, 600_000),
    onNoAnswer: noAnswerPolicy(parsed.searchParams),
  };
  parsed.username = '';
  parsed.password = '';
  parsed.search = '';
  return { baseUrl: parsed.toString().replace(/\/$/, ''), ...options };
}

/**
 * Forwards to an upstream gateway speaking the simpler HTTP interface (`POST /send` with a form of
 * `username&password&to&from&content|hex-content&coding`, answering `Success "<id>"`), so this
 * gateway can front another one. The credentials travel in the body and in a Basic Authorization
 * header, never in the URL, which proxies and access logs record. The upstream splits long texts
 * itself: the parts are joined back into the text.
 */
export class HttpConnector extends WindowedConnector implements SmscConnector {
  readonly name: string;
  readonly window: number;
  readonly onNoAnswer: NoAnswerPolicy;
  /** Requests in progress, and those waiting for a place. */
  protected readonly places: SubmitWindow;
  private up = true;
  private stopped = false;

  /** `guard` decides which addresses the upstream may resolve to (CONNECTOR_ALLOWED_HOSTS). */
  constructor(
    private readonly options: HttpConnectorOptions,
    private readonly logger: Logger,
    private readonly guard: UrlGuard,
  ) {
    super();
    this.name = options.name ?? 'http';
    this.window = options.window;
    this.places = new SubmitWindow(options.window, options.timeoutMs, () => !this.stopped);
    this.onNoAnswer = options.onNoAnswer;
  }

  start(): Promise<void> {
    this.logger.info(
      { connector: this.name, upstream: this.options.baseUrl },
      'HTTP connector ready',
    );
    const security = transportSecurity(this.options.baseUrl);
    const insecure = insecureTransportWarning(security, new URL(this.options.baseUrl).hostname);
    if (insecure) this.logger.warn({ connector: this.name, transport: security }, insecure);
    return Promise.resolve();
  }

  onReceipt(_listener: (receipt: DeliveryReceipt) => void): void {
    // The simpler HTTP interface has no receipts on this path: messages stay `submitted`.
  }

  onInbound(_listener: (inbound: InboundPdu) => Promise<void>): void {
    // An HTTP upstream has no session to deliver inbound messages on.
  }

  isUp(): boolean {
    return this.up && !this.stopped;
  }

  sessions(): number {
    return this.isUp() ? 1 : 0;
  }

  /** The message as the upstream wants it: text for text codings, hex for the rest. */
  private params(request: SubmitRequest): URLSearchParams {
    const esmClass = (request.concatenated ?? request.parts.length > 1) ? 0x40 : 0;
    const body = Buffer.concat(request.parts.map((part) => stripUdh(part, esmClass).body));
    const params = new URLSearchParams({
      username: this.options.username,
      password: this.options.password,
      to: request.to,
    });
    if (request.from) params.set('from', request.from);
    params.set('coding', String(request.dataCoding));
    if (TEXT_CODINGS.includes(request.dataCoding))
      params.set('content', decodeText(body, request.dataCoding));
    else params.set('hex-content', body.toString('hex'));
    if (request.priority !== undefined) params.set('priority', String(request.priority));
    if (request.validityMinutes !== undefined)
      params.set('validity-period', String(request.validityMinutes));
    if (request.scheduleDeliveryTime !== undefined) params.set('sdt', request.scheduleDeliveryTime);
    return params;
  }

  /** One request per message, whatever its parts: the upstream splits long texts itself. */
  placesFor(): number {
    return 1;
  }

  /** The group's requests take their places together, then each is posted. */
  submitAll(requests: readonly SubmitRequest[]): Submission[] {
    const entered = this.stopped
      ? Promise.reject(new SmscError('STOPPED', false, 'connector is stopping'))
      : this.places.take(requests.length);
    // Each submission reports the failure; this copy only keeps it from going unhandled.
    entered.catch(() => undefined);
    return requests.map((request) =>
      submission(async (written) => {
        await entered;
        try {
          return await this.send(request, written);
        } finally {
          this.places.give(1);
        }
      }),
    );
  }

  private async send(request: SubmitRequest, written: () => void): Promise<SubmitResult> {
    const { status, text } = await this.post(
      new URL(`${this.options.baseUrl}/send`),
      this.params(request),
      written,
    );
    this.up = true;
    const success = /^Success "([^"]+)"?$/.exec(text);
    if (status >= 200 && status < 300 && success) return { smscIds: [normalizeSmscId(success[1])] };
    const code = `HTTP_${status}`;
    // 4xx: the upstream refused this message (bad number, credentials, content); retrying cannot help.
    throw new SmscError(
      code,
      status >= 400 && status < 500,
      `upstream answered ${status}: ${text.slice(0, 200)}`,
    );
  }

  /**
   * One POST with node's http client rather than fetch: its `finish` event says when the request
   * has left for the upstream, which is when the message may be there (`written`). The socket's
   * lookup is the guard's, so the address connected to is the address checked.
   */
  private post(
    url: URL,
    form: URLSearchParams,
    written: () => void,
  ): Promise<{ status: number; text: string }> {
    const transport = url.protocol === 'https:' ? https : http;
    const body = Buffer.from(form.toString());
    const basic = Buffer.from(`${this.options.username}:${this.options.password}`).toString(
      'base64',
    );
    const literal = this.guard.literalRefusal(url);
    if (literal) return Promise.reject(this.failure(new UrlRefusedError(literal)));
    return new Promise((resolve, reject) => {
      const headers = {
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': String(body.length),
        authorization: `Basic ${basic}`,
      };
      const req = transport.request(
        url,
        { method: 'POST', headers, lookup: this.guard.lookup },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size <= MAX_UPSTREAM_ANSWER_BYTES) return void chunks.push(chunk);
            clearTimeout(timer);
            reject(this.failure(new AnswerTooLargeError()));
            req.destroy();
          });
          res.on('end', () => {
            clearTimeout(timer);
            resolve({
              status: res.statusCode ?? 0,
              text: Buffer.concat(chunks).toString('utf8').trim(),
            });
          });
          res.on('error', (err) => req.destroy(err));
        },
      );
      const timer = setTimeout(() => req.destroy(new TimeoutError()), this.options.timeoutMs);
      req.on('finish', written);
      req.on('error', (err: Error & { code?: string }) => {
        clearTimeout(timer);
        reject(this.failure(err));
      });
      req.end(body);
    });
  }

  /** A request that failed before an answer was read, as the dispatcher should take it. */
  private failure(err: Error & { code?: string }): SmscError {
    this.up = false;
    // A refused connection or address carried nothing; any other failure may have come after the
    // request.
    const refused = err.code === 'ECONNREFUSED' || err instanceof UrlRefusedError;
    if (err instanceof UrlRefusedError)
      this.logger.warn(
        { connector: this.name, reason: err.message },
        'HTTP connector refused to reach its upstream',
      );
    return new SmscError(errorCode(err), false, `upstream: ${err.message}`, undefined, {
      unanswered: !refused,
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.places.failQueued(new SmscError('STOPPED', false, 'connector is stopping'));
    const deadline = Date.now() + 5000;
    while (this.places.load().inWindow > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
  }
}
