import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { UrlGuard } from './url-guard';
import { UrlRefusedError } from './url-guard';

export interface CallbackRequest {
  url: string;
  method: 'GET' | 'POST';
  /** Added to the URL's own query string (GET) or sent as a form body (POST). */
  params: Record<string, string>;
}

/**
 * What a customer is told about a failed callback. The full reason stays in the operator's logs:
 * it may name the address a host resolved to, which is the operator's to know, not the customer's.
 */
export type FailureCategory =
  'refused by policy' | 'connection failed' | 'timed out' | `HTTP status ${number}`;

export type CallbackOutcome =
  | { ok: true; status: number }
  | { ok: false; retry: boolean; reason: string; category: FailureCategory };

class CallbackTimeoutError extends Error {
  override name = 'CallbackTimeoutError';
}

/** Most of a receiver's answer we read; the body is not used, only drained. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Makes one request to a customer URL: through the URL guard, with a timeout, and with a cap on
 * requests in progress per host so one slow receiver cannot take every connection.
 */
export class CallbackSender {
  private readonly perHost = new Map<string, { active: number; waiting: (() => void)[] }>();

  constructor(
    private readonly guard: UrlGuard,
    private readonly options: { timeoutMs: number; hostConcurrency: number },
  ) {}

  private async slot(host: string): Promise<() => void> {
    let entry = this.perHost.get(host);
    if (!entry) {
      entry = { active: 0, waiting: [] };
      this.perHost.set(host, entry);
    }
    const e = entry;
    if (e.active >= this.options.hostConcurrency)
      await new Promise<void>((resolve) => e.waiting.push(resolve));
    e.active++;
    return () => {
      e.active--;
      const next = e.waiting.shift();
      if (next) next();
      else if (e.active === 0) this.perHost.delete(host);
    };
  }

  async send(request: CallbackRequest): Promise<CallbackOutcome> {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return { ok: false, retry: false, reason: 'not a URL', category: 'refused by policy' };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return {
        ok: false,
        retry: false,
        reason: `scheme ${url.protocol} is not allowed`,
        category: 'refused by policy',
      };
    // Sockets skip the DNS lookup (and so the guard) for an IP literal: check it here.
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) !== 0) {
      const why = this.guard.refusal(literal, literal);
      if (why)
        return {
          ok: false,
          retry: false,
          reason: `refused: ${why}`,
          category: 'refused by policy',
        };
    }
    const form = new URLSearchParams(request.params).toString();
    if (request.method === 'GET')
      for (const [k, v] of Object.entries(request.params)) url.searchParams.append(k, v);
    const release = await this.slot(url.host);
    try {
      return await this.exchange(url, request.method, request.method === 'POST' ? form : undefined);
    } finally {
      release();
    }
  }

  private exchange(url: URL, method: string, body: string | undefined): Promise<CallbackOutcome> {
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
      const req = transport.request(
        url,
        {
          method,
          lookup: this.guard.lookup,
          timeout: this.options.timeoutMs,
          headers: {
            'user-agent': 'sms-gateway-callback/1',
            ...(body !== undefined && {
              'content-type': 'application/x-www-form-urlencoded',
              'content-length': Buffer.byteLength(body),
            }),
          },
        },
        (res) => {
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_RESPONSE_BYTES) res.destroy();
          });
          res.on('close', () => {
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) resolve({ ok: true, status });
            else
              resolve({
                ok: false,
                retry: true,
                reason: `HTTP ${status}`,
                category: `HTTP status ${status}`,
              });
          });
        },
      );
      // A hard deadline as well: `timeout` only covers idle sockets.
      const timedOut = () =>
        req.destroy(new CallbackTimeoutError(`no answer within ${this.options.timeoutMs} ms`));
      const deadline = setTimeout(timedOut, this.options.timeoutMs);
      req.on('timeout', timedOut);
      req.on('error', (err) => {
        clearTimeout(deadline);
        if (err instanceof UrlRefusedError)
          resolve({
            ok: false,
            retry: false,
            reason: `refused: ${err.message}`,
            category: 'refused by policy',
          });
        else
          resolve({
            ok: false,
            retry: true,
            reason: err.message,
            category: err instanceof CallbackTimeoutError ? 'timed out' : 'connection failed',
          });
      });
      req.on('close', () => clearTimeout(deadline));
      req.end(body);
    });
  }
}
