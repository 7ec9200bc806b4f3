import { startAnalyzer } from './analyzer';
import { startServices, type Services } from './cluster';
import { sharedServers, type Grouping } from './process-usage';
import type { Side } from './send-rounds';
import { startSimulatorProcess, type SimulatorProcess } from './simulator-process';

export const LOAD_GENERATOR = 'load generator';
export const SIMULATOR = 'simulator';

/** Distributed mode with its own simulator process, receipts on or off, and an account. */
export interface Deployment {
  cluster: Services;
  sim: SimulatorProcess;
  receipts: boolean;
  auth: string;
  /** Whether the bench runs ANALYZE in autovacuum's stead. */
  analyze: string;
  stop(): Promise<void>;
}

export async function startDeployment(
  receipts: boolean,
  smscQuery?: string,
  replicas: { gateways?: number; dispatchers?: number } = {},
  env: Record<string, string> = {},
  withoutSearchIndexes?: boolean,
): Promise<Deployment> {
  const sim = await startSimulatorProcess(receipts);
  let cluster: Services;
  try {
    cluster = await startServices({
      smscPort: sim.port,
      ...(smscQuery && { smscQuery }),
      ...replicas,
      env,
      ...(withoutSearchIndexes !== undefined && { withoutSearchIndexes }),
    });
  } catch (err) {
    await sim.stop();
    throw err;
  }
  const analyzer = await startAnalyzer(cluster.databaseUrl);
  return {
    cluster,
    sim,
    receipts,
    auth: await cluster.createAccount('bench'),
    analyze: analyzer.mode,
    async stop() {
      await analyzer.stop();
      await cluster.stop();
      await sim.stop();
    },
  };
}

/**
 * Each service by name (only the processes this run started: other work on the machine runs the
 * same scripts), the simulator, this process, and the servers the services use.
 */
export function clusterGrouping({ cluster, sim }: Deployment): Grouping {
  const servers = sharedServers(cluster.databaseName);
  const names = new Map(cluster.services.map((s) => [s.child.pid, s.name]));
  return (pid, command) => {
    if (pid === process.pid) return LOAD_GENERATOR;
    if (pid === sim.pid) return SIMULATOR;
    return names.get(pid) ?? servers(pid, command);
  };
}

/** The target counts the gateway's processes and the servers it uses, not the load or the SMSC. */
export const gatewayAndServers = (group: string) => group !== LOAD_GENERATOR && group !== SIMULATOR;

/** `/secure/send` on a deployment; a message is done at its receipt, or at its submit without. */
export function gatewaySide(deployment: Deployment, name?: string): Side {
  return {
    name: name ?? (deployment.receipts ? 'receipts' : 'noReceipts'),
    url: deployment.cluster.gateways.map((g) => `${g.url}/secure/send`),
    headers: { authorization: deployment.auth },
    grouping: clusterGrouping(deployment),
    done: {
      metricsUrls: deployment.cluster.dispatchers.map((d) => d.url),
      by: deployment.receipts ? 'receipt' : 'submit',
    },
    serverWal: true,
    targetGroups: gatewayAndServers,
  };
}
