import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCall {
  method: string;
  path: string;
  query: Record<string, string>;
  /** The request's content-type header ('' when it had none). */
  contentType: string;
  body: string;
  /** The query string as received, without `?` ('' when there was none). */
  rawQuery: string;
  headers: Record<string, string | string[] | undefined>;
  at: number;
  /** What the receiver answered. */
  status?: number;
}

/**
 * A customer's callback endpoint on loopback. Paths choose the behaviour: /ok answers 200,
 * /flaky fails twice per `to` then answers 200, /down always answers 500, /jasmin answers
 * `ACK/Jasmin` as a Jasmin MO receiver does; a path set down() answers 503 until up().
 */
export class CallbackReceiver {
  readonly calls: ReceivedCall[] = [];
  private server: Server | undefined;
  private readonly failures = new Map<string, number>();
  private readonly downPaths = new Set<string>();
  base = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://receiver');
        const call: ReceivedCall = {
          method: req.method ?? '',
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          contentType: req.headers['content-type'] ?? '',
          body,
          rawQuery: (req.url ?? '').split('?').slice(1).join('?'),
          headers: req.headers,
          at: Date.now(),
        };
        this.calls.push(call);
        let status = 200;
        if (url.pathname.startsWith('/down')) status = 500;
        if (url.pathname.startsWith('/flaky')) {
          const key = call.query['to'] ?? '';
          const seen = this.failures.get(key) ?? 0;
          this.failures.set(key, seen + 1);
          if (seen < 2) status = 503;
        }
        if (this.downPaths.has(url.pathname)) status = 503;
        call.status = status;
        const ok = url.pathname.startsWith('/jasmin') ? 'ACK/Jasmin' : 'OK';
        res.writeHead(status).end(status === 200 ? ok : 'no');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  down(path: string): void {
    this.downPaths.add(path);
  }

  up(path: string): void {
    this.downPaths.delete(path);
  }

  on(path: string): ReceivedCall[] {
    return this.calls.filter((c) => c.path === path);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}
