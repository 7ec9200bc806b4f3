import type { Services } from './cluster';
import { waitForSessions } from './dispatch-counters';
import { sharedServers, type Grouping } from './process-usage';
import type { Side } from './send-rounds';
import type { SimulatorProcess } from './simulator-process';

export const LOAD_GENERATOR = 'load generator';
export const SIMULATOR = 'simulator';

/**
 * Each service by name (only the processes this run started: other work on the machine runs the
 * same scripts), the simulator, this process, and the servers the services use.
 */
export function clusterGrouping(cluster: Services, sim: SimulatorProcess): Grouping {
  const servers = sharedServers(cluster.databaseName);
  const names = new Map(cluster.services.map((s) => [s.child.pid, s.name]));
  return (pid, command) => {
    if (pid === process.pid) return LOAD_GENERATOR;
    if (pid === sim.pid()) return SIMULATOR;
    return names.get(pid) ?? servers(pid, command);
  };
}

/** The target counts the gateway's processes and the servers it uses, not the load or the SMSC. */
export const gatewayAndServers = (group: string) => group !== LOAD_GENERATOR && group !== SIMULATOR;

/** `/secure/send` on the cluster, the simulator restarted with receipts on or off first if needed. */
export function gatewaySide(
  cluster: Services,
  sim: SimulatorProcess,
  auth: string,
  receipts: boolean,
): Side {
  const metricsUrls = cluster.dispatchers.map((d) => d.url);
  return {
    name: receipts ? 'receipts' : 'noReceipts',
    url: `${cluster.gateway.url}/secure/send`,
    headers: { authorization: auth },
    grouping: clusterGrouping(cluster, sim),
    async prepare() {
      if (sim.receipts() === receipts) return;
      await sim.restart(receipts);
      await waitForSessions(metricsUrls, cluster.dispatchers.length);
    },
    done: {
      metricsUrls,
      by: receipts ? 'receipt' : 'submit',
    },
    targetGroups: gatewayAndServers,
  };
}
