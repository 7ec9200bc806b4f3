import { benchRouteCount } from './bench-routes';
import { startCeilingServer } from './ceiling-server';
import { LOAD_GENERATOR, gatewaySide, startDeployment, type Deployment } from './gateway-sides';
import { CONNECTIONS } from './http-load';
import { ratio, runSendRounds, type Side } from './send-rounds';
import { report } from './report';
import { ratiosTable, sidesTable } from './side-figures';

/**
 * `pnpm bench send`: `/secure/send` at 32 connections against distributed mode, the simulator in
 * its own process answering every message with a receipt, a message done when its receipt is
 * recorded; against a second deployment without receipts and express answering a constant, in
 * alternating segments of the same run. `send-noreceipt` leaves the receipts side out.
 */
export async function benchSend(withReceipts = true): Promise<void> {
  const ceiling = await startCeilingServer();
  const deployments: Deployment[] = [];
  try {
    deployments.push(await startDeployment(false));
    if (withReceipts) deployments.push(await startDeployment(true));
    const sides: Side[] = [
      {
        name: 'ceiling',
        url: ceiling.url,
        headers: {},
        grouping: (pid) => (pid === process.pid ? LOAD_GENERATOR : undefined),
      },
      ...deployments.map((d) => gatewaySide(d)),
    ];
    const result = await runSendRounds(sides);
    const { ceiling: base, noReceipts, receipts } = result.sides;
    const measured = receipts ?? noReceipts;
    const ratios = {
      rpsVsCeiling: ratio(measured.rps, base.rps),
      ...(receipts && {
        rpsVsNoReceipts: ratio(receipts.rps, noReceipts.rps),
        targetCpuVsNoReceipts: ratio(
          receipts.targetMicrosPerMessage ?? 0,
          noReceipts.targetMicrosPerMessage ?? 0,
        ),
      }),
    };
    report(
      {
        bench: withReceipts ? 'send' : 'send-noreceipt',
        connections: CONNECTIONS,
        mtRoutes: benchRouteCount(),
        receiptDelayMs: withReceipts ? (process.env['BENCH_RECEIPT_DELAY_MS'] ?? '50-500') : null,
        postgresStatistics: deployments[0].analyze,
        ...result,
        ratios,
      },
      [
        sidesTable(result.sides, [
          ['receipts', 'with receipts'],
          ['noReceipts', 'without receipts'],
          ['ceiling', 'express answering a constant'],
        ]),
        ratiosTable(ratios, {
          rpsVsCeiling: 'answers/s against express',
          rpsVsNoReceipts: 'answers/s, with receipts against without',
          targetCpuVsNoReceipts: 'target CPU, with receipts against without',
        }),
      ],
    );
  } finally {
    for (const d of deployments) await d.stop();
    ceiling.close();
  }
}
