import { createLogger } from '@smsgw/kit';
import { SmppConnector, SmppSimulator, parseSmscUrl, splitMessage } from '@smsgw/smsc';
import { peakRssMb, startCluster } from './cluster';
import { cpuUsage } from './cpu-usage';

/** The SMSC-link ceiling: a plain SMPP client with the same window, straight to the simulator. */
async function linkCeiling(count: number, window: number): Promise<number> {
  const sim = new SmppSimulator({ host: '127.0.0.1', port: 0 });
  const { port } = await sim.start();
  const connector = new SmppConnector(
    parseSmscUrl(`smpp://bench:bench@127.0.0.1:${port}?window=${window}`),
    createLogger('bench', 'silent'),
  );
  await connector.start();
  const parts = splitMessage({ content: 'bulk' }, { maxParts: 1 }).parts;
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: window }, async () => {
      while (next < count) {
        next++;
        await connector.submit({
          to: String(41_700_000_000 + next),
          from: null,
          dataCoding: 0,
          parts,
          registeredDelivery: false,
        });
      }
    }),
  );
  const rate = count / ((Date.now() - started) / 1000);
  await connector.stop();
  await sim.stop();
  return Math.round(rate);
}

export async function benchBatch(
  count = Number(process.env['BENCH_BATCH_SIZE'] ?? 100_000),
): Promise<void> {
  const window = 100;
  // Measured before and after the batch (the cluster idle by then), so a change in the machine's
  // speed during the run weighs on both sides of the ratio.
  const ceilingBefore = await linkCeiling(count, window);
  const cluster = await startCluster({ smscQuery: `window=${window}` });
  try {
    const auth = await cluster.createAccount('batch');
    const recipients = Array.from({ length: count }, (_, i) => String(41_700_000_000 + i));
    const cpu = cpuUsage();
    const started = Date.now();
    const reply = await fetch(`${cluster.gateway.url}/secure/sendbatch`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ to: recipients, content: 'bulk' }] }),
    });
    const acceptMs = Date.now() - started;
    if (reply.status !== 200) throw new Error(`sendbatch: HTTP ${reply.status}`);
    await cluster.sim.waitFor(count, 30 * 60_000);
    const lastAt = cluster.sim.received[count - 1].receivedAt.getTime();
    const rate = Math.round(count / ((lastAt - started) / 1000));
    const cpuSeconds = cpu.stop();
    const rss = Object.fromEntries(cluster.services.map((s) => [s.name, peakRssMb(s.child.pid)]));
    const ceilingAfter = await linkCeiling(count, window);
    const ceiling = Math.round((ceilingBefore + ceilingAfter) / 2);
    console.log(
      JSON.stringify({
        bench: 'batch',
        count,
        window,
        acceptMs,
        seconds: (lastAt - started) / 1000,
        rate,
        ceiling,
        ceilingRuns: [ceilingBefore, ceilingAfter],
        ratio: Number((rate / ceiling).toFixed(3)),
        peakRssMb: rss,
        cpuSeconds,
      }),
    );
  } finally {
    await cluster.stop();
  }
}
