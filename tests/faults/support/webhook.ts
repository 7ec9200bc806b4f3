import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Webhook {
  path: string;
  query: Record<string, string>;
  /** What the receiver answered: only a 200 counts as a callback made. */
  status: number;
}

/** A customer's endpoint for every callback of a run; down() makes it answer 503 until up(). */
export class WebhookReceiver {
  readonly calls: Webhook[] = [];
  private server: Server | undefined;
  private isDown = false;
  base = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://receiver');
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const query = Object.fromEntries(url.searchParams);
        // dlr-method POST sends the parameters as a form.
        if (body) Object.assign(query, Object.fromEntries(new URLSearchParams(body)));
        const status = this.isDown ? 503 : 200;
        this.calls.push({ path: url.pathname, query, status });
        res.writeHead(status).end(status === 200 ? 'OK' : 'down');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  down(): void {
    this.isDown = true;
  }

  up(): void {
    this.isDown = false;
  }

  /** Calls answered 200, counted by key. */
  made(path: string, key: (query: Record<string, string>) => string): Map<string, number> {
    const counts = new Map<string, number>();
    for (const call of this.calls)
      if (call.path === path && call.status === 200) {
        const k = key(call.query);
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
    return counts;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}
