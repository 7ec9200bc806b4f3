/**
 * Connectors and MT routes in embedded mode, with two simulators as two operators: the admin API
 * and the CLI manage them without a restart, prefix routes send each destination to its own SMSC
 * at its own price, a message no route takes is refused uncharged, and failover routes pass
 * messages on when a connector is stopped or its SMSC refuses them with a listed status.
 */
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { adminCaller, basic, request } from '../support/http';
import { runSmsgw } from '../support/cli';
import { metricValue } from '../support/scrape';

let home: SmppSimulator;
let abroad: SmppSimulator;
let gw: RunningGateway;
const alice = basic('alice', 'alice-password');
const admin = `Bearer ${ADMIN_TOKEN}`;
const SECRET = 'op-b-Secret-9f2';

const adminCall = adminCaller(() => gw.base, admin);
const send = (to: string, extra: Record<string, unknown> = {}) =>
  request(gw.base, 'POST', '/secure/send', {
    auth: alice,
    json: { to, content: 'hello', ...extra },
  });
const balance = async (): Promise<string> =>
  (await request(gw.base, 'GET', '/secure/balance', { auth: alice })).body.data.balance as string;
const messageOf = (body: { data: string }) => {
  const id = /[0-9a-f-]{36}/.exec(body.data)![0];
  return {
    id,
    status: async () =>
      (await request(gw.base, 'GET', `/secure/messages/${id}`, { auth: alice })).body.data,
  };
};
const at = (sim: SmppSimulator, to: string) => sim.received.filter((r) => r.to === to).length;
/**
 * Waits until the gateway's routes take `to` by `route`, at `rate` when given (it reloads them
 * within its refresh period).
 */
const gatewayRoutes = (to: string, route: string, rate?: string) =>
  waitFor(
    async () => {
      const r = await request(gw.base, 'POST', '/secure/rate', {
        auth: alice,
        json: { to, content: 'hi' },
      });
      const data = r.body.data as { route?: string; rate?: string } | undefined;
      return data?.route === route && (rate === undefined || data.rate === rate) ? true : undefined;
    },
    10_000,
    `the gateway routes ${to} by ${route}`,
  );
/** Waits until the dispatcher's routes name `connector` in `count` routes (its own reload). */
const dispatcherRoutes = (connector: string, count: number) =>
  waitFor(
    async () =>
      (await metricValue(gw.base, 'smsgw_connector_routes', { connector })) === count
        ? true
        : undefined,
    10_000,
    `the dispatcher's routes name ${connector} ${count} times`,
  );

beforeAll(async () => {
  home = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: false });
  abroad = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    deliveryReceipts: false,
    rejectDestinations: /^4479/,
  });
  const homePort = (await home.start()).port;
  const abroadPort = (await abroad.start()).port;
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${homePort}`,
    // The suite follows each message's route and connectors, which customers see only when shown.
    SHOW_ROUTES_TO_CUSTOMERS: 'true',
  });
  expect(
    (
      await adminCall('POST', '/accounts', {
        username: 'alice',
        password: 'alice-password',
        balance: '100',
        rate: '0.1',
      })
    ).status,
  ).toBe(201);
  const created = await adminCall('POST', '/connectors', {
    name: 'op-b',
    url: `smpp://opb:${SECRET}@127.0.0.1:${abroadPort}?window=10`,
  });
  expect(created.status).toBe(201);
  expect(JSON.stringify(created.body)).not.toContain(SECRET);
  expect(created.body.data.url).toBe(`smpp://opb:***@127.0.0.1:${abroadPort}?window=10`);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await home?.stop();
  await abroad?.stop();
});

describe('the admin API for connectors and routes', () => {
  it('refuses what a dispatcher could not use, with a 4xx naming the field, changing nothing', async () => {
    const bad: [string, string, unknown, number][] = [
      ['POST', '/connectors', { name: 'a.b', url: 'smpp://x@h' }, 400],
      ['POST', '/connectors', { name: 'x', url: 'ftp://h' }, 400],
      ['POST', '/connectors', { name: 'x', url: 'smpp://u:p@h:2775?windw=3' }, 400],
      ['POST', '/connectors', { name: 'x', url: 'smpp://u:p@h', binds: 0 }, 400],
      ['POST', '/connectors', { name: 'op-b', url: 'smpp://u:p@h' }, 409],
      [
        'PUT',
        '/routes/r',
        { position: 1, kind: 'static', connectors: [{ connector: 'nope' }] },
        400,
      ],
      [
        'PUT',
        '/routes/r',
        {
          position: 1,
          kind: 'static',
          connectors: [{ connector: 'op-b' }, { connector: 'default' }],
        },
        400,
      ],
      [
        'PUT',
        '/routes/r',
        { position: 1, kind: 'weighted', connectors: [{ connector: 'op-b' }] },
        400,
      ],
      [
        'PUT',
        '/routes/r',
        {
          position: 1,
          kind: 'static',
          connectors: [{ connector: 'op-b' }],
          filters: { window: { time_zone: 'Mars/Olympus' } },
        },
        400,
      ],
      [
        'PUT',
        '/routes/r',
        {
          position: 1,
          kind: 'static',
          connectors: [{ connector: 'op-b' }],
          filters: { pattern: '(' },
        },
        400,
      ],
      ['PATCH', '/connectors/nope', { binds: 2 }, 404],
      ['POST', '/connectors/nope/stop', undefined, 404],
      ['DELETE', '/connectors/nope', undefined, 404],
    ];
    for (const [method, path, body, status] of bad) {
      const answer = await adminCall(method, path, body);
      expect({ method, path, status: answer.status }).toEqual({ method, path, status });
    }
    expect((await adminCall('GET', '/routes')).body.data).toEqual([]);
    const names = (await adminCall('GET', '/connectors')).body.data.map(
      (c: { name: string }) => c.name,
    );
    expect(names).toEqual(['default', 'op-b']);
    const anonymous = await request(gw.base, 'GET', '/admin/v1/connectors', { auth: alice });
    expect(anonymous.status).toBe(401);
  });

  it('shows each connector up, with its sessions, once the dispatcher reported it', async () => {
    const up = await waitFor(
      async () => {
        const list = (await adminCall('GET', '/connectors')).body.data as {
          name: string;
          state: string;
          sessions: number;
        }[];
        return list.every((c) => c.state === 'up') ? list : undefined;
      },
      20_000,
      'connectors up',
    );
    expect(up.map((c) => [c.name, c.state, c.sessions])).toEqual([
      ['default', 'up', 1],
      ['op-b', 'up', 1],
    ]);
    const table = await runSmsgw(gw.base, ['connectors', 'list']);
    expect(table.split('\n')[0]).toMatch(/^NAME\s+STATE\s+SESSIONS/);
    expect(table).toMatch(/op-b\s+up\s+1\/1/);
    expect(table).not.toContain(SECRET);
  });
});

describe('routing at acceptance', () => {
  it('sends everything to the default connector while there are no routes', async () => {
    const before = await balance();
    const { status } = messageOf((await send('33600000001')).body);
    await waitFor(async () => ((await status()).state === 'submitted' ? true : undefined), 15_000);
    expect(await status()).toMatchObject({ route: null, connector: 'default', cost: '0.1' });
    expect(Number(before) - Number(await balance())).toBeCloseTo(0.1, 6);
  });

  it('sends a prefix to its connector only, at the route price, and refuses what no route takes', async () => {
    const cli = await runSmsgw(gw.base, [
      'routes',
      'put',
      'uk',
      '--position',
      '10',
      '--kind',
      'static',
      '--connector',
      'op-b',
      '--prefix',
      '44',
      '--price',
      '0.25',
    ]);
    expect(JSON.parse(cli).data).toMatchObject({ name: 'uk', price: '0.250000' });
    // The gateway reads the routes within its refresh period.
    const rate = await waitFor(
      async () => {
        const r = await request(gw.base, 'POST', '/secure/rate', {
          auth: alice,
          json: { to: '447700900001', content: 'hi' },
        });
        return r.body.data?.route === 'uk' ? r.body.data : undefined;
      },
      10_000,
      'route loaded',
    );
    expect(rate).toMatchObject({ route: 'uk', rate: '0.25', cost: '0.25' });

    const before = await balance();
    const { status } = messageOf((await send('447700900001')).body);
    await waitFor(async () => ((await status()).state === 'submitted' ? true : undefined), 15_000);
    expect(await status()).toMatchObject({
      route: 'uk',
      connector: 'op-b',
      connectorTrail: ['op-b'],
    });
    expect(at(abroad, '447700900001')).toBe(1);
    expect(at(home, '447700900001')).toBe(0);
    expect(Number(before) - Number(await balance())).toBeCloseTo(0.25, 6);

    // Only the uk route exists now: France is not routed.
    const refusedBefore = await balance();
    const refused = await send('33600000002');
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatchObject({ code: 'NO_ROUTE', field: 'to' });
    expect(await balance()).toBe(refusedBefore);
    expect(at(home, '33600000002')).toBe(0);
  });

  it('charges a batch the sum of its recipients’ route prices, each sent through its route', async () => {
    await adminCall('PUT', '/routes/rest', {
      position: 100,
      kind: 'static',
      connectors: [{ connector: 'default' }],
    });
    await waitFor(async () => {
      const r = await request(gw.base, 'POST', '/secure/rate', {
        auth: alice,
        json: { to: '33600000003', content: 'hi' },
      });
      return r.body.data?.route === 'rest' ? true : undefined;
    }, 10_000);
    const before = await balance();
    const to = ['447700900010', '447700900011', '33600000010', '33600000011', '33600000012'];
    const batch = await request(gw.base, 'POST', '/secure/sendbatch', {
      auth: alice,
      json: { messages: [{ to, content: 'batch' }] },
    });
    expect(batch.status).toBe(200);
    // 2 × 0.25 (uk) + 3 × 0.1 (the account's rate).
    expect(Number(before) - Number(await balance())).toBeCloseTo(0.8, 6);
    await waitFor(
      () => (to.every((n) => at(home, n) + at(abroad, n) === 1) ? true : undefined),
      20_000,
      'batch sent',
    );
    expect(to.map((n) => [n, at(abroad, n), at(home, n)])).toEqual([
      ['447700900010', 1, 0],
      ['447700900011', 1, 0],
      ['33600000010', 0, 1],
      ['33600000011', 0, 1],
      ['33600000012', 0, 1],
    ]);
  });

  it('passes a message refused with a reroute_on status to the next connector, charged once', async () => {
    await adminCall('PUT', '/routes/uk', {
      position: 10,
      kind: 'failover',
      connectors: [{ connector: 'op-b' }, { connector: 'default' }],
      filters: { prefixes: ['44'] },
      reroute_on: ['ESME_RINVDSTADR'],
      price: '0.3',
    });
    // Both take the new uk: the gateway prices by it, and uk and rest name default at the
    // dispatcher, which reads reroute_on with it.
    await gatewayRoutes('447900000001', 'uk', '0.3');
    await dispatcherRoutes('default', 2);
    const before = await balance();
    const { status } = messageOf((await send('447900000001')).body);
    await waitFor(async () => ((await status()).state === 'submitted' ? true : undefined), 20_000);
    expect(await status()).toMatchObject({
      route: 'uk',
      connector: 'default',
      connectorTrail: ['op-b', 'default'],
    });
    expect(at(home, '447900000001')).toBe(1);
    expect(Number(before) - Number(await balance())).toBeCloseTo(0.3, 6);
  });

  it('holds a stopped connector’s traffic, or passes a failover route’s on, and resumes on start', async () => {
    await adminCall('PUT', '/routes/ireland', {
      position: 20,
      kind: 'static',
      connectors: [{ connector: 'op-b' }],
      filters: { prefixes: ['353'] },
    });
    const stopped = await adminCall('POST', '/connectors/op-b/stop');
    expect(stopped.body.data).toMatchObject({
      name: 'op-b',
      desiredState: 'stopped',
      state: 'stopped',
    });
    await waitFor(
      async () => {
        const c = (await adminCall('GET', '/connectors/op-b')).body.data;
        return c.sessions === 0 ? true : undefined;
      },
      15_000,
      'op-b unbound',
    );
    await gatewayRoutes('353870000001', 'ireland');
    await dispatcherRoutes('op-b', 2);

    const failover = messageOf((await send('447700900020')).body);
    const held = messageOf((await send('353870000001')).body);
    await waitFor(
      async () => ((await failover.status()).state === 'submitted' ? true : undefined),
      20_000,
    );
    expect(await failover.status()).toMatchObject({
      connector: 'default',
      connectorTrail: ['op-b', 'default'],
    });
    expect(at(home, '447700900020')).toBe(1);
    expect((await held.status()).state).toBe('queued');
    expect(at(abroad, '353870000001') + at(home, '353870000001')).toBe(0);

    await runSmsgw(gw.base, ['connectors', 'start', 'op-b']);
    await waitFor(
      async () => ((await held.status()).state === 'submitted' ? true : undefined),
      20_000,
      'held sent',
    );
    expect(await held.status()).toMatchObject({ connector: 'op-b' });
    expect(at(abroad, '353870000001')).toBe(1);
  });

  it('will not delete a connector a route uses or a message waits for, and deletes one unused', async () => {
    expect((await adminCall('DELETE', '/connectors/op-b')).status).toBe(409);
    // A stopped connector holding a message: its route goes, the message still waits for it.
    await adminCall('POST', '/connectors', { name: 'parked', url: 'smpp://x:y@127.0.0.1:1' });
    await adminCall('POST', '/connectors/parked/stop');
    await adminCall('PUT', '/routes/finland', {
      position: 30,
      kind: 'static',
      connectors: [{ connector: 'parked' }],
      filters: { prefixes: ['358'] },
    });
    await gatewayRoutes('358400000001', 'finland');
    const held = messageOf((await send('358400000001')).body);
    expect((await held.status()).state).toBe('queued');
    await adminCall('DELETE', '/routes/finland');
    const refused = await adminCall('DELETE', '/connectors/parked');
    expect(refused.status).toBe(409);
    expect(refused.body.detail.message).toMatch(/1 messages still wait/);
    expect(
      (await adminCall('POST', '/connectors', { name: 'spare', url: 'smpp://x:y@127.0.0.1:1' }))
        .status,
    ).toBe(201);
    expect((await adminCall('DELETE', '/connectors/spare')).body).toEqual({
      data: { name: 'spare', deleted: true },
    });
  });
});
