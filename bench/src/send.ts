import autocannon from 'autocannon';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { startCluster } from './cluster';
import { cpuUsage } from './cpu-usage';

const CONNECTIONS = 32;

async function load(url: string, headers: Record<string, string>, body: string, seconds: number) {
  const result = await autocannon({ url, method: 'POST', headers, body, connections: CONNECTIONS, duration: seconds });
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

/** The framework ceiling: express answering a constant on this machine, same load. */
async function baseline(seconds: number) {
  const app = express();
  app.post('/secure/send', (req, res) => {
    req.resume();
    req.on('end', () => res.json({ data: 'Success "00000000-0000-0000-0000-000000000000' }));
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/secure/send`;
  try {
    // Warmed up as the gateway is below, so both are measured with their code compiled.
    await load(url, { 'content-type': 'application/json' }, '{"to":"41790000001","content":"Hello"}', 2);
    return await load(url, { 'content-type': 'application/json' }, '{"to":"41790000001","content":"Hello"}', seconds);
  } finally {
    server.close();
  }
}

export async function benchSend(seconds = Number(process.env['BENCH_SECONDS'] ?? 10)): Promise<void> {
  const ceiling = await baseline(seconds);
  const cluster = await startCluster();
  try {
    const auth = await cluster.createAccount('send');
    const headers = { authorization: auth, 'content-type': 'application/json' };
    await load(`${cluster.gateway.url}/secure/send`, headers, '{"to":"41790000001","content":"Hello"}', 2); // warm-up
    const cpu = cpuUsage();
    const gateway = await load(`${cluster.gateway.url}/secure/send`, headers, '{"to":"41790000001","content":"Hello"}', seconds);
    const cpuSeconds = cpu.stop();
    // CPU per accepted request, each process: where the two cores went.
    const requests = gateway.rps * seconds;
    const cpuMicrosPerRequest = Object.fromEntries(Object.entries(cpuSeconds).map(([k, v]) => [k, Math.round((v * 1e6) / requests)]));
    console.log(
      JSON.stringify({
        bench: 'send',
        connections: CONNECTIONS,
        seconds,
        gateway,
        ceiling,
        ratio: Number((gateway.rps / ceiling.rps).toFixed(3)),
        deliveredDuringRun: cluster.sim.received.length,
        cpuMicrosPerRequest,
      }),
    );
  } finally {
    await cluster.stop();
  }
}
