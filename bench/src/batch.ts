import { benchRouteCount } from './bench-routes';
import { dispatchCounts, waitUntilDone } from './dispatch-counters';
import {
  clusterGrouping,
  gatewayAndServers,
  startDeployment,
  type Deployment,
} from './gateway-sides';
import { linkCeiling } from './link-ceiling';
import { microsPerMessage, processUsage, sortedDescending } from './process-usage';
import { ratio } from './send-rounds';
import { byProcess, type FigureTable } from './figure-table';
import { report } from './report';
import { ratiosTable } from './side-figures';

const WINDOW = 100;

/**
 * One `/secure/sendbatch` of `count` recipients on a deployment of its own, from the request until
 * its last message is done: its receipt recorded, or without receipts its submit answered.
 */
async function oneBatch(count: number, receipts: boolean) {
  const deployment = await startDeployment(receipts, `window=${WINDOW}`);
  try {
    return { postgresStatistics: deployment.analyze, ...(await measureBatch(deployment, count)) };
  } finally {
    await deployment.stop();
  }
}

/** Sends the batch on a running deployment and measures it until its last message is done. */
export async function measureBatch(deployment: Deployment, count: number) {
  const { cluster, receipts, auth } = deployment;
  const metricsUrls = cluster.dispatchers.map((d) => d.url);
  const recipients = Array.from({ length: count }, (_, i) => String(41_700_000_000 + i));
  const body = JSON.stringify({ messages: [{ to: recipients, content: 'bulk' }] });
  const before = await dispatchCounts(metricsUrls);
  const usage = processUsage(clusterGrouping(deployment));
  const started = Date.now();
  const reply = await fetch(`${cluster.gateway.url}/secure/sendbatch`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body,
  });
  const acceptMs = Date.now() - started;
  if (reply.status !== 200) throw new Error(`sendbatch: HTTP ${reply.status}`);
  const by = receipts ? 'receipt' : 'submit';
  const { done, at, maxAwaitingReceipt } = await waitUntilDone(
    metricsUrls,
    by,
    before,
    count,
    15 * 60_000,
  );
  const used = usage.stop();
  const cpu = microsPerMessage(used.cpuSeconds, done);
  return {
    acceptMs,
    seconds: (at - started) / 1000,
    rate: Math.round(count / ((at - started) / 1000)),
    doneBy: by,
    ...(receipts && { maxAwaitingReceipt }),
    cpuMicrosPerMessage: cpu,
    targetMicrosPerMessage: Object.entries(cpu)
      .filter(([k]) => gatewayAndServers(k))
      .reduce((n, [, v]) => n + v, 0),
    allMicrosPerMessage: Object.values(cpu).reduce((n, v) => n + v, 0),
    peakRssMb: sortedDescending(used.peakRssMb),
    // Cores that other work on the shared machine kept busy meanwhile (of its two).
    otherWorkCores: Number((used.otherCpuSeconds / ((Date.now() - started) / 1000)).toFixed(2)),
  };
}

/**
 * `pnpm bench batch`: one `/secure/sendbatch` of BENCH_BATCH_SIZE (100,000) recipients, window 100,
 * the simulator in its own process sending every receipt, done when the last receipt is recorded;
 * against the same batch without receipts in the same run (first, on a deployment of its own).
 * `batch-noreceipt`: only the batch without receipts, against our SMPP client straight to a
 * simulator with the same window, measured before and after it.
 */
export async function benchBatch(withReceipts = true): Promise<void> {
  const count = Number(process.env['BENCH_BATCH_SIZE'] ?? 100_000);
  const ceilingBefore = withReceipts ? undefined : await linkCeiling(count, WINDOW);
  const noReceipts = await oneBatch(count, false);
  const receipts = withReceipts ? await oneBatch(count, true) : undefined;
  const ceilingAfter = withReceipts ? undefined : await linkCeiling(count, WINDOW);
  const ceiling =
    ceilingBefore !== undefined && ceilingAfter !== undefined
      ? Math.round((ceilingBefore + ceilingAfter) / 2)
      : undefined;
  const ratios = receipts
    ? {
        rateVsNoReceipts: ratio(receipts.rate, noReceipts.rate),
        targetCpuVsNoReceipts: ratio(
          receipts.targetMicrosPerMessage,
          noReceipts.targetMicrosPerMessage,
        ),
      }
    : {
        ceiling,
        ceilingRuns: [ceilingBefore, ceilingAfter],
        rateVsCeiling: ratio(noReceipts.rate, ceiling ?? NaN),
      };
  report(
    {
      bench: withReceipts ? 'batch' : 'batch-noreceipt',
      count,
      window: WINDOW,
      mtRoutes: benchRouteCount(),
      receiptDelayMs: withReceipts ? (process.env['BENCH_RECEIPT_DELAY_MS'] ?? '50-500') : null,
      ...(receipts && { receipts }),
      noReceipts,
      ratios,
    },
    [
      batchTable([
        ...(receipts ? [['with receipts', receipts] as const] : []),
        ['without receipts', noReceipts] as const,
      ]),
      ratiosTable(ratios, {
        rateVsNoReceipts: 'messages/s, with receipts against without',
        targetCpuVsNoReceipts: 'target CPU, with receipts against without',
        ceiling: 'our SMPP client straight to a simulator, submit_sm/s (mean of before and after)',
        rateVsCeiling: 'messages/s against our SMPP client straight to a simulator',
      }),
    ],
  );
}

/** One row per batch: how long its acceptance took, its rate, CPU and memory. */
function batchTable(
  batches: readonly (readonly [string, Awaited<ReturnType<typeof oneBatch>>])[],
): FigureTable {
  return {
    columns: [
      'batch',
      'accepted in ms',
      'messages/s',
      'target µs per message',
      'CPU µs per message by process',
      'peak RSS MB',
      'most awaiting their receipt',
      'other work, cores',
    ],
    rows: batches.map(([label, b]) => [
      label,
      b.acceptMs,
      b.rate,
      b.targetMicrosPerMessage,
      byProcess(b.cpuMicrosPerMessage),
      byProcess(b.peakRssMb),
      'maxAwaitingReceipt' in b ? b.maxAwaitingReceipt : undefined,
      b.otherWorkCores,
    ]),
  };
}
