import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayCallError } from '@smsgw/cli';
import { runSmsgw } from '../support/cli';
import { adminCaller, basic, request, type Reply } from '../support/http';

/**
 * Selling by destination (docs/billing.md), black-box against embedded mode and the simulator:
 * price lists imported as CSV (refused whole with the lines of its bad rows), customer groups
 * carrying them, an account's own list over its group's, the longest prefix and the default row,
 * a destination a list does not price refused uncharged, a version that takes effect later, and
 * a list changed while messages are accepted.
 */

let sim: SmppSimulator;
let gw: RunningGateway;
const admin = `Bearer ${ADMIN_TOKEN}`;
const call = adminCaller(() => gw.base, admin);
const auth = (user: string) => basic(user, `${user}-password`);

async function importCsv(list: string, csv: string, effectiveFrom?: string): Promise<Reply> {
  const query =
    effectiveFrom === undefined ? '' : `?effective_from=${encodeURIComponent(effectiveFrom)}`;
  return request(gw.base, 'POST', `/admin/v1/price-lists/${list}/versions${query}`, {
    auth: admin,
    body: csv,
    headers: { 'content-type': 'text/csv' },
  });
}

/** What /secure/rate says one part to `to` costs the account. */
async function rateOf(user: string, to: string): Promise<Reply> {
  return request(gw.base, 'POST', '/secure/rate', { auth: auth(user), json: { to, content: 'x' } });
}

/** Waits until the price books say `price` for the account and destination (they reload within a second). */
async function priced(user: string, to: string, price: string): Promise<void> {
  await waitFor(async () => {
    const reply = await rateOf(user, to);
    return reply.status === 200 && Number(reply.body.data.rate) === Number(price)
      ? true
      : undefined;
  }, 20_000);
}

async function send(user: string, to: string): Promise<Reply> {
  return request(gw.base, 'POST', '/secure/send', {
    auth: auth(user),
    json: { to, content: 'hi' },
  });
}

async function costOf(user: string, reply: Reply): Promise<string> {
  const id = /[0-9a-f-]{36}/.exec(String(reply.body.data))![0];
  const status = await request(gw.base, 'GET', `/secure/messages/${id}`, { auth: auth(user) });
  return status.body.data.cost as string;
}

/** What the message's story says charged it: its amount, and the list and version that priced it. */
async function chargeOf(
  reply: Reply,
): Promise<{ cost: string; priceList: string | null; priceVersion: string | null }> {
  const id = /[0-9a-f-]{36}/.exec(String(reply.body.data))![0];
  const story = await call('GET', `/messages/${id}`);
  const charged = (
    story.body.data.events as { event: string; detail: Record<string, unknown> }[]
  ).find((e) => e.event === 'charged')!;
  return charged.detail as { cost: string; priceList: string | null; priceVersion: string | null };
}

const balanceOf = async (user: string) =>
  String((await call('GET', `/accounts/${user}`)).body.balance);

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0 });
  const { port } = await sim.start();
  gw = await startEmbedded({ SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}` });
  for (const user of ['ann', 'ben', 'cat', 'dan'])
    expect(
      (
        await call('POST', '/accounts', {
          username: user,
          password: `${user}-password`,
          balance: '100',
          rate: '0.1',
        })
      ).status,
    ).toBe(201);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
});

describe('price lists', () => {
  it('refuses a file with bad rows whole, naming each line, and stores nothing', async () => {
    expect((await call('POST', '/price-lists', { name: 'retail', currency: 'EUR' })).status).toBe(
      201,
    );
    expect((await call('POST', '/price-lists', { name: 'retail' })).status).toBe(409);
    const bad = await importCsv(
      'retail',
      [
        'prefix,price,description',
        '41,0.05,ok',
        '4x1,0.05,letters',
        '44,-1,negative',
        '41,0.06,again',
        '49,0.1234567,too fine',
      ].join('\n'),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.detail.errors.map((e: { message: string }) => e.message)).toEqual([
      expect.stringMatching(/^line 3: prefix "4x1"/),
      expect.stringMatching(/^line 4: price "-1"/),
      expect.stringMatching(/^line 5: prefix 41 again \(line 2 has it\)/),
      expect.stringMatching(/^line 6: price "0.1234567"/),
    ]);
    for (const csv of [
      'price,prefix,colour\n1,41,red',
      '',
      'prefix,price\n',
      'prefix,price,currency\n41,0.05,USD',
    ])
      expect((await importCsv('retail', csv)).status).toBe(400);
    expect((await call('GET', '/price-lists/retail')).body.data.versions).toEqual([]);
    // Only the credit scope changes prices.
    const reader = await call('POST', '/tokens', { name: 'reader', scopes: ['accounts:read'] });
    const refused = await request(gw.base, 'POST', '/admin/v1/price-lists/retail/versions', {
      auth: `Bearer ${reader.body.data.token as string}`,
      body: 'prefix,price\n41,0.05',
      headers: { 'content-type': 'text/csv' },
    });
    expect(refused.status).toBe(403);
  });

  it("prices by the longest prefix, the default row, the group and the account's own list", async () => {
    const retail = await importCsv(
      'retail',
      [
        'prefix,price,description',
        '*,0.09,everywhere else',
        '41,0.05,Switzerland',
        '4179,0.04,Swiss mobile',
        '+44,0.06,UK',
      ].join('\n'),
    );
    expect(retail.status).toBe(201);
    expect(retail.body.data).toMatchObject({ rows: 4, status: 'current' });
    expect((await call('POST', '/price-lists', { name: 'wholesale' })).status).toBe(201);
    expect((await importCsv('wholesale', 'prefix,price\n41,0.02\n49,0.03')).status).toBe(201);
    expect((await call('POST', '/price-lists', { name: 'vip' })).status).toBe(201);
    expect((await importCsv('vip', 'prefix,price\n41,0.01')).status).toBe(201);
    expect((await call('PUT', '/groups/retail', { price_list: 'retail' })).status).toBe(200);
    expect((await call('PUT', '/groups/wholesale', { price_list: 'wholesale' })).status).toBe(200);
    expect((await call('PUT', '/groups/nosuch', { price_list: 'nosuch' })).status).toBe(400);
    for (const [user, body] of [
      ['ann', { group: 'retail' }],
      ['ben', { group: 'wholesale' }],
      ['cat', { group: 'wholesale', price_list: 'vip' }],
    ] as const)
      expect((await call('PUT', `/accounts/${user}/pricing`, body)).status).toBe(200);
    expect((await call('GET', '/accounts/cat/pricing')).body.data).toEqual({
      username: 'cat',
      group: 'wholesale',
      price_list: 'vip',
      priced_by: 'vip',
      credit_limit: '0',
    });
    expect((await call('PUT', '/accounts/nobody/pricing', { group: 'retail' })).status).toBe(404);
    expect((await call('PUT', '/accounts/ann/pricing', {})).status).toBe(400);

    await priced('cat', '41790000001', '0.01');
    const cases: [string, string, string][] = [
      ['ann', '41790000001', '0.04'], // the longer prefix
      ['ann', '41310000001', '0.05'],
      ['ann', '447700900001', '0.06'],
      ['ann', '33600000001', '0.09'], // the default row
      ['ben', '41790000001', '0.02'],
      ['ben', '49150000001', '0.03'],
      ['cat', '41790000001', '0.01'], // its own list, over its group's
      ['dan', '41790000001', '0.1'], // no list: its rate
    ];
    // Jasmin's HTTP /rate and its REST /secure/rate answer the listed price too.
    const jasmin = await request(
      gw.base,
      'GET',
      '/rate?username=ann&password=ann-password&to=41790000001&content=x',
    );
    expect(JSON.parse(jasmin.text)).toEqual({ unit_rate: 0.04, submit_sm_count: 1 });
    const rest = await request(gw.base, 'GET', '/secure/rate?to=41790000001', {
      auth: auth('ann'),
    });
    expect(rest.body.data).toEqual({ submit_sm_count: 1, unit_rate: 0.04 });
    for (const [user, to, price] of cases) {
      const rate = await rateOf(user, to);
      expect({ user, to, status: rate.status }).toEqual({ user, to, status: 200 });
      const sent = await send(user, to);
      expect(sent.status).toBe(200);
      expect({ user, to, cost: Number(await costOf(user, sent)) }).toEqual({
        user,
        to,
        cost: Number(price),
      });
      // The message keeps the list that priced it: an account's own, its group's, or none.
      const listOf = { ann: 'retail', ben: 'wholesale', cat: 'vip', dan: null }[user];
      expect((await chargeOf(sent)).priceList).toBe(listOf);
    }
  });

  it("prices a batch's recipients each by its own prefix, its messages keeping the version", async () => {
    const since = new Date(Date.now() - 60_000).toISOString();
    const batch = await request(gw.base, 'POST', '/secure/sendbatch', {
      auth: auth('ann'),
      json: { messages: [{ to: ['41790000009', '33600000009'], content: 'batch' }] },
    });
    expect(batch.status).toBe(200);
    const batchId = batch.body.data.batchId as string;
    const made = await waitFor(async () => {
      const page = await request(
        gw.base,
        'GET',
        `/secure/messages?batch=${batchId}&since=${encodeURIComponent(since)}`,
        { auth: auth('ann') },
      );
      const messages = page.body.data?.messages as { id: string; to: string }[] | undefined;
      return messages?.length === 2 ? messages : undefined;
    }, 20_000);
    const current = (await call('GET', '/price-lists/retail')).body.data.versions[0].id as string;
    for (const m of made) {
      const story = await call('GET', `/messages/${m.id}`);
      const routed = (
        story.body.data.events as { event: string; detail: Record<string, unknown> }[]
      ).find((e) => e.event === 'routed')!;
      expect({ to: m.to, price: routed.detail['pricePerPart'] }).toEqual({
        to: m.to,
        price: m.to.startsWith('4179') ? '0.04' : '0.09',
      });
      const status = await request(gw.base, 'GET', `/secure/messages/${m.id}`, {
        auth: auth('ann'),
      });
      expect(status.status).toBe(200);
    }
    // The version is kept on every message the batch made, as the entry was priced.
    for (const m of made) {
      const story = await call('GET', `/messages/${m.id}`);
      const charged = (
        story.body.data.events as { event: string; detail: Record<string, unknown> }[]
      ).find((e) => e.event === 'charged')!;
      expect(charged.detail).toMatchObject({
        batchWide: true,
        priceList: 'retail',
        priceVersion: current,
      });
    }
  });

  it('refuses, uncharged, a destination the list does not price, one message or a batch', async () => {
    const before = await balanceOf('ben');
    const one = await send('ben', '33600000001');
    expect(one.status).toBe(400);
    expect(one.text).toContain('No price is listed for messages to 33600000001');
    // The account's own list replaces its group's: 49 is the group's, not cat's.
    expect((await send('cat', '49150000001')).status).toBe(400);
    const batch = await request(gw.base, 'POST', '/secure/sendbatch', {
      auth: auth('ben'),
      json: { messages: [{ to: ['41790000001', '33600000001', '33600000002'], content: 'hi' }] },
    });
    expect(batch.status).toBe(400);
    expect(batch.body.detail.errors).toHaveLength(2);
    expect(await balanceOf('ben')).toBe(before);
    expect((await rateOf('ben', '33600000001')).status).toBe(400);
  });

  it('exports a version as CSV, and keeps the one before when a new one is loaded ahead of its start', async () => {
    const csv = await request(gw.base, 'GET', '/admin/v1/price-lists/retail/csv', { auth: admin });
    expect(csv.status).toBe(200);
    expect(csv.text.trim().split('\n')).toEqual([
      'prefix,price,currency,description',
      '*,0.090000,EUR,everywhere else',
      '41,0.050000,EUR,Switzerland',
      '4179,0.040000,EUR,Swiss mobile',
      '44,0.060000,EUR,UK',
    ]);
    const start = new Date(Date.now() + 4000).toISOString();
    const ahead = await importCsv('retail', 'prefix,price\n*,0.08\n41,0.03', start);
    expect(ahead.status).toBe(201);
    expect(ahead.body.data.status).toBe('future');
    expect((await importCsv('retail', 'prefix,price\n41,0.03', start)).status).toBe(409);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString();
    expect((await importCsv('retail', 'prefix,price\n41,0.01', yesterday)).status).toBe(400);
    // Until it starts, the version in effect prices; then the new one, with no reload needed.
    expect(Number((await rateOf('ann', '41310000001')).body.data.rate)).toBe(0.05);
    await priced('ann', '41310000001', '0.03');
    await priced('ann', '33600000001', '0.08');
    const versions = (await call('GET', '/price-lists/retail')).body.data.versions;
    expect(versions.map((v: { status: string }) => v.status)).toEqual(['current', 'past']);
  });

  it('charges each message accepted while a list changes under exactly one version', async () => {
    await priced('ben', '41790000001', '0.02');
    const sends = Array.from({ length: 30 }, (_, i) =>
      send('ben', `4179000${String(i).padStart(4, '0')}`),
    );
    const swapped = importCsv('wholesale', 'prefix,price\n41,0.025\n49,0.03');
    const replies = await Promise.all(sends);
    expect((await swapped).status).toBe(201);
    const versions = (await call('GET', '/price-lists/wholesale')).body.data.versions as {
      id: string;
    }[];
    const [newer, older] = versions.map((v) => v.id);
    // Each message is charged under exactly one version, at that version's price.
    for (const reply of replies) {
      const charge = await chargeOf(reply);
      const expected = charge.priceVersion === newer ? 0.025 : 0.02;
      expect([newer, older]).toContain(charge.priceVersion);
      expect(Number(charge.cost)).toBe(expected);
    }
    await priced('ben', '41790000001', '0.025');
  });

  it('loads a list of 100,000 prefixes whole', async () => {
    expect((await call('POST', '/price-lists', { name: 'big' })).status).toBe(201);
    const lines = ['prefix,price'];
    for (let i = 0; i < 100_000; i++)
      lines.push(`${2_000_000 + i},${(0.01 + (i % 100) / 10_000).toFixed(4)}`);
    const big = await importCsv('big', lines.join('\n'));
    expect(big.status).toBe(201);
    expect(big.body.data.rows).toBe(100_000);
    expect((await call('PUT', '/accounts/dan/pricing', { price_list: 'big' })).status).toBe(200);
    // 2099999 is row 99,999: 0.01 + 99/10,000.
    await priced('dan', '20999991234', '0.0199');
    expect((await send('dan', '30000001234')).status).toBe(400);
    expect((await call('PUT', '/accounts/dan/pricing', { price_list: null })).status).toBe(200);
    await priced('dan', '30000001234', '0.1');
  });

  it('lets a postpaid account go below zero down to its credit limit, and refuses it past that', async () => {
    expect(
      (
        await call('POST', '/accounts', {
          username: 'eve',
          password: 'eve-password',
          balance: '0',
          rate: '0.1',
        })
      ).status,
    ).toBe(201);
    expect((await send('eve', '41790000001')).status).toBe(402);
    const limited = await call('PUT', '/accounts/eve/pricing', { credit_limit: '0.25' });
    expect(limited.status).toBe(200);
    expect(limited.body.data.credit_limit).toBe('0.25');
    expect((await send('eve', '41790000001')).status).toBe(200);
    expect((await send('eve', '41790000002')).status).toBe(200);
    const past = await send('eve', '41790000003');
    expect(past.status).toBe(402);
    expect(past.body.detail.code).toBe('INSUFFICIENT_CREDIT');
    const balance = await request(gw.base, 'GET', '/secure/balance', { auth: auth('eve') });
    expect(balance.body.data.balance).toBe('-0.2');
    // A batch that would pass the limit is refused whole; one that stays within it is taken.
    const batch = (n: number) =>
      request(gw.base, 'POST', '/secure/sendbatch', {
        auth: auth('eve'),
        json: {
          messages: [{ to: Array.from({ length: n }, (_, i) => `4179100000${i}`), content: 'x' }],
        },
      });
    expect((await batch(2)).status).toBe(402);
    // The limit cannot be lowered past the balance; a top-up brings it back above zero.
    expect((await call('PUT', '/accounts/eve/pricing', { credit_limit: '0.1' })).status).toBe(400);
    expect((await call('POST', '/accounts/eve/credit', { amount: '1' })).status).toBe(200);
    expect(await balanceOf('eve')).toBe('0.8');
    expect((await call('PUT', '/accounts/eve/pricing', { credit_limit: '0' })).status).toBe(200);
    expect((await batch(2)).status).toBe(200);
    expect(await balanceOf('eve')).toBe('0.6');
  });

  it('imports, exports and assigns from the CLI, a bad file refused with its lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'smsgw-prices-'));
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'prefix,price\n41,0.05\n41,0.06\nabc,1\n');
    const refused = await runSmsgw(gw.base, ['prices', 'import', bad, '--list', 'cli']).catch(
      (err: unknown) => err,
    );
    // No such list yet: made first, then the same file is refused for its rows.
    expect(refused).toBeInstanceOf(GatewayCallError);
    await runSmsgw(gw.base, ['prices', 'create', 'cli', '--currency', 'CHF']);
    const rows = await runSmsgw(gw.base, ['prices', 'import', bad, '--list', 'cli']).catch(
      (err: unknown) => err as GatewayCallError,
    );
    expect(rows).toBeInstanceOf(GatewayCallError);
    expect((rows as GatewayCallError).errors).toEqual([
      'line 3: prefix 41 again (line 2 has it)',
      'line 4: prefix "abc": expected 1 to 15 digits, or * for the default row',
    ]);
    const good = join(dir, 'good.csv');
    writeFileSync(good, 'prefix,price,currency\n*,0.2,CHF\n423,0.07,CHF\n');
    expect(
      JSON.parse(await runSmsgw(gw.base, ['prices', 'import', good, '--list', 'cli'])),
    ).toMatchObject({
      data: { rows: 2, status: 'current' },
    });
    expect((await runSmsgw(gw.base, ['prices', 'export', '--list', 'cli'])).split('\n')).toEqual([
      'prefix,price,currency,description',
      '*,0.200000,CHF,',
      '423,0.070000,CHF,',
    ]);
    await runSmsgw(gw.base, ['groups', 'put', 'cli-group', '--price-list', 'cli']);
    const pricing = JSON.parse(
      await runSmsgw(gw.base, [
        'accounts',
        'pricing',
        'dan',
        '--group',
        'cli-group',
        '--credit-limit',
        '5',
      ]),
    );
    expect(pricing.data).toMatchObject({ group: 'cli-group', priced_by: 'cli', credit_limit: '5' });
    await priced('dan', '42312345678', '0.07');
    expect(
      JSON.parse(await runSmsgw(gw.base, ['accounts', 'pricing', 'dan', '--group', 'none'])).data,
    ).toMatchObject({ group: null, priced_by: null });
  });

  it('takes the accounts of a group by the routes that serve it, and follows a move to another', async () => {
    for (const user of ['gil', 'hal'] as const)
      expect(
        (
          await call('POST', '/accounts', {
            username: user,
            password: `${user}-password`,
            balance: '10',
            rate: '0.1',
          })
        ).status,
      ).toBe(201);
    expect((await call('PUT', '/groups/gold', { price_list: null })).status).toBe(200);
    expect((await call('PUT', '/accounts/gil/pricing', { group: 'gold' })).status).toBe(200);
    const route = (name: string, position: number, filters: Record<string, unknown>) =>
      call('PUT', `/routes/${name}`, {
        position,
        kind: 'static',
        connectors: [{ connector: 'default' }],
        filters,
      });
    expect((await route('fr-gold', 5, { prefixes: ['33'], groups: ['gold'] })).status).toBe(200);
    expect((await route('fr', 10, { prefixes: ['33'] })).status).toBe(200);
    expect((await route('rest', 100, {})).status).toBe(200);
    // A group filter is a list of names, and tags may be kept for groups as for accounts.
    expect((await route('bad', 1, { groups: [] })).status).toBe(400);
    expect((await route('bad', 1, { groups: ['gold'], tags: ['vip'] })).status).toBe(200);
    expect((await call('DELETE', '/routes/bad')).status).toBe(200);

    const matched = async (account: string) =>
      (await call('GET', `/routes/match?to=33612345678&account=${account}`)).body.data.route?.name;
    expect(await matched('gil')).toBe('fr-gold');
    expect(await matched('hal')).toBe('fr');
    /** The route of a message sent now, once the gateway has the routes and the groups. */
    const routeOf = async (user: 'gil' | 'hal', expected: string) =>
      waitFor(
        async () => {
          const reply = await request(gw.base, 'POST', '/secure/send', {
            auth: auth(user),
            json: { to: '33612345678', content: 'hi' },
          });
          expect(reply.status).toBe(200);
          const id = /[0-9a-f-]{36}/.exec(String(reply.body.data))![0];
          const taken = (await call('GET', `/messages/${id}`)).body.data.message.route;
          return taken === expected ? taken : undefined;
        },
        20_000,
        `${user}'s messages taking ${expected}`,
        250,
      );
    expect(await routeOf('gil', 'fr-gold')).toBe('fr-gold');
    expect(await routeOf('hal', 'fr')).toBe('fr');
    // The group's sender rules are its accounts' when they have none of their own.
    for (const bad of [{ throughput: -1 }, { senders: { senders: ['no spaces allowed here'] } }])
      expect((await call('PUT', '/groups/gold', bad)).status).toBe(400);
    expect(
      (
        await call('PUT', '/groups/gold', {
          throughput: 20,
          senders: { senders: ['GoldBrand'], policy: 'refuse' },
        })
      ).body.data,
    ).toMatchObject({ throughput: 20, senders: { policy: 'refuse', senders: ['GoldBrand'] } });
    expect((await call('GET', '/accounts/gil/senders')).body).toMatchObject({
      configured: true,
      senders: ['GoldBrand'],
      from_group: 'gold',
    });
    const from = (sender: string) =>
      waitFor(
        async () => {
          const reply = await request(gw.base, 'POST', '/secure/send', {
            auth: auth('gil'),
            json: { to: '33612345678', content: 'hi', from: sender },
          });
          return reply.status === (sender === 'GoldBrand' ? 200 : 403) ? reply : undefined;
        },
        10_000,
        `the group's sender rules for ${sender}`,
        250,
      );
    expect((await from('Other')).body.detail.code).toBe('SENDER_NOT_ALLOWED');
    expect((await from('GoldBrand')).status).toBe(200);
    expect((await call('PUT', '/accounts/gil/pricing', { group: null })).status).toBe(200);
    expect(await routeOf('gil', 'fr')).toBe('fr');
    expect(await matched('gil')).toBe('fr');
  });
});
