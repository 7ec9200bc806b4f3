import { FINAL_STATES, toMillionths } from '@smsgw/contracts';
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { adminCaller, basic, request, type Reply } from '../support/http';

/**
 * What messages cost us and earn (docs/billing.md § Costs and margins), black-box against embedded
 * mode and two simulators: each connector's supplier prices as a price list, recorded when its SMSC
 * accepts a message; a failover costs what the connector that took it charges and is charged once;
 * the CDRs and the statistics (by account, customer group, country and connector) show revenue,
 * cost and margin that match the messages exactly.
 */

let home: SmppSimulator;
let abroad: SmppSimulator;
let gw: RunningGateway;
const admin = `Bearer ${ADMIN_TOKEN}`;
const call = adminCaller(() => gw.base, admin);
type User = 'eve' | 'fay';
const auth = (user: User) => basic(user, `${user}-password`);
/** Each message sent, by id: its account. */
const sent = new Map<string, User>();

async function importCsv(list: string, csv: string): Promise<void> {
  expect((await call('POST', '/price-lists', { name: list })).status).toBe(201);
  const reply = await request(gw.base, 'POST', `/admin/v1/price-lists/${list}/versions`, {
    auth: admin,
    body: csv,
    headers: { 'content-type': 'text/csv' },
  });
  expect(reply.status).toBe(201);
}

async function send(user: User, to: string, content = 'hi'): Promise<string> {
  const reply = await request(gw.base, 'POST', '/secure/send', {
    auth: auth(user),
    json: { to, content },
  });
  expect(reply.status).toBe(200);
  const id = /[0-9a-f-]{36}/.exec(String(reply.body.data))![0];
  sent.set(id, user);
  return id;
}

interface Cdr {
  id: string;
  account: string;
  destination: string;
  country_code: string;
  parts: number;
  connector: string | null;
  charged: string;
  refunded: string;
  price_version: string | null;
  cost: string | null;
  cost_version: string | null;
  margin: string | null;
  state: string;
}

let since: string;
const cdrs = async (): Promise<Map<string, Cdr>> => {
  const until = new Date(Date.now() + 60_000).toISOString();
  const reply = await call(
    'GET',
    `/cdrs?${new URLSearchParams({ since, until, format: 'ndjson' }).toString()}`,
  );
  expect(reply.status).toBe(200);
  const rows = reply.text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Cdr);
  return new Map(rows.map((r) => [r.id, r]));
};

/** The CDRs once every message sent has one (its final state). */
const allCdrs = (): Promise<Map<string, Cdr>> =>
  waitFor(
    async () => {
      const rows = await cdrs();
      return [...sent.keys()].every((id) => rows.has(id)) ? rows : undefined;
    },
    30_000,
    'a CDR of every message',
    250,
  );

/** The story's event of the SMSC's acceptance: what the message cost, and by which version. */
async function costInStory(id: string): Promise<{ supplierCost: string | null } | undefined> {
  const story = await call('GET', `/messages/${id}`);
  const events = story.body.data.events as { event: string; detail: Record<string, unknown> }[];
  const accepted = events.find((e) => e.event === 'submitted' && e.detail['status'] === 'ESME_ROK');
  return accepted?.detail as { supplierCost: string | null } | undefined;
}

const versionOf = async (list: string): Promise<string> =>
  String(
    (
      (await call('GET', `/price-lists/${list}`)).body.data.versions as {
        id: string;
        status: string;
      }[]
    ).find((v) => v.status === 'current')!.id,
  );

beforeAll(async () => {
  home = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: true });
  // Refuses UK mobiles from 4479 as a destination it cannot reach: the route fails them over.
  abroad = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    deliveryReceipts: true,
    rejectDestinations: /^4479/,
  });
  const homePort = (await home.start()).port;
  const abroadPort = (await abroad.start()).port;
  since = new Date(Date.now() - 60_000).toISOString();
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${homePort}`,
    STATS_ROLLUP_SECONDS: '1',
    STATS_LAG_SECONDS: '2',
  });
  expect(
    (
      await call('POST', '/connectors', {
        name: 'op-b',
        url: `smpp://b:pw@127.0.0.1:${abroadPort}`,
      })
    ).status,
  ).toBe(201);
  await importCsv('retail', 'prefix,price\n44,0.05\n41,0.08\n*,0.1\n');
  await importCsv('wholesale', 'prefix,price\n44,0.03\n*,0.06\n');
  // The suppliers' prices: home has none for +1, so what a message there costs is not known.
  await importCsv('cost-home', 'prefix,price\n44,0.02\n41,0.03\n');
  await importCsv('cost-b', 'prefix,price\n44,0.01\n*,0.04\n');
  expect((await call('PUT', '/groups/retail', { price_list: 'retail' })).status).toBe(200);
  expect((await call('PUT', '/groups/wholesale', { price_list: 'wholesale' })).status).toBe(200);
  for (const [user, group] of [
    ['eve', 'retail'],
    ['fay', 'wholesale'],
  ] as const) {
    expect(
      (
        await call('POST', '/accounts', {
          username: user,
          password: `${user}-password`,
          balance: '100',
          rate: '0.5',
        })
      ).status,
    ).toBe(201);
    expect((await call('PUT', `/accounts/${user}/pricing`, { group })).status).toBe(200);
  }
  expect((await call('PUT', '/connector-costs/default', { price_list: 'cost-home' })).status).toBe(
    200,
  );
  expect((await call('PUT', '/connector-costs/op-b', { price_list: 'cost-b' })).status).toBe(200);
  expect(
    (
      await call('PUT', '/routes/uk', {
        position: 10,
        kind: 'failover',
        connectors: [{ connector: 'op-b' }, { connector: 'default' }],
        filters: { prefixes: ['44'] },
        reroute_on: ['ESME_RINVDSTADR'],
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await call('PUT', '/routes/rest', {
        position: 100,
        kind: 'static',
        connectors: [{ connector: 'default' }],
      })
    ).status,
  ).toBe(200);
  // The gateway prices by the groups' lists, and the dispatcher costs by the connectors' lists,
  // each once its book has reloaded: a probe through each costs its list's price.
  await waitFor(
    async () => {
      const rate = await request(gw.base, 'POST', '/secure/rate', {
        auth: auth('eve'),
        json: { to: '41791234567', content: 'x' },
      });
      return rate.status === 200 && Number(rate.body.data.rate) === 0.08 ? true : undefined;
    },
    20_000,
    "eve priced by her group's list",
  );
  for (const [to, cost] of [
    ['41790000000', '0.030000'],
    ['447700000000', '0.010000'],
  ] as const) {
    await waitFor(
      async () => {
        const id = await send('eve', to);
        const detail = await waitFor(() => costInStory(id), 20_000, 'the probe accepted', 100);
        return detail.supplierCost === cost ? true : undefined;
      },
      30_000,
      `the dispatcher costing ${to} at ${cost}`,
      500,
    );
  }
}, 180_000);

afterAll(async () => {
  await gw?.stop();
  await home?.stop();
  await abroad?.stop();
});

describe('costs and margins', () => {
  const ids: Record<string, string> = {};

  it("records each message's cost through the connector that took it, a failover charged once", async () => {
    const balance = async (user: User) => (await call('GET', `/accounts/${user}`)).body.balance;
    const before = await balance('eve');
    ids['ukB'] = await send('eve', '447700000001'); // op-b takes it: 0.01
    ids['ukFailover'] = await send('eve', '447900000001'); // op-b refuses, default takes it: 0.02
    ids['swiss'] = await send('eve', '41791234567', 'x'.repeat(200)); // two parts at home: 2 × 0.03
    ids['us'] = await send('eve', '12025550123'); // home lists no price for +1: cost not known
    ids['fayUk'] = await send('fay', '447700000002');
    ids['fayDe'] = await send('fay', '4915112345678'); // home lists no price for +49 either
    const rows = await allCdrs();
    const row = (key: string) => rows.get(ids[key])!;

    expect(row('ukB')).toMatchObject({ connector: 'op-b', charged: '0.050000', cost: '0.010000' });
    expect(row('ukB').margin).toBe('0.040000');
    expect(row('ukFailover')).toMatchObject({
      connector: 'default',
      charged: '0.050000',
      cost: '0.020000',
      margin: '0.030000',
    });
    expect(row('swiss')).toMatchObject({ parts: 2, charged: '0.160000', cost: '0.060000' });
    expect(row('us')).toMatchObject({ charged: '0.100000', cost: null, margin: null });
    expect(row('fayUk')).toMatchObject({ charged: '0.030000', cost: '0.010000' });
    expect(row('fayDe')).toMatchObject({ charged: '0.060000', cost: null });
    // Each names the versions that priced and costed it.
    expect(row('ukB').price_version).toBe(await versionOf('retail'));
    expect(row('ukB').cost_version).toBe(await versionOf('cost-b'));
    expect(row('ukFailover').cost_version).toBe(await versionOf('cost-home'));
    expect(row('fayUk').price_version).toBe(await versionOf('wholesale'));
    // The failover was charged once, at the list's price: the four messages took 0.36.
    expect(toMillionths(before) - toMillionths(await balance('eve'))).toBe(360_000n);
    expect(home.received.filter((r) => r.to === '447900000001')).toHaveLength(1);
  });

  it('shows in the statistics the revenue, cost and margin the messages add up to', async () => {
    const rows = [...(await allCdrs()).values()].filter((r) => sent.has(r.id));
    const earned = (r: Cdr) =>
      toMillionths(r.charged) - toMillionths(r.refunded) - toMillionths(r.cost ?? '0');
    const sum = (pick: (r: Cdr) => string | null, of: Cdr[]) =>
      of.reduce((n, r) => n + toMillionths(pick(r) ?? '0'), 0n);
    const expectedBy = (key: (r: Cdr) => string) => {
      const by: Record<string, { charged: bigint; cost: bigint; margin: bigint }> = {};
      for (const r of rows) {
        const k = key(r);
        const e = (by[k] ??= { charged: 0n, cost: 0n, margin: 0n });
        e.charged += toMillionths(r.charged);
        e.cost += toMillionths(r.cost ?? '0');
        e.margin += earned(r);
      }
      return by;
    };
    const statsBy = async (group: string, keyOf: (r: Record<string, unknown>) => string) => {
      // Counted once every message has ended and the rollup has passed it.
      const reply: Reply = await waitFor(
        async () => {
          const r = await call('GET', `/stats?group=${group}`);
          const ended = (r.body.data.rows as { state: string; messages: number }[])
            .filter((x) => (FINAL_STATES as string[]).includes(x.state))
            .reduce((n, x) => n + x.messages, 0);
          return ended === rows.length ? r : undefined;
        },
        30_000,
        `the statistics by ${group} counting every message`,
        250,
      );
      const by: Record<string, { charged: bigint; cost: bigint; margin: bigint }> = {};
      for (const r of reply.body.data.rows as Record<string, string>[]) {
        const e = (by[keyOf(r)] ??= { charged: 0n, cost: 0n, margin: 0n });
        e.charged += toMillionths(r['charged']);
        e.cost += toMillionths(r['cost']);
        e.margin += toMillionths(r['margin']);
      }
      return { by, totals: reply.body.data.totals as Record<string, string> };
    };
    const groupOf: Record<string, string> = { eve: 'retail', fay: 'wholesale' };

    const byAccount = await statsBy('account', (r) => String(r['account']));
    expect(byAccount.by).toEqual(expectedBy((r) => r.account));
    expect(toMillionths(byAccount.totals['margin'])).toBe(rows.reduce((n, r) => n + earned(r), 0n));
    expect(toMillionths(byAccount.totals['cost'])).toBe(sum((r) => r.cost, rows));
    expect((await statsBy('customer_group', (r) => String(r['customer_group']))).by).toEqual(
      expectedBy((r) => groupOf[r.account]),
    );
    expect((await statsBy('connector', (r) => String(r['connector']))).by).toEqual(
      expectedBy((r) => String(r.connector)),
    );
    expect((await statsBy('country', (r) => String(r['country']))).by).toEqual(
      expectedBy((r) => r.country_code),
    );
  });

  it('keeps cost and margin from customers, and changes cost lists only with the credit scope', async () => {
    const own = await request(gw.base, 'GET', '/secure/stats', { auth: auth('eve') });
    expect(own.status).toBe(200);
    expect(JSON.stringify(own.body)).not.toMatch(/"(cost|margin)"/);
    expect(own.body.data.totals.charged).toBeDefined();

    const listed = await call('GET', '/connector-costs');
    expect(listed.body.data).toEqual([
      expect.objectContaining({ connector: 'default', price_list: 'cost-home', currency: 'EUR' }),
      expect.objectContaining({ connector: 'op-b', price_list: 'cost-b' }),
    ]);
    for (const [body, status] of [
      [{ price_list: 'no-such-list' }, 400],
      [{ price_list: 42 }, 400],
      [{}, 400],
      [{ price_list: 'cost-b', extra: true }, 400],
    ] as const)
      expect((await call('PUT', '/connector-costs/op-b', body)).status).toBe(status);
    expect((await call('PUT', '/connector-costs/bad.name', { price_list: 'cost-b' })).status).toBe(
      400,
    );
    expect((await call('GET', '/connector-costs')).body).toEqual(listed.body);
    const customer = await request(gw.base, 'PUT', '/admin/v1/connector-costs/op-b', {
      auth: auth('eve'),
      json: { price_list: null },
    });
    expect(customer.status).toBe(401);
    expect((await call('GET', '/connector-costs')).body).toEqual(listed.body);
  });
});
