import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlowCall {
  to: string;
  query: Record<string, string>;
  /** The caller closed the connection before we answered: it gave up waiting (its timeout). */
  abandoned: boolean;
  answered: boolean;
}

/**
 * A callback receiver that answers 200, but the first request per `to` only after `delayMs`:
 * longer than the notifier's timeout, so that attempt times out and a later one succeeds.
 */
export class SlowReceiver {
  readonly calls: SlowCall[] = [];
  private server: Server | undefined;
  base = '';

  constructor(private readonly delayMs: number) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const query = Object.fromEntries(new URL(req.url ?? '/', 'http://receiver').searchParams);
      const call: SlowCall = { to: query['to'] ?? '', query, abandoned: false, answered: false };
      const first = !this.calls.some((c) => c.to === call.to);
      this.calls.push(call);
      res.on('close', () => {
        if (!call.answered) call.abandoned = true;
      });
      const answer = () => {
        if (res.destroyed) return;
        call.answered = true;
        res.writeHead(200).end('OK');
      };
      req.resume();
      if (first) setTimeout(answer, this.delayMs).unref();
      else answer();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  to(to: string): SlowCall[] {
    return this.calls.filter((c) => c.to === to);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}
