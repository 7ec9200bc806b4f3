/** A metric's value summed over its label sets, from Prometheus text. */
function sum(text: string, name: string): number {
  let total = 0;
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'gm')))
    total += Number(m[1]);
  return total;
}

export interface DispatchCounts {
  /** Messages the SMSC accepted (submit_sm answered OK). */
  submitted: number;
  /** Messages a delivery receipt put in a final state, recorded in the database. */
  final: number;
  /** Messages failed for good. */
  failed: number;
}

/**
 * What the dispatchers counted, from their /metrics. A receipt is counted after its message's row
 * is written, so `final` is "receipt recorded" without a query on Postgres during the measurement.
 */
export async function dispatchCounts(metricsUrls: readonly string[]): Promise<DispatchCounts> {
  const texts = await Promise.all(
    metricsUrls.map(async (url) => (await fetch(`${url}/metrics`)).text()),
  );
  const total = (name: string) => texts.reduce((n, t) => n + sum(t, name), 0);
  return {
    submitted: total('smsgw_messages_submitted_total'),
    final: total('smsgw_messages_final_total'),
    failed: total('smsgw_messages_failed_total'),
  };
}

export type DoneBy = 'receipt' | 'submit';

/**
 * Waits until `expected` more messages than `before` are done (receipt recorded, or accepted by
 * the SMSC when there are no receipts), then until the count has stood still for 300 ms, so the
 * few requests in flight when the load stopped are counted too. Returns how many were done, when
 * the count first reached `expected` (ms since the epoch), and the most messages seen submitted
 * but without their receipt recorded yet (receipts the dispatcher holds or the SMSC has yet to send).
 */
export async function waitUntilDone(
  metricsUrls: readonly string[],
  by: DoneBy,
  before: DispatchCounts,
  expected: number,
  timeoutMs = 120_000,
): Promise<{ done: number; at: number; maxAwaitingReceipt: number }> {
  const done = (c: DispatchCounts) =>
    by === 'receipt' ? c.final - before.final : c.submitted - before.submitted;
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  let stillSince = Date.now();
  let reachedAt: number | undefined;
  let maxAwaitingReceipt = 0;
  for (;;) {
    const counts = await dispatchCounts(metricsUrls);
    const n = done(counts);
    maxAwaitingReceipt = Math.max(
      maxAwaitingReceipt,
      counts.submitted - before.submitted - (counts.final - before.final),
    );
    if (n !== last) {
      last = n;
      stillSince = Date.now();
    }
    if (n >= expected) reachedAt ??= Date.now();
    const settled =
      by === 'submit' || counts.final - before.final >= counts.submitted - before.submitted;
    if (n >= expected && settled && Date.now() - stillSince >= 300)
      return { done: n, at: reachedAt ?? Date.now(), maxAwaitingReceipt };
    if (Date.now() > deadline)
      throw new Error(
        `${n} of ${expected} messages done by ${by} in ${timeoutMs} ms (failed: ${counts.failed - before.failed})`,
      );
    // Each scrape costs the dispatcher a little; four a second bound the error on the end time.
    await new Promise((r) => setTimeout(r, 250));
  }
}
