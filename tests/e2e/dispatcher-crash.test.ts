import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { useDistributedRun } from '../support/distributed';
import { request } from '../support/http';

const COUNT = 300;

describe('promise 2: SIGKILL of the dispatcher mid-flight', () => {
  const run = useDistributedRun();

  it('every accepted message reaches the SMSC exactly once', async () => {
    // Slow answers keep a full window in flight when the kill lands.
    const sim = new SmppSimulator({
      host: '127.0.0.1',
      port: 0,
      latencyMs: [20, 60],
      deliveryReceipts: false,
    });
    run.simulators.push(sim);
    const { port } = await sim.start();
    const dispatcherEnv = {
      SMSC_URL: `smpp://smsgw:secret@127.0.0.1:${port}?window=20`,
      SUBMIT_STALE_MS: '1500',
      SWEEP_INTERVAL_MS: '300',
    };
    const { gateway, credentials } = await run.gatewayWithAccount('crash');
    const dispatcher = await run.start('dispatcher', dispatcherEnv);

    const destinations = Array.from(
      { length: COUNT },
      (_, i) => `4179${String(i).padStart(7, '0')}`,
    );
    let next = 0;
    const senders = Array.from({ length: 16 }, async () => {
      while (next < destinations.length) {
        const to = destinations[next++];
        const reply = await request(gateway.url, 'POST', '/secure/send', {
          auth: credentials,
          json: { to, content: `message to ${to}` },
        });
        expect(reply.status).toBe(200);
      }
    });

    await sim.waitFor(COUNT / 5, 30_000);
    await dispatcher.kill();
    const atKill = sim.received.length;
    await Promise.all(senders);
    expect(atKill).toBeLessThan(COUNT);

    await run.start('dispatcher', dispatcherEnv);
    await waitFor(
      async () => {
        const { rows } = await run.db.query<{ open: string }>(
          `SELECT count(*) AS open FROM messages WHERE state IN ('accepted', 'queued', 'submitting')`,
        );
        return rows[0].open === '0' ? true : undefined;
      },
      60_000,
      'every message settled',
      200,
    );

    const seen = new Map<string, number>();
    for (const m of sim.received) seen.set(m.to, (seen.get(m.to) ?? 0) + 1);
    expect([...seen].filter(([, n]) => n > 1)).toEqual([]);
    expect([...seen.keys()].sort()).toEqual(destinations);

    const { rows } = await run.db.query<{ state: string; n: string }>(
      `SELECT state, count(*) AS n FROM messages GROUP BY state ORDER BY state`,
    );
    const states = Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
    // Those whose submit_sm left before the kill but whose answer was never recorded are not resent.
    expect((states['submitted'] ?? 0) + (states['failed'] ?? 0)).toBe(COUNT);
    const { rows: otherFailures } = await run.db.query(
      `SELECT id FROM messages WHERE state = 'failed' AND error <> 'SUBMIT_OUTCOME_UNKNOWN'`,
    );
    expect(otherFailures).toEqual([]);
  }, 120_000);
});
