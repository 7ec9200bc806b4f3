import { waitFor } from '@smsgw/kit/testing';
import { request } from './http';

/**
 * The sum of one metric's samples on a /metrics endpoint whose labels include `match`. A labelled
 * counter that was never incremented has no sample yet, which reads as 0.
 */
export async function metricValue(
  base: string,
  name: string,
  match: Record<string, string> = {},
): Promise<number> {
  return (await metricSample(base, name, match)) ?? 0;
}

/**
 * The same sum, or undefined when no sample matches: a gauge that reads 0 is told apart from one
 * the process does not have (yet), which a wait for "0" must not take for it.
 */
export async function metricSample(
  base: string,
  name: string,
  match: Record<string, string> = {},
): Promise<number | undefined> {
  const reply = await request(base, 'GET', '/metrics');
  if (reply.status !== 200) throw new Error(`GET ${base}/metrics: HTTP ${reply.status}`);
  let sum: number | undefined;
  for (const line of reply.text.split('\n')) {
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample || sample[1] !== name) continue;
    const labels = Object.fromEntries(
      [...(sample[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [
        l[1],
        l[2],
      ]),
    );
    if (Object.entries(match).every(([k, v]) => labels[k] === v))
      sum = (sum ?? 0) + Number(sample[3]);
  }
  return sum;
}

/**
 * Waits until no batch callback waits for an attempt or a retry (the gauge is read from
 * callback_attempts): an answered or given-up callback is never made again, so no call can come.
 */
export function batchCallbacksSettled(base: string): Promise<true> {
  return waitFor(
    async () =>
      (await metricSample(base, 'smsgw_callbacks_pending', { kind: 'callback' })) === 0
        ? true
        : undefined,
    15_000,
    'no batch callback pending',
    100,
  );
}
