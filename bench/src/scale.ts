import { gatewaySide, startDeployment, type Deployment } from './gateway-sides';
import { CONNECTIONS } from './http-load';
import { ratio, runSendRounds } from './send-rounds';
import { report } from './report';
import { ratiosTable, sidesTable } from './side-figures';

/**
 * `pnpm bench scale`: `/secure/send` with a receipt per message against one gateway and one
 * dispatcher, and against BENCH_GATEWAYS (2) gateways and BENCH_DISPATCHERS (3) dispatchers, in
 * alternating segments of the same run. docs/scaling.md sizes a cluster from the CPU per message of
 * each process; this measures what replicas change in it (rows, coordination, smaller groups) as
 * far as one two-core machine can.
 */
export async function benchScale(): Promise<void> {
  const gateways = Number(process.env['BENCH_GATEWAYS'] ?? 2);
  const dispatchers = Number(process.env['BENCH_DISPATCHERS'] ?? 3);
  const deployments: Deployment[] = [];
  try {
    deployments.push(await startDeployment(true));
    deployments.push(await startDeployment(true, undefined, { gateways, dispatchers }));
    const result = await runSendRounds([
      gatewaySide(deployments[0], 'single'),
      gatewaySide(deployments[1], 'replicas'),
    ]);
    const { single, replicas } = result.sides;
    const ratios = {
      rpsReplicasVsSingle: ratio(replicas.rps, single.rps),
      targetCpuReplicasVsSingle: ratio(
        replicas.targetMicrosPerMessage ?? 0,
        single.targetMicrosPerMessage ?? 0,
      ),
    };
    report(
      {
        bench: 'scale',
        connections: CONNECTIONS,
        replicas: { gateways, dispatchers },
        ...result,
        ratios,
      },
      [
        sidesTable(result.sides, [
          ['single', '1 gateway, 1 dispatcher'],
          ['replicas', `${gateways} gateways, ${dispatchers} dispatchers`],
        ]),
        ratiosTable(ratios, {
          rpsReplicasVsSingle: 'answers/s, replicas against one of each',
          targetCpuReplicasVsSingle: 'target CPU, replicas against one of each',
        }),
      ],
    );
  } finally {
    for (const d of deployments) await d.stop();
  }
}
