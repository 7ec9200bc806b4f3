import { Agent, request as httpRequest } from 'node:http';

/** One answer, with how long it took. */
export interface Timed {
  status: number;
  /** The parsed JSON body (an error body for the answers the tests look into), if it was JSON. */
  body: { detail?: { code?: string; message?: string } } | undefined;
  headers: Record<string, string | string[] | undefined>;
  ms: number;
}

/**
 * HTTP requests from a chosen loopback address (any of 127.0.0.0/8 on Linux), so a test can be
 * several clients at once: an attacker at one address, customers at others.
 */
export class LoopbackClient {
  private readonly agent: Agent;

  constructor(
    private readonly localAddress: string,
    connections = 1,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: connections, localAddress });
  }

  send(
    url: string,
    options: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ): Promise<Timed> {
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        url,
        {
          method: options.method ?? 'GET',
          headers: options.headers,
          agent: this.agent,
          localAddress: this.localAddress,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => {
            let body: Timed['body'];
            try {
              body = JSON.parse(text) as Timed['body'];
            } catch {
              body = undefined;
            }
            resolve({
              status: res.statusCode ?? 0,
              body,
              headers: res.headers,
              ms: performance.now() - started,
            });
          });
        },
      );
      req.setTimeout(30_000, () => req.destroy(new Error(`no answer from ${url} in 30 s`)));
      req.on('error', reject);
      req.end(options.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}
