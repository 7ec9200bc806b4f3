import { freePort, startService, type ServiceProcess } from '@smsgw/kit/testing';
import { benchRouteCount } from './bench-routes';
import {
  SINK_CALLBACK_ENV,
  reportedAtSink,
  startCallbackSink,
  type CallbackSink,
} from './callback-sink';
import { ADMIN_TOKEN, profilingArgs } from './cluster';
import {
  clusterGrouping,
  gatewayAndServers,
  gatewaySide,
  startDeployment,
  type Deployment,
} from './gateway-sides';
import { CONNECTIONS } from './http-load';
import { ratio, runSendRounds, type Side } from './send-rounds';
import { ReceiptCount, SmppLoadClient } from './smpp-load';
import { report } from './report';

const WINDOWS = [1, 10, 100] as const;
const SMPP_PASSWORD = 'bench-pw';

/** The smpp-server as one more process of the deployment, and the bench account's SMPP access. */
async function startSmppServer(deployment: Deployment): Promise<{
  process: ServiceProcess;
  port: number;
}> {
  const { cluster } = deployment;
  const port = await freePort();
  // Profiled like the deployment's other services (BENCH_PROFILE, BENCH_PERF, BENCH_NODE_ARGS).
  const process = await startService(
    'smpp-server',
    {
      ...cluster.env,
      AUTH_URL: cluster.auth.url,
      SMPP_SERVER_PORT: String(port),
      SMPP_SERVER_TLS_PORT: String(await freePort()),
    },
    45_000,
    profilingArgs(),
  );
  const access = await fetch(`${cluster.auth.url}/admin/v1/accounts/bench/smpp`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ password: SMPP_PASSWORD, throughput: null }),
  });
  if (access.status !== 200) {
    await process.stop();
    throw new Error(`SMPP access: HTTP ${access.status}`);
  }
  return { process, port };
}

/**
 * `pnpm bench smpp-server`: the same message (to 41790000001, "Hello", a receipt asked for) as
 * submit_sm on one transceiver session at windows of 1, 10 and 100, beside `/secure/send` at 32
 * connections twice, against one distributed deployment whose simulator answers every message
 * with a receipt, in alternating segments of one run. An SMPP message is done when its receipt
 * reached the customer as deliver_sm (on any of its three sessions: the gateway picks one).
 * `/secure/send` runs without a report (done when the dispatcher recorded its receipt) and with
 * one (dlr_url at level 2, done when the callback-notifier's request reached the bench's
 * endpoint), the HTTP side that delivers the receipt to the customer as SMPP does. CPU per message
 * is every process of the deployment, the smpp-server among them.
 */
export async function benchSmppServer(): Promise<void> {
  // The SMPP session takes a round of up to 200 deliver_sm at once: the HTTP side's reports should
  // not wait more (SINK_CALLBACK_ENV).
  const deployment = await startDeployment(true, undefined, {}, SINK_CALLBACK_ENV);
  let smppServer: ServiceProcess | undefined;
  let sink: CallbackSink | undefined;
  const clients: SmppLoadClient[] = [];
  try {
    sink = await startCallbackSink();
    const callbacks = sink;
    const started = await startSmppServer(deployment);
    smppServer = started.process;
    const serverPid = smppServer.child.pid;
    const base = clusterGrouping(deployment);
    const grouping = (pid: number, command: string) =>
      pid === serverPid ? 'smpp-server' : base(pid, command);
    const rest = { ...gatewaySide(deployment, 'rest'), grouping };
    const restCallback: Side = {
      ...reportedAtSink(gatewaySide(deployment, 'restCallback'), callbacks),
      grouping,
    };
    const receipts = new ReceiptCount();
    const smppSides: Side[] = [];
    for (const window of WINDOWS) {
      const client = await SmppLoadClient.bind(started.port, 'bench', SMPP_PASSWORD, receipts);
      clients.push(client);
      smppSides.push({
        name: `smppWindow${window}`,
        url: [],
        headers: {},
        grouping,
        load: (seconds) => client.load(window, seconds),
        tracker: () => receipts.tracker(),
        serverWal: true,
        targetGroups: gatewayAndServers,
      });
    }
    const result = await runSendRounds([rest, restCallback, ...smppSides]);
    const per = (name: string) => result.sides[name].targetMicrosPerMessage ?? 0;
    report({
      bench: 'smpp-server',
      connections: CONNECTIONS,
      windows: WINDOWS,
      mtRoutes: benchRouteCount(),
      receiptDelayMs: process.env['BENCH_RECEIPT_DELAY_MS'] ?? '50-500',
      postgresStatistics: deployment.analyze,
      ...result,
      ratios: Object.fromEntries(
        WINDOWS.flatMap((w) => [
          [
            `window${w}RateVsRest`,
            ratio(result.sides[`smppWindow${w}`].doneRate, result.sides['rest'].doneRate),
          ],
          [`window${w}CpuVsRest`, ratio(per(`smppWindow${w}`), per('rest'))],
          [`window${w}CpuVsRestCallback`, ratio(per(`smppWindow${w}`), per('restCallback'))],
        ]),
      ),
    });
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await smppServer?.stop();
    await sink?.close();
    await deployment.stop();
  }
}
