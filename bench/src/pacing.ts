import { startCluster } from './cluster';
import { figure } from './figure-table';
import { report } from './report';

/** A 200/s connector cap shared by 3 dispatchers through Redis: the rate at the SMSC, second by second. */
export async function benchPacing(
  cap = 200,
  seconds = Number(process.env['BENCH_PACING_SECONDS'] ?? 30),
): Promise<void> {
  const cluster = await startCluster({ dispatchers: 3, smscQuery: `window=50&throughput=${cap}` });
  try {
    const auth = await cluster.createAccount('pacing');
    const total = cap * (seconds + 10);
    const recipients = Array.from({ length: total }, (_, i) => String(41_700_000_000 + i));
    await fetch(`${cluster.gateway.url}/secure/sendbatch`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ to: recipients, content: 'paced' }] }),
    });
    // Skip the first seconds (start-up), then count arrivals per whole second.
    await new Promise((r) => setTimeout(r, 3000));
    const from = Math.ceil(Date.now() / 1000) * 1000;
    await new Promise((r) => setTimeout(r, from + seconds * 1000 - Date.now() + 200));
    const perSecond = Array.from(
      { length: seconds },
      (_, i) =>
        cluster.sim.received.filter(
          (m) =>
            m.receivedAt.getTime() >= from + i * 1000 &&
            m.receivedAt.getTime() < from + (i + 1) * 1000,
        ).length,
    );
    const mean = perSecond.reduce((a, b) => a + b, 0) / seconds;
    const max = Math.max(...perSecond);
    const sd = Math.sqrt(perSecond.reduce((a, b) => a + (b - mean) ** 2, 0) / seconds);
    report(
      {
        bench: 'pacing',
        cap,
        dispatchers: 3,
        seconds,
        mean: Number(mean.toFixed(1)),
        deviationFromCap: Number(((mean - cap) / cap).toFixed(4)),
        maxSecond: max,
        maxOverCap: Number(((max - cap) / cap).toFixed(4)),
        stddev: Number(sd.toFixed(1)),
        perSecond,
      },
      [
        {
          columns: ['cap /s', 'dispatchers', 'seconds counted', 'mean /s', 'busiest second', 'σ'],
          rows: [
            [
              cap,
              3,
              seconds,
              mean.toFixed(1),
              `${max} (${figure(Number((((max - cap) / cap) * 100).toFixed(1)))} % over)`,
              sd.toFixed(1),
            ],
          ],
        },
      ],
    );
  } finally {
    await cluster.stop();
  }
}
