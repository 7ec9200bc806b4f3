import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';

/** SMART_QOS: throttling from the SMSC makes the rate back off, and it recovers once the SMSC is well. */
describe('smart QoS', () => {
  let sim: SmppSimulator;
  let gw: RunningGateway;
  const qosRate = async (): Promise<number | undefined> => {
    const text = (await request(gw.base, 'GET', '/metrics')).text;
    const match = /^smsgw_qos_rate\{[^}]*\} ([\d.]+)$/m.exec(text);
    return match ? Number(match[1]) : undefined;
  };
  const decreases = async (reason: 'throttled' | 'slow'): Promise<number> => {
    const text = (await request(gw.base, 'GET', '/metrics')).text;
    const pattern = new RegExp(
      `^smsgw_qos_decreases_total\\{[^}]*reason="${reason}"[^}]*\\} (\\d+)$`,
      'm',
    );
    return Number(pattern.exec(text)?.[1] ?? 0);
  };

  beforeAll(async () => {
    sim = new SmppSimulator({
      host: '127.0.0.1',
      port: 0,
      throttleRate: 0.5,
      random: (() => {
        let i = 0;
        return () => (i++ % 2 === 0 ? 0.1 : 0.9);
      })(),
    });
    const { port } = await sim.start();
    gw = await startEmbedded({
      SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
      SMART_QOS: 'true',
      HTTP_THROUGHPUT_PER_WORKER: '100',
    });
    await request(gw.base, 'POST', '/admin/v1/accounts', {
      auth: `Bearer ${ADMIN_TOKEN}`,
      json: { username: 'qos', password: 'qos-password', balance: null },
    });
  });
  afterAll(async () => {
    await gw?.stop();
    await sim?.stop();
  });

  it('backs off on ESME_RTHROTTLED and climbs back to the configured rate', async () => {
    const auth = basic('qos', 'qos-password');
    // Enough that messages are still going out when the throttling stops, so the rate climbs back
    // while the SMSC's answers still feed the latency check, as in production.
    const recipients = Array.from({ length: 1000 }, (_, i) => String(41_770_000_000 + i));
    await request(gw.base, 'POST', '/secure/sendbatch', {
      auth,
      json: { messages: [{ to: recipients, content: 'qos' }] },
    });
    const lowered = await waitFor(
      async () => {
        const rate = await qosRate();
        return rate !== undefined && rate < 60 ? rate : undefined;
      },
      20_000,
      'the rate lowered',
      100,
    );
    expect(lowered).toBeLessThan(60);
    expect(await decreases('throttled')).toBeGreaterThan(0);

    sim.setThrottleRate(0);
    const recovered = await waitFor(
      async () => {
        const rate = await qosRate();
        console.log(
          Date.now() % 100000,
          rate,
          await decreases('throttled'),
          await decreases('slow'),
        );
        return rate !== undefined && rate >= 98 ? rate : undefined;
      },
      // From a quarter of the ceiling at +5% a second the climb takes 15 s: the margin is for a
      // busy machine (the controller's own decisions are tested on a clock of their own).
      60_000,
      'the rate recovered',
      250,
    ).catch(async (err: Error) => {
      // Which decreases held it down tells a throttling SMSC from answers judged slow.
      const why = `rate ${await qosRate()}, decreases: throttled ${await decreases('throttled')}, slow ${await decreases('slow')}`;
      throw new Error(`${err.message} (${why})`);
    });
    expect(recovered).toBeGreaterThanOrEqual(98);
    // Throttled messages were retried, not lost.
    await waitFor(
      () => (new Set(sim.received.map((r) => r.to)).size === 1000 ? true : undefined),
      120_000,
      'all 1000 messages received',
      250,
    );
  }, 240_000);
});
