import autocannon from 'autocannon';

export const CONNECTIONS = 32;
export const SEND_BODY = '{"to":"41790000001","content":"Hello"}';

export interface Segment {
  requests: number;
  ok: number;
  seconds: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** How many of each status other than 2xx. */
  statuses: Record<string, number>;
  errors: number;
}

/**
 * `POST /secure/send` at 32 connections for `seconds` (autocannon, in this process); with several
 * URLs (replicas of the gateway) the connections are shared out among them, as a load balancer
 * would, and the segment's p50 and p99 are the worst replica's.
 */
export async function sendLoad(
  url: string | readonly string[],
  headers: Record<string, string>,
  seconds: number,
  body = SEND_BODY,
): Promise<Segment> {
  const urls = typeof url === 'string' ? [url] : url;
  const parts = await Promise.all(
    urls.map((u, i) =>
      loadOne(
        u,
        headers,
        seconds,
        Math.floor(CONNECTIONS / urls.length) + (i < CONNECTIONS % urls.length ? 1 : 0),
        body,
      ),
    ),
  );
  return parts.reduce((all, p) => ({
    requests: all.requests + p.requests,
    ok: all.ok + p.ok,
    seconds: Math.max(all.seconds, p.seconds),
    p50: Math.max(all.p50, p.p50),
    p99: Math.max(all.p99, p.p99),
    non2xx: all.non2xx + p.non2xx,
    statuses: Object.fromEntries(
      [...new Set([...Object.keys(all.statuses), ...Object.keys(p.statuses)])].map((code) => [
        code,
        (all.statuses[code] ?? 0) + (p.statuses[code] ?? 0),
      ]),
    ),
    errors: all.errors + p.errors,
  }));
}

async function loadOne(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
  body: string,
): Promise<Segment> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    connections,
    duration: seconds,
  });
  return segmentOf(result);
}

/** A segment's figures from autocannon's result: what succeeded, latencies, and what did not. */
export function segmentOf(result: autocannon.Result): Segment {
  return {
    requests: result.requests.total,
    ok: result['2xx'],
    seconds: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    statuses: Object.fromEntries(
      Object.entries(result.statusCodeStats as Record<string, { count?: number }>)
        .filter(([code]) => !code.startsWith('2'))
        .map(([code, stat]) => [code, stat.count ?? 0]),
    ),
    errors: result.errors,
  };
}

/** Requests per second over all segments; p50 the median segment's, p99 the worst segment's. */
export function summary(segments: readonly Segment[]) {
  const sorted = segments.map((s) => s.p50).sort((a, b) => a - b);
  return {
    rps: Math.round(
      segments.reduce((n, s) => n + s.ok, 0) / segments.reduce((n, s) => n + s.seconds, 0),
    ),
    p50: sorted[Math.floor(sorted.length / 2)],
    p99: Math.max(...segments.map((s) => s.p99)),
    roundP99: segments.map((s) => s.p99),
    non2xx: segments.reduce((n, s) => n + s.non2xx, 0),
    roundNon2xx: segments.map((s) => s.non2xx),
    statuses: segments.reduce<Record<string, number>>((all, s) => {
      for (const [code, n] of Object.entries(s.statuses)) all[code] = (all[code] ?? 0) + n;
      return all;
    }, {}),
    errors: segments.reduce((n, s) => n + s.errors, 0),
  };
}
