import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Webhook {
  path: string;
  query: Record<string, string>;
  /** What the receiver answered: only a 200 counts as a callback made. */
  status: number;
  /** X-Smsgw-Callback-Id: the same on every attempt of one callback. */
  id: string;
  /** A 200 answered to an id this receiver had already answered 200 (an at-least-once repeat). */
  repeat: boolean;
  /** The request's body as sent (JSON for an inbound message's webhook). */
  body: string;
}

/**
 * A customer's endpoint for every callback of a run; down() makes it answer 503 until up(), and
 * it answers 503 to a share of the requests (failureRate) as a customer's flaky endpoint does.
 */
export class WebhookReceiver {
  readonly calls: Webhook[] = [];
  /** Ids answered 200, as a receiver that acts on each callback once keeps them. */
  private readonly handled = new Set<string>();
  private server: Server | undefined;
  private isDown = false;
  base = '';

  constructor(private readonly failureRate = 0) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://receiver');
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const query = Object.fromEntries(url.searchParams);
        // dlr-method POST sends the parameters as a form.
        if (body && !body.startsWith('{'))
          Object.assign(query, Object.fromEntries(new URLSearchParams(body)));
        const status = this.isDown || Math.random() < this.failureRate ? 503 : 200;
        const id = String(req.headers['x-smsgw-callback-id'] ?? '');
        const repeat = status === 200 && id !== '' && this.handled.has(id);
        if (status === 200 && id !== '') this.handled.add(id);
        this.calls.push({ path: url.pathname, query, status, id, repeat, body });
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

  /**
   * Callbacks acted on (answered 200, an id's repeats left out), counted by key: more than one for
   * a key is a duplicate the receiver could not recognise.
   */
  made(path: string, key: (query: Record<string, string>) => string): Map<string, number> {
    return this.madeBy(path, (call) => key(call.query));
  }

  /** As made(), keyed by anything of the call (an inbound message's text, from its JSON body). */
  madeBy(path: string, key: (call: Webhook) => string): Map<string, number> {
    const counts = new Map<string, number>();
    for (const call of this.calls)
      if (call.path === path && call.status === 200 && !call.repeat) {
        const k = key(call);
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
    return counts;
  }

  /** Requests answered 200 again for an id already handled. */
  repeats(): number {
    return this.calls.filter((c) => c.repeat).length;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}
