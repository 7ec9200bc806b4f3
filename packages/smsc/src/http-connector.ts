import http from 'node:http';
import https from 'node:https';
import type { Logger } from '@smsgw/kit';
import { decodeText, stripUdh, TEXT_CODINGS } from './encoding';
import type { InboundPdu } from './inbound';
import { noAnswerPolicy } from './smpp-url';
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

class TimeoutError extends Error {
  override name = 'TimeoutError';
  constructor() {
    super('the upstream did not answer in time');
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
 * Forwards to an upstream gateway speaking the simpler HTTP interface (`GET /send?username&password
 * &to&from&content|hex-content&coding`, answering `Success "<id>"`), so this gateway can front
 * another one. The upstream splits long texts itself: the parts are joined back into the text.
 */
export class HttpConnector implements SmscConnector {
  readonly name: string;
  readonly window: number;
  readonly onNoAnswer: NoAnswerPolicy;
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private up = true;
  private stopped = false;

  constructor(
    private readonly options: HttpConnectorOptions,
    private readonly logger: Logger,
  ) {
    this.name = options.name ?? 'http';
    this.window = options.window;
    this.onNoAnswer = options.onNoAnswer;
  }

  start(): Promise<void> {
    this.logger.info(
      { connector: this.name, upstream: this.options.baseUrl },
      'HTTP connector ready',
    );
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

  private async slot(): Promise<() => void> {
    if (this.active >= this.window)
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    return () => {
      this.active--;
      this.waiting.shift()?.();
    };
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

  submit(request: SubmitRequest): Submission {
    return submission((written) => this.send(request, written));
  }

  private async send(request: SubmitRequest, written: () => void): Promise<SubmitResult> {
    if (this.stopped) throw new SmscError('STOPPED', false, 'connector is stopping');
    const release = await this.slot();
    try {
      const { status, text } = await this.get(
        new URL(`${this.options.baseUrl}/send?${this.params(request).toString()}`),
        written,
      );
      this.up = true;
      const success = /^Success "([^"]+)"?$/.exec(text);
      if (status >= 200 && status < 300 && success)
        return { smscIds: [normalizeSmscId(success[1])] };
      const code = `HTTP_${status}`;
      // 4xx: the upstream refused this message (bad number, credentials, content); retrying cannot help.
      throw new SmscError(
        code,
        status >= 400 && status < 500,
        `upstream answered ${status}: ${text.slice(0, 200)}`,
      );
    } finally {
      release();
    }
  }

  /**
   * One GET with node's http client rather than fetch: its `finish` event says when the request
   * has left for the upstream, which is when the message may be there (`written`).
   */
  private get(url: URL, written: () => void): Promise<{ status: number; text: string }> {
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      let refused = false;
      const req = transport.request(url, { method: 'GET' }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8').trim(),
          });
        });
        res.on('error', (err) => req.destroy(err));
      });
      const timer = setTimeout(() => req.destroy(new TimeoutError()), this.options.timeoutMs);
      req.on('finish', written);
      req.on('error', (err: Error & { code?: string }) => {
        clearTimeout(timer);
        this.up = false;
        // A refused connection carried nothing; any other failure may have come after the request.
        refused = err.code === 'ECONNREFUSED';
        reject(
          new SmscError(
            err instanceof TimeoutError ? 'TIMEOUT' : 'CONNECTION_LOST',
            false,
            `upstream: ${err.message}`,
            undefined,
            { unanswered: !refused },
          ),
        );
      });
      req.end();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const deadline = Date.now() + 5000;
    while (this.active > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  }
}
