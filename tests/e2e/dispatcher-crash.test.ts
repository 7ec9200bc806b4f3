import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { useDistributedRun } from '../support/distributed';
import { request } from '../support/http';

const COUNT = 300;
const WINDOW = 20;

describe('promise 2: SIGKILL of the dispatcher mid-flight', () => {
  const run = useDistributedRun();

  it('every accepted message reaches the SMSC at most once, and settles', async () => {
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
      SMSC_URL: `smpp://smsgw:secret@127.0.0.1:${port}?window=${WINDOW}`,
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

    const { rows } = await run.db.query<{ to_addr: string; state: string; error: string | null }>(
      `SELECT to_addr, state, error FROM messages`,
    );
    expect(rows.map((m) => m.to_addr).sort()).toEqual(destinations);
    // Those whose submit_sm left before the kill but whose answer was never recorded are not resent,
    // nor those of a claim committed in the instant before its corked submit_sm left (at most two
    // groups of half a window): both end failed with an unknown outcome, and nothing else fails.
    expect(rows.filter((m) => m.state !== 'submitted' && m.state !== 'failed')).toEqual([]);
    expect(
      rows.filter((m) => m.state === 'failed' && m.error !== 'SUBMIT_OUTCOME_UNKNOWN'),
    ).toEqual([]);
    const notAtSmsc = rows.filter((m) => !seen.has(m.to_addr));
    expect(notAtSmsc.length).toBeLessThanOrEqual(WINDOW);
    expect(notAtSmsc.filter((m) => m.state !== 'failed')).toEqual([]);
  }, 120_000);
});
