import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { CONNECTIONS, segmentOf, type Segment } from './http-load';

/**
 * Kannel's dlr-mask events the bench asks for: 1 (delivered to the handset) and 2 (failed), the
 * final reports, one per message, as the gateway records one receipt per message.
 */
export const KANNEL_DLR_MASK = 3;

export interface DlrSink {
  /** For Kannel's dlr-url: `%d` is the event type, which Kannel fills in. */
  url: string;
  /** Final reports received so far. */
  finals(): number;
  close(): void;
}

/**
 * The loopback HTTP endpoint Kannel calls for each report (smsbox fetches the dlr-url with GET).
 * A message is done for the bench when its final report reached here: Kannel had sent it to the
 * SMSC and matched the SMSC's receipt to its record.
 */
export async function startDlrSink(): Promise<DlrSink> {
  let finals = 0;
  const server = createServer((req, res) => {
    const type = Number(new URL(req.url ?? '/', 'http://sink').searchParams.get('type'));
    if (type === 1 || type === 2) finals++;
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/dlr?type=%d`,
    finals: () => finals,
    close: () => server.close(),
  };
}

/** Kannel's /cgi-bin/sendsms with the same message as /secure/send's load, asking for a report. */
export function sendsmsRequest(sendsmsUrl: string, dlrUrl: string): string {
  const url = new URL(sendsmsUrl);
  url.search = new URLSearchParams({
    username: 'bench',
    password: 'bench-password',
    to: '41790000001',
    text: 'Hello',
    'dlr-mask': String(KANNEL_DLR_MASK),
    'dlr-url': dlrUrl,
  }).toString();
  return url.toString();
}

/** GET sendsms at the connections /secure/send is driven with, for `seconds` (autocannon). */
export async function sendsmsLoad(url: string, seconds: number): Promise<Segment> {
  const result = await autocannon({
    url,
    method: 'GET',
    connections: CONNECTIONS,
    duration: seconds,
  });
  return segmentOf(result);
}

/**
 * Waits until `expected` more final reports than `before` reached the sink, then until the count
 * stood still for 300 ms (the requests in flight when the load stopped). Answers how many, and
 * when the count first reached `expected`.
 */
export async function waitForFinals(
  sink: DlrSink,
  before: number,
  expected: number,
  timeoutMs: number,
): Promise<{ done: number; at: number }> {
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  let stillSince = Date.now();
  let reachedAt: number | undefined;
  for (;;) {
    const n = sink.finals() - before;
    if (n !== last) {
      last = n;
      stillSince = Date.now();
    }
    if (n >= expected) reachedAt ??= Date.now();
    if (n >= expected && Date.now() - stillSince >= 300)
      return { done: n, at: reachedAt ?? Date.now() };
    if (Date.now() > deadline)
      throw new Error(`${n} of ${expected} Kannel reports reached the sink in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
