import autocannon from 'autocannon';
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startCluster } from './cluster';
import { cpuUsage } from './cpu-usage';

const CONNECTIONS = 32;
const BODY = '{"to":"41790000001","content":"Hello"}';

interface Segment {
  requests: number;
  ok: number;
  seconds: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function load(
  url: string,
  headers: Record<string, string>,
  seconds: number,
): Promise<Segment> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers,
    body: BODY,
    connections: CONNECTIONS,
    duration: seconds,
  });
  return {
    requests: result.requests.total,
    ok: result['2xx'],
    seconds: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** Requests per second over all segments; p50 the median segment's, p99 the worst segment's. */
function summary(segments: Segment[]) {
  const sorted = segments.map((s) => s.p50).sort((a, b) => a - b);
  return {
    rps: Math.round(
      segments.reduce((n, s) => n + s.requests, 0) / segments.reduce((n, s) => n + s.seconds, 0),
    ),
    p50: sorted[Math.floor(sorted.length / 2)],
    p99: Math.max(...segments.map((s) => s.p99)),
    non2xx: segments.reduce((n, s) => n + s.non2xx, 0),
    errors: segments.reduce((n, s) => n + s.errors, 0),
  };
}

/** The framework ceiling: express answering a constant on this machine, same load. */
async function ceilingServer(): Promise<{ url: string; server: Server }> {
  const app = express();
  app.post('/secure/send', (req, res) => {
    req.resume();
    req.on('end', () => res.json({ data: 'Success "00000000-0000-0000-0000-000000000000' }));
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/secure/send`, server };
}

/**
 * The ceiling and the gateway are measured in alternating segments (BENCH_ROUNDS, default 5, of
 * BENCH_SECONDS / rounds each), so a change in the machine's speed during the run (seen here: the
 * same code twice as fast from one minute to the next) weighs on both sides of the ratio. Before
 * each ceiling segment the dispatcher has drained what the gateway accepted, so it is idle then.
 */
export async function benchSend(
  seconds = Number(process.env['BENCH_SECONDS'] ?? 20),
): Promise<void> {
  const rounds = Math.max(1, Number(process.env['BENCH_ROUNDS'] ?? 5));
  const segmentSeconds = Math.max(2, Math.round(seconds / rounds));
  const ceiling = await ceilingServer();
  const cluster = await startCluster();
  try {
    const auth = await cluster.createAccount('send');
    const headers = { authorization: auth, 'content-type': 'application/json' };
    const gatewayUrl = `${cluster.gateway.url}/secure/send`;
    let accepted = 0;
    // Every accepted request reaches the simulator before the next ceiling segment.
    const drained = () => cluster.sim.waitFor(accepted, 30_000);
    // Warm-up of both, so both are measured with their code compiled.
    await load(ceiling.url, { 'content-type': 'application/json' }, 2);
    accepted += (await load(gatewayUrl, headers, 2)).ok;
    await drained();

    const ceilingSegments: Segment[] = [];
    const gatewaySegments: Segment[] = [];
    const cpuTotals: Record<string, number> = {};
    for (let round = 0; round < rounds; round++) {
      ceilingSegments.push(
        await load(ceiling.url, { 'content-type': 'application/json' }, segmentSeconds),
      );
      const cpu = cpuUsage();
      const segment = await load(gatewayUrl, headers, segmentSeconds);
      for (const [name, used] of Object.entries(cpu.stop()))
        cpuTotals[name] = (cpuTotals[name] ?? 0) + used;
      gatewaySegments.push(segment);
      accepted += segment.ok;
      await drained();
    }
    const gateway = summary(gatewaySegments);
    const baseline = summary(ceilingSegments);
    // CPU per accepted request, each process, during the gateway's segments: where the two cores went.
    const requests = gatewaySegments.reduce((n, s) => n + s.ok, 0);
    const cpuMicrosPerRequest = Object.fromEntries(
      Object.entries(cpuTotals).map(([k, v]) => [k, Math.round((v * 1e6) / requests)]),
    );
    console.log(
      JSON.stringify({
        bench: 'send',
        connections: CONNECTIONS,
        seconds: segmentSeconds * rounds,
        gateway,
        ceiling: baseline,
        ratio: Number((gateway.rps / baseline.rps).toFixed(3)),
        roundRatios: gatewaySegments.map((s, i) =>
          Number(
            (
              s.requests /
              s.seconds /
              (ceilingSegments[i].requests / ceilingSegments[i].seconds)
            ).toFixed(3),
          ),
        ),
        roundP99: gatewaySegments.map((s) => s.p99),
        // Requests still in flight when a segment ends are answered (and sent) but not counted.
        answered2xx: accepted,
        deliveredToSimulator: cluster.sim.received.length,
        cpuMicrosPerRequest,
      }),
    );
  } finally {
    ceiling.server.close();
    await cluster.stop();
  }
}
