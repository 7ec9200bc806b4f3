import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { useDistributedRun } from '../support/distributed';
import { request } from '../support/http';

const COUNT = 2000;

describe('SIGTERM to a dispatcher during a batch drains it', () => {
  const run = useDistributedRun();

  it('finishes in-flight PDUs, unbinds, returns unacked jobs and exits in time; nothing lost or sent twice', async () => {
    const sim = new SmppSimulator({ host: '127.0.0.1', port: 0, latencyMs: [5, 30] });
    run.simulators.push(sim);
    const { port } = await sim.start();
    const dispatcherEnv = {
      SMSC_URL: `smpp://a:b@127.0.0.1:${port}?window=20`,
      SHUTDOWN_TIMEOUT_MS: '20000',
    };
    const { gateway, credentials } = await run.gatewayWithAccount('drain');
    await run.start('batch-scheduler');
    const first = await run.start('dispatcher', dispatcherEnv);
    const recipients = Array.from({ length: COUNT }, (_, i) => String(41_780_000_000 + i));
    await request(gateway.url, 'POST', '/secure/sendbatch', {
      auth: credentials,
      json: { messages: [{ to: recipients, content: 'drain' }] },
    });

    await sim.waitFor(200, 30_000);
    const unbindsBefore = sim.unbinds;
    const stoppedAt = Date.now();
    const code = await first.stop();
    // Within the grace period the deployment gives it (SHUTDOWN_TIMEOUT_MS).
    expect(code).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(20_000);
    expect(sim.unbinds).toBe(unbindsBefore + 1);
    const { rows: inFlight } = await run.db.query(
      `SELECT id FROM messages WHERE state = 'submitting'`,
    );
    expect(inFlight).toEqual([]);
    expect(sim.received.length).toBeLessThan(COUNT);

    await run.start('dispatcher', dispatcherEnv);
    await sim.waitFor(COUNT, 120_000);
    // Every message answered (none waiting or in flight): none can be claimed and sent again, so
    // any duplicate would already be at the simulator.
    await waitFor(
      async () => {
        const { rows: unsent } = await run.db.query<{ n: string }>(
          `SELECT count(*) AS n FROM messages WHERE state IN ('accepted', 'queued', 'submitting')`,
        );
        return unsent[0].n === '0' ? true : undefined;
      },
      30_000,
      'every message answered',
      100,
    );
    expect(new Set(sim.received.map((m) => m.to)).size).toBe(COUNT);
    expect(sim.received.length).toBe(COUNT);
    const { rows } = await run.db.query<{ n: string }>(
      `SELECT count(*) AS n FROM messages WHERE error = 'SUBMIT_OUTCOME_UNKNOWN'`,
    );
    expect(rows[0].n).toBe('0');
  }, 200_000);
});
