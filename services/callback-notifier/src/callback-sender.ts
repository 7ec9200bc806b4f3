import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { CALLBACK_ID_HEADER, CALLBACK_SIGNATURE_HEADER } from '@smsgw/contracts';
import { callbackSignature } from './callback-signature';
import { UrlRefusedError, type UrlGuard } from '@smsgw/kit';
import type { CallbackFormat } from '@smsgw/store';

export interface CallbackRequest {
  url: string;
  method: 'GET' | 'POST';
  /** Added to the URL's own query string (GET) or sent as a form body (POST). */
  params: Record<string, string>;
  /** The account's secrets that sign the request (callback-signature.ts); none: unsigned. */
  secrets?: readonly string[];
  /** Names the callback (CALLBACK_ID_HEADER), the same on every attempt. */
  id?: string;
  /**
   * form (default): a query string or form body as `method` says; json: a POST of a JSON object;
   * jasmin: a form POST whose receiver acknowledges with a body starting `ACK/Jasmin`, as Jasmin's
   * HTTP API expects of MO receivers (anything else is retried); jasmin-dlr: a form as `method`
   * says whose receiver answers exactly `ACK/Jasmin`, as Jasmin's DLRThrower expects (a 404 is
   * not retried); kannel, kannel-service: a GET of `url` as it is, its placeholders already
   * filled in; kannel-service keeps the answer's body (an sms-service's reply).
   */
  format?: CallbackFormat;
}

/** The body a Jasmin MO receiver answers when it took the message. */
const JASMIN_ACK = 'ACK/Jasmin';

/**
 * What a customer is told about a failed callback. The full reason stays in the operator's logs:
 * it may name the address a host resolved to, which is the operator's to know, not the customer's.
 */
export type FailureCategory =
  'refused by policy' | 'connection failed' | 'timed out' | `HTTP status ${number}`;

export type CallbackOutcome =
  | {
      ok: true;
      status: number;
      /** kannel-service: the answer's body (up to MAX_RESPONSE_BYTES) and its media type. */
      body?: string;
      contentType?: string;
    }
  | { ok: false; retry: boolean; reason: string; category: FailureCategory };

class CallbackTimeoutError extends Error {
  override name = 'CallbackTimeoutError';
}

/** Most of a receiver's answer we read; the body is not used, only drained. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Makes one request to a customer URL: through the URL guard, with a timeout, and with a cap on
 * requests in progress per host so one slow receiver cannot take every connection; a request over
 * the cap is not sent, never kept waiting.
 */
export class CallbackSender {
  private readonly perHost = new Map<string, { active: number }>();

  constructor(
    private readonly guard: UrlGuard,
    private readonly options: { timeoutMs: number; hostConcurrency: number },
  ) {}

  /**
   * A place for a request to the host, or none when the host has as many in progress as allowed:
   * the caller then gives the request back rather than wait (a wait would hold its other hosts'
   * requests back, and could outlast its lease).
   */
  private slot(host: string): (() => void) | undefined {
    let e = this.perHost.get(host);
    if (!e) {
      e = { active: 0 };
      this.perHost.set(host, e);
    }
    if (e.active >= this.options.hostConcurrency) return undefined;
    e.active++;
    const entry = e;
    return () => {
      entry.active--;
      if (entry.active === 0) this.perHost.delete(host);
    };
  }

  /** Hosts with as many requests in progress as allowed (`host:port` as URL.host writes it). */
  busyHosts(): string[] {
    return [...this.perHost]
      .filter(([, e]) => e.active >= this.options.hostConcurrency)
      .map(([host]) => host);
  }

  /** Makes the request; null when its host had no place for it (nothing was sent). */
  async send(request: CallbackRequest): Promise<CallbackOutcome | null> {
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
    const format = request.format ?? 'form';
    const json = format === 'json';
    // Kannel's URLs were filled in from its template: sent as they are, nothing added.
    const asIs = format === 'kannel' || format === 'kannel-service';
    const form = new URLSearchParams(request.params).toString();
    if (request.method === 'GET' && !json && !asIs)
      for (const [k, v] of Object.entries(request.params)) url.searchParams.append(k, v);
    const body = asIs
      ? undefined
      : json
        ? JSON.stringify(request.params)
        : request.method === 'POST' || format === 'jasmin'
          ? form
          : undefined;
    const release = this.slot(url.host);
    if (!release) return null;
    try {
      const method = asIs ? 'GET' : json || format === 'jasmin' ? 'POST' : request.method;
      // Signed when it leaves, so the timestamp is fresh on every attempt.
      const signature =
        request.secrets !== undefined && request.secrets.length > 0
          ? callbackSignature(
              request.secrets,
              {
                method,
                target: `${url.pathname}${url.search}`,
                callbackId: request.id ?? '',
                body: body ?? '',
              },
              Math.floor(Date.now() / 1000),
            )
          : undefined;
      return await this.exchange(url, method, body, signature, request.id, {
        contentType: json ? 'application/json' : 'application/x-www-form-urlencoded',
        format,
      });
    } finally {
      release();
    }
  }

  private exchange(
    url: URL,
    method: string,
    body: string | undefined,
    signature: string | undefined,
    id: string | undefined,
    how: { contentType: string; format: CallbackFormat },
  ): Promise<CallbackOutcome> {
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
            ...(signature !== undefined && { [CALLBACK_SIGNATURE_HEADER]: signature }),
            ...(id !== undefined && { [CALLBACK_ID_HEADER]: id }),
            ...(body !== undefined && {
              'content-type': how.contentType,
              'content-length': Buffer.byteLength(body),
            }),
          },
        },
        (res) => {
          let read = 0;
          // Only a Jasmin receiver's answer is read (its start; the whole of a report's, which
          // must be `ACK/Jasmin` and nothing else), and an sms-service's, which is its reply.
          const chunks: Buffer[] = [];
          const keep =
            how.format === 'kannel-service'
              ? MAX_RESPONSE_BYTES
              : how.format === 'jasmin-dlr'
                ? JASMIN_ACK.length + 64
                : how.format === 'jasmin'
                  ? JASMIN_ACK.length
                  : 0;
          res.on('data', (chunk: Buffer) => {
            if (read < keep) chunks.push(chunk.subarray(0, keep - read));
            read += chunk.length;
            if (read > MAX_RESPONSE_BYTES) res.destroy();
          });
          res.on('close', () => {
            const status = res.statusCode ?? 0;
            const answer = Buffer.concat(chunks);
            const success = status >= 200 && status < 300;
            const acked =
              how.format === 'jasmin'
                ? answer.toString('latin1').startsWith(JASMIN_ACK)
                : how.format === 'jasmin-dlr'
                  ? // throwers.py: `if content.strip() != 'ACK/Jasmin'`, and 404 is not retried.
                    read <= keep && answer.toString('latin1').trim() === JASMIN_ACK
                  : true;
            if (success && !acked)
              resolve({
                ok: false,
                retry: true,
                reason: `HTTP ${status} without ${JASMIN_ACK}`,
                category: `HTTP status ${status}`,
              });
            else if (success)
              resolve({
                ok: true,
                status,
                ...(how.format === 'kannel-service' && {
                  body: answer.toString('utf8'),
                  contentType: (res.headers['content-type'] ?? '').split(';')[0].trim(),
                }),
              });
            else
              resolve({
                ok: false,
                retry: !(how.format === 'jasmin-dlr' && status === 404),
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
