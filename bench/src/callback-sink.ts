import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Side } from './send-rounds';

/**
 * A deployment whose callback-notifier may call the sink on loopback, as many requests at once as
 * it makes (64) rather than the default 8 per customer host, so the reports do not wait on the
 * sink's host limit.
 */
export const SINK_CALLBACK_ENV = {
  CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
  CALLBACK_HOST_CONCURRENCY: '64',
};

/**
 * A `/secure/send` side whose message asks for its handset receipt at the sink (dlr_url at level
 * 2), done when the callback-notifier's request reached it: the HTTP side that delivers the
 * receipt to the customer.
 */
export function reportedAtSink(side: Side, sink: CallbackSink): Side {
  const { done: _done, ...rest } = side;
  return {
    ...rest,
    body: JSON.stringify({
      to: '41790000001',
      content: 'Hello',
      dlr: 'yes',
      dlr_url: sink.url,
      dlr_level: 2,
    }),
    tracker: () => sink.tracker(),
  };
}

export interface CallbackSink {
  /** The dlr_url a message asks its delivery report at. */
  url: string;
  /** Reports received so far. */
  received: number;
  /** From now: waits until `accepted` more reports came, or none came for a minute. */
  tracker(): (accepted: number) => Promise<{ done: number; at: number }>;
  close(): Promise<void>;
}

/**
 * The customer's loopback HTTP endpoint for `/secure/send`'s delivery reports (dlr_url, level 2:
 * the handset receipt), so that an HTTP message is done when its receipt reached the customer, as
 * an SMPP message is when its deliver_sm did. Each request is answered at once, the way a
 * customer's endpoint answers; its body is read and dropped.
 */
export async function startCallbackSink(): Promise<CallbackSink> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      sink.received += 1;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ACK/Jasmin');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const sink: CallbackSink = {
    url: `http://127.0.0.1:${port}/dlr`,
    received: 0,
    tracker() {
      const from = sink.received;
      return async (accepted) => {
        let seen = sink.received;
        let progressAt = Date.now();
        while (sink.received - from < accepted && Date.now() - progressAt < 60_000) {
          await new Promise((r) => setTimeout(r, 20));
          if (sink.received !== seen) {
            seen = sink.received;
            progressAt = Date.now();
          }
        }
        return { done: Math.min(accepted, sink.received - from), at: Date.now() };
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return sink;
}
