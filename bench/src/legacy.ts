import autocannon from 'autocannon';
import { benchRouteCount } from './bench-routes';
import { gatewaySide, startDeployment, type Deployment } from './gateway-sides';
import { CONNECTIONS, segmentOf, type Segment } from './http-load';
import { ratio, runSendRounds, type Side } from './send-rounds';
import { report } from './report';
import { ratiosTable, sidesTable } from './side-figures';

/** The account startDeployment creates, as Jasmin's and Kannel's clients give it: parameters. */
const USERNAME = 'bench';
const PASSWORD = 'bench-password';

/** GET requests of one URL at 32 connections for `seconds`: how these clients send. */
async function getLoad(urls: readonly string[], seconds: number): Promise<Segment> {
  const parts = await Promise.all(
    urls.map(async (url, i) => {
      const result = await autocannon({
        url,
        method: 'GET',
        connections:
          Math.floor(CONNECTIONS / urls.length) + (i < CONNECTIONS % urls.length ? 1 : 0),
        duration: seconds,
      });
      return segmentOf(result);
    }),
  );
  return parts.reduce((all, p) => ({
    requests: all.requests + p.requests,
    ok: all.ok + p.ok,
    seconds: Math.max(all.seconds, p.seconds),
    p50: Math.max(all.p50, p.p50),
    p99: Math.max(all.p99, p.p99),
    non2xx: all.non2xx + p.non2xx,
    statuses: { ...all.statuses, ...p.statuses },
    errors: all.errors + p.errors,
  }));
}

/** A side sending the same message through another interface of the same deployment. */
function getSide(deployment: Deployment, name: string, pathAndQuery: string): Side {
  const rest = gatewaySide(deployment, name);
  const urls = deployment.cluster.gateways.map((g) => `${g.url}${pathAndQuery}`);
  return { ...rest, load: (seconds) => getLoad(urls, seconds) };
}

/**
 * `pnpm bench legacy`: the same message (to 41790000001, "Hello") through `/secure/send` (JSON,
 * Basic credentials, the hot path), Jasmin's `GET /send` and Kannel's `GET /cgi-bin/sendsms`
 * (credentials as parameters), at 32 connections against one distributed deployment whose
 * simulator answers every message with a receipt; a message is done when its receipt is recorded.
 * The sides alternate in segments of one run, so each is measured on the same machine at the same
 * time; CPU per message is the gateway's processes and the servers they use.
 */
export async function benchLegacy(): Promise<void> {
  const deployment = await startDeployment(true);
  try {
    const credentials = { username: USERNAME, password: PASSWORD, to: '41790000001' };
    const jasmin = new URLSearchParams({ ...credentials, content: 'Hello' });
    const kannel = new URLSearchParams({ ...credentials, text: 'Hello' });
    const sides: Side[] = [
      gatewaySide(deployment, 'rest'),
      getSide(deployment, 'jasmin', `/send?${jasmin.toString()}`),
      getSide(deployment, 'kannel', `/cgi-bin/sendsms?${kannel.toString()}`),
    ];
    const result = await runSendRounds(sides);
    const { rest, jasmin: j, kannel: k } = result.sides;
    const per = (side: typeof rest) => side.targetMicrosPerMessage ?? 0;
    const ratios = {
      jasminRpsVsRest: ratio(j.rps, rest.rps),
      kannelRpsVsRest: ratio(k.rps, rest.rps),
      jasminCpuVsRest: ratio(per(j), per(rest)),
      kannelCpuVsRest: ratio(per(k), per(rest)),
    };
    report(
      {
        bench: 'legacy',
        connections: CONNECTIONS,
        mtRoutes: benchRouteCount(),
        receiptDelayMs: process.env['BENCH_RECEIPT_DELAY_MS'] ?? '50-500',
        postgresStatistics: deployment.analyze,
        ...result,
        ratios,
      },
      [
        sidesTable(result.sides, [
          ['rest', '`POST /secure/send`'],
          ['jasmin', 'Jasmin `GET /send`'],
          ['kannel', 'Kannel `GET /cgi-bin/sendsms`'],
        ]),
        ratiosTable(ratios, {
          jasminRpsVsRest: 'answers/s, Jasmin `/send` against `/secure/send`',
          kannelRpsVsRest: 'answers/s, Kannel sendsms against `/secure/send`',
          jasminCpuVsRest: 'target CPU, Jasmin `/send` against `/secure/send`',
          kannelCpuVsRest: 'target CPU, Kannel sendsms against `/secure/send`',
        }),
      ],
    );
  } finally {
    await deployment.stop();
  }
}
