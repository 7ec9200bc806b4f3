/**
 * Several connectors and MT routes in distributed mode, with simulators as operators: routes and
 * connectors made through the admin API while everything runs, prefix and weighted routes, failover
 * when an SMSC goes away (also from a weighted route's draw), a connector's binds held across three
 * dispatchers while one is SIGKILLed, receipts with the same SMSC id from two connectors, and a
 * connector over TLS.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSignedCertificate, waitFor } from '@smsgw/kit/testing';
import type { ServiceProcess } from '@smsgw/kit/testing';
import { SmppSimulator, type SmppSimulatorOptions } from '@smsgw/smsc';
import { E2E_ADMIN_TOKEN, useDistributedRun } from '../support/distributed';
import { basic, request } from '../support/http';
import { metricSample } from '../support/scrape';

const run = useDistributedRun();
let auth: ServiceProcess;
let gateway: ServiceProcess;
const dispatchers: ServiceProcess[] = [];
const carol = basic('carol', 'carol-password');
let dir: string;

async function simulator(
  options: SmppSimulatorOptions = {},
): Promise<{ sim: SmppSimulator; port: number }> {
  const sim = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    deliveryReceipts: false,
    ...options,
  });
  run.simulators.push(sim);
  return { sim, port: (await sim.start()).port };
}

const admin = (method: string, path: string, json?: unknown) =>
  request(auth.url, method, `/admin/v1${path}`, {
    auth: `Bearer ${E2E_ADMIN_TOKEN}`,
    ...(json !== undefined && { json }),
  });

async function connector(name: string, url: string, binds = 1): Promise<void> {
  run.cluster.connectors.push(name);
  const created = await admin('POST', '/connectors', { name, url, binds });
  expect({ name, status: created.status }).toEqual({ name, status: 201 });
}

async function route(name: string, body: Record<string, unknown>): Promise<void> {
  const put = await admin('PUT', `/routes/${name}`, body);
  expect({ name, status: put.status, body: put.body }).toMatchObject({ name, status: 200 });
}

/** Waits until the gateway prices `to` by `route` (it reloads the routes every 2 s). */
async function routeLoaded(to: string, name: string): Promise<void> {
  await waitFor(
    async () => {
      const r = await request(gateway.url, 'POST', '/secure/rate', {
        auth: carol,
        json: { to, content: 'x' },
      });
      return r.body.data?.route === name ? true : undefined;
    },
    15_000,
    `route ${name} loaded`,
    100,
  );
}

async function send(to: string, extra: Record<string, unknown> = {}): Promise<string> {
  const reply = await request(gateway.url, 'POST', '/secure/send', {
    auth: carol,
    json: { to, content: `to ${to}`, ...extra },
  });
  expect(reply.status).toBe(200);
  return /[0-9a-f-]{36}/.exec(reply.body.data as string)![0];
}

async function settled(ids: readonly string[], timeoutMs = 60_000): Promise<void> {
  await waitFor(
    async () => {
      const { rows } = await run.db.query<{ n: string }>(
        `SELECT count(*) AS n FROM messages WHERE id = ANY($1::uuid[]) AND state IN ('accepted', 'queued', 'submitting')`,
        [ids],
      );
      return rows[0].n === '0' ? true : undefined;
    },
    timeoutMs,
    'messages settled',
    200,
  );
}

/** Waits until the dispatchers report es2 bound (`up`), or reported it bound and now report none. */
async function esBound(state: 'up' | 'down'): Promise<void> {
  await waitFor(
    async () => {
      const { rows } = await run.db.query<{ bound: number }>(
        `SELECT COALESCE(sum(bound), 0)::int AS bound FROM connector_status WHERE connector = 'es2'`,
      );
      return rows[0].bound > 0 === (state === 'up') ? true : undefined;
    },
    30_000,
    `es2 ${state}`,
    100,
  );
}

const count = (sim: SmppSimulator, prefix: string) =>
  sim.received.filter((r) => r.to.startsWith(prefix)).length;

let home: { sim: SmppSimulator; port: number };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'routing-e2e-'));
  home = await simulator();
  // The test follows each message's route and connectors, which customers see only when shown.
  const started = await run.gatewayWithAccount('routing-admin', {
    SHOW_ROUTES_TO_CUSTOMERS: 'true',
  });
  auth = started.auth;
  gateway = started.gateway;
  expect(
    (
      await admin('POST', '/accounts', {
        username: 'carol',
        password: 'carol-password',
        balance: '10000',
        rate: '0.1',
      })
    ).status,
  ).toBe(201);
  await run.start('batch-scheduler');
  for (let i = 0; i < 3; i++)
    dispatchers.push(
      await run.start('dispatcher', {
        SMSC_URL: `smpp://gw:pw@127.0.0.1:${home.port}?window=50`,
        SWEEP_INTERVAL_MS: '1000',
      }),
    );
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('routing across connectors in distributed mode', () => {
  it('sends each prefix to its connector only, and splits a weighted route by its weights', async () => {
    const uk = await simulator();
    const de1 = await simulator();
    const de2 = await simulator();
    await connector('uk', `smpp://gw:pw@127.0.0.1:${uk.port}?window=50`);
    await connector('de1', `smpp://gw:pw@127.0.0.1:${de1.port}?window=50`);
    await connector('de2', `smpp://gw:pw@127.0.0.1:${de2.port}?window=50`);
    await route('uk', {
      position: 10,
      kind: 'static',
      connectors: [{ connector: 'uk' }],
      filters: { prefixes: ['44'] },
      price: '0.2',
    });
    await route('de', {
      position: 20,
      kind: 'weighted',
      connectors: [
        { connector: 'de1', weight: 1 },
        { connector: 'de2', weight: 1 },
      ],
      filters: { prefixes: ['49'] },
    });
    await route('rest', { position: 1000, kind: 'static', connectors: [{ connector: 'default' }] });
    await routeLoaded('4915100000', 'de');
    await routeLoaded('447700000000', 'uk');

    const { rows: before } = await run.db.query<{ balance: string }>(
      `SELECT balance::text FROM accounts WHERE username = 'carol'`,
    );
    const germans = Array.from({ length: 2000 }, (_, i) => `4915${String(i).padStart(7, '0')}`);
    const batch = await request(gateway.url, 'POST', '/secure/sendbatch', {
      auth: carol,
      json: {
        messages: [
          { to: germans, content: 'weighted' },
          { to: ['447700000001', '33100000001'], content: 'x' },
        ],
      },
    });
    expect(batch.status).toBe(200);
    await waitFor(
      () =>
        count(de1.sim, '4915') + count(de2.sim, '4915') >= 2000 && count(uk.sim, '44') >= 1
          ? true
          : undefined,
      90_000,
      'batch delivered',
      200,
    );
    const one = count(de1.sim, '4915');
    const other = count(de2.sim, '4915');
    expect(one + other).toBe(2000);
    // Each connector within ±5% (of the 2,000) of its half.
    expect(Math.abs(one - 1000)).toBeLessThanOrEqual(100);
    expect(new Set([...de1.sim.received, ...de2.sim.received].map((r) => r.to)).size).toBe(2000);
    expect(count(uk.sim, '')).toBe(1);
    expect(count(home.sim, '44') + count(home.sim, '49')).toBe(0);
    expect(count(home.sim, '33100000001')).toBe(1);
    const { rows: after } = await run.db.query<{ balance: string }>(
      `SELECT balance::text FROM accounts WHERE username = 'carol'`,
    );
    // 2,000 × 0.1 (the rate) + 0.2 (uk) + 0.1.
    expect(Number(before[0].balance) - Number(after[0].balance)).toBeCloseTo(200.3, 6);
  }, 180_000);

  it('fails over when the SMSC goes away: each message reaches exactly one SMSC, charged once', async () => {
    const fr = await simulator();
    await connector('fr', `smpp://gw:pw@127.0.0.1:${fr.port}?window=20&response_timeout_ms=2000`);
    await route('fr', {
      position: 30,
      kind: 'failover',
      connectors: [{ connector: 'fr' }, { connector: 'default' }],
      filters: { prefixes: ['33'] },
      price: '0.05',
    });
    await routeLoaded('33600000000', 'fr');
    const first = await send('33600000001');
    await settled([first]);
    expect(count(fr.sim, '33600000001')).toBe(1);

    await fr.sim.stop();
    const ids: string[] = [];
    for (let i = 2; i <= 41; i++) ids.push(await send(`336000000${String(i).padStart(2, '0')}`));
    await settled(ids, 90_000);
    const { rows } = await run.db.query<{
      state: string;
      connector: string;
      trail: string[];
      cost: string;
    }>(
      `SELECT state, connector, connector_trail AS trail, cost::text FROM messages WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    expect(rows).toHaveLength(40);
    expect(rows.every((r) => r.state === 'submitted' && r.connector === 'default')).toBe(true);
    expect(rows.every((r) => r.trail.join(',') === 'fr,default')).toBe(true);
    expect(rows.every((r) => Number(r.cost) === 0.05)).toBe(true);
    for (let i = 2; i <= 41; i++)
      expect(count(home.sim, `336000000${String(i).padStart(2, '0')}`)).toBe(1);
    const { rows: ledger } = await run.db.query<{ reason: string; n: string }>(
      `SELECT reason, count(*) AS n FROM credit_ledger WHERE message_id = ANY($1::uuid[]) GROUP BY reason`,
      [ids],
    );
    expect(ledger.map((l) => [l.reason, Number(l.n)])).toEqual([['debit', 40]]);
  }, 150_000);

  it('fails a weighted route over to its other connector when the drawn one is down', async () => {
    const es1 = await simulator();
    const es2 = await simulator();
    await connector('es1', `smpp://gw:pw@127.0.0.1:${es1.port}?window=20`);
    await connector('es2', `smpp://gw:pw@127.0.0.1:${es2.port}?window=20`);
    await route('es', {
      position: 35,
      kind: 'weighted',
      connectors: [
        { connector: 'es1', weight: 1 },
        { connector: 'es2', weight: 3 },
      ],
      filters: { prefixes: ['34'] },
    });
    await routeLoaded('34300000000', 'es');
    // es2 is down once its dispatcher has seen its session end: a submit written to the socket
    // before that would be unanswered, and its outcome unknown, rather than passed on.
    await esBound('up');
    await es2.sim.stop();
    await esBound('down');
    const ids: string[] = [];
    for (let i = 1; i <= 20; i++) ids.push(await send(`343000000${String(i).padStart(2, '0')}`));
    await settled(ids, 90_000);
    const { rows } = await run.db.query<{ state: string; connector: string; trail: string[] }>(
      `SELECT state, connector, connector_trail AS trail FROM messages WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    expect(rows.filter((r) => r.state !== 'submitted' || r.connector !== 'es1')).toEqual([]);
    const trails = new Set(rows.map((r) => r.trail.join(',')));
    // es2 is drawn three times in four: with 20 messages some were drawn to it and moved on.
    expect(trails.has('es2,es1')).toBe(true);
    expect([...trails].filter((t) => t !== 'es1' && t !== 'es2,es1')).toEqual([]);
    for (let i = 1; i <= 20; i++)
      expect(count(es1.sim, `343000000${String(i).padStart(2, '0')}`)).toBe(1);
  }, 150_000);

  it('never has more than binds sessions at the SMSC, also while a holding dispatcher is SIGKILLed', async () => {
    const pair = await simulator();
    await connector('pair', `smpp://gw:pw@127.0.0.1:${pair.port}?window=10`, 2);
    await route('pair', {
      position: 40,
      kind: 'static',
      connectors: [{ connector: 'pair' }],
      filters: { prefixes: ['39'] },
    });
    await waitFor(() => (pair.sim.boundCount === 2 ? true : undefined), 20_000, 'two binds', 100);
    // Three dispatchers compete: once each has the connector's lane and two hold its leases, the
    // third holds none and cannot bind while they renew them; a third bind would show in the peak.
    await waitFor(
      async () => {
        const lanes = await Promise.all(
          dispatchers.map((d) =>
            metricSample(d.url, 'smsgw_connector_lease_held', { connector: 'pair' }),
          ),
        );
        return lanes.every((held) => held !== undefined) &&
          lanes.reduce((n, held) => n + (held ?? 0), 0) === 2
          ? true
          : undefined;
      },
      20_000,
      'every dispatcher has looked at pair, two hold it',
    );
    expect(pair.sim.peakBound).toBe(2);

    // Each holder reports its sessions every few seconds.
    const holders = await waitFor(
      async () => {
        const { rows } = await run.db.query<{ holder: string }>(
          `SELECT holder FROM connector_status WHERE connector = 'pair' AND bound > 0`,
        );
        return rows.length >= 2 ? rows : undefined;
      },
      20_000,
      'both holders reported',
    );
    expect(holders).toHaveLength(2);
    const victim = dispatchers.find((d) =>
      holders.some((h) => h.holder.includes(`:${d.child.pid}:`)),
    )!;
    expect(victim).toBeDefined();
    await routeLoaded('393000000000', 'pair');
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await send(`3930000000${String(i).padStart(2, '0')}`));
    await victim.kill();
    dispatchers.splice(dispatchers.indexOf(victim), 1);
    for (let i = 20; i < 40; i++) ids.push(await send(`3930000000${String(i).padStart(2, '0')}`));
    // The dead dispatcher's lease expires and the spare one binds in its place.
    await waitFor(
      () => (pair.sim.boundCount === 2 ? true : undefined),
      30_000,
      'bind taken over',
      100,
    );
    await settled(ids, 90_000);
    expect(pair.sim.peakBound).toBe(2);
    const seen = new Map<string, number>();
    for (const m of pair.sim.received) seen.set(m.to, (seen.get(m.to) ?? 0) + 1);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
  }, 150_000);

  it('matches receipts with the same SMSC id from two connectors to their own messages', async () => {
    // Two fresh simulators number their messages alike: their first ids are equal.
    const good = await simulator({
      deliveryReceipts: true,
      receiptDelayMs: 300,
      receiptStat: 'DELIVRD',
    });
    const bad = await simulator({
      deliveryReceipts: true,
      receiptDelayMs: 300,
      receiptStat: 'UNDELIV',
    });
    await connector('good', `smpp://gw:pw@127.0.0.1:${good.port}`);
    await connector('bad', `smpp://gw:pw@127.0.0.1:${bad.port}`);
    await route('good', {
      position: 50,
      kind: 'static',
      connectors: [{ connector: 'good' }],
      filters: { prefixes: ['351'] },
    });
    await route('bad', {
      position: 60,
      kind: 'static',
      connectors: [{ connector: 'bad' }],
      filters: { prefixes: ['352'] },
    });
    await routeLoaded('351000000000', 'good');
    await routeLoaded('352000000000', 'bad');
    await waitFor(
      async () => {
        const c = (await admin('GET', '/connectors')).body.data as {
          name: string;
          state: string;
        }[];
        return ['good', 'bad'].every((n) => c.find((x) => x.name === n)?.state === 'up')
          ? true
          : undefined;
      },
      20_000,
      'connectors up',
      200,
    );
    const a = await send('351000000001');
    const b = await send('352000000001');
    const states = await waitFor(
      async () => {
        const { rows } = await run.db.query<{ id: string; state: string; smsc_id: string }>(
          `SELECT id, state, smsc_id FROM messages WHERE id = ANY($1::uuid[])`,
          [[a, b]],
        );
        return rows.every((r) => r.state === 'delivered' || r.state === 'undelivered')
          ? rows
          : undefined;
      },
      30_000,
      'receipts recorded',
      200,
    );
    const byId = new Map(states.map((r) => [r.id, r]));
    expect(byId.get(a)!.smsc_id).toBe(byId.get(b)!.smsc_id);
    expect(byId.get(a)!.state).toBe('delivered');
    expect(byId.get(b)!.state).toBe('undelivered');
  }, 90_000);

  it('takes a changed connector URL without a restart, and binds over TLS', async () => {
    const { key, cert } = selfSignedCertificate(dir);
    const secure = await simulator({ tls: { key, cert } });
    const plain = await simulator();
    await connector('nl', `smpp://gw:pw@127.0.0.1:${plain.port}`);
    await route('nl', {
      position: 70,
      kind: 'static',
      connectors: [{ connector: 'nl' }],
      filters: { prefixes: ['31'] },
    });
    await routeLoaded('310000000000', 'nl');
    const before = await send('310000000001');
    await settled([before]);
    expect(count(plain.sim, '31')).toBe(1);

    const changed = await admin('PATCH', '/connectors/nl', {
      url: `smpps://gw:pw@127.0.0.1:${secure.port}?tls_ca=${encodeURIComponent(cert)}`,
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data.url).toContain('smpps://gw:***@');
    await waitFor(
      () => (secure.sim.boundCount === 1 && plain.sim.boundCount === 0 ? true : undefined),
      20_000,
      'rebound over TLS',
      100,
    );
    const after = await send('310000000002');
    await settled([after]);
    expect(count(secure.sim, '310000000002')).toBe(1);
    expect(count(plain.sim, '310000000002')).toBe(0);
  }, 90_000);
});
