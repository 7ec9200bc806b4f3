/**
 * What an operator's route may be, seen from the admin API and from a customer: a route pattern
 * runs in linear time (RE2), so patterns that only a backtracking engine could run are refused; a
 * route chosen by tags, which customers pick freely, is kept to the accounts it names.
 */
import { compileRoutePattern } from '@smsgw/contracts';
import { waitFor } from '@smsgw/kit/testing';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';

const admin = { auth: `Bearer ${ADMIN_TOKEN}` };
let gw: RunningGateway;

async function account(username: string): Promise<string> {
  const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
    ...admin,
    json: { username, password: 'route-restrictions-pw', balance: '1000', rate: '1' },
  });
  expect(created.status).toBe(201);
  return basic(username, 'route-restrictions-pw');
}

function putRoute(name: string, position: number, filters: object, price: string) {
  return request(gw.base, 'PUT', `/admin/v1/routes/${name}`, {
    ...admin,
    json: { position, kind: 'static', connectors: [{ connector: 'default' }], filters, price },
  });
}

async function rateOf(auth: string, to: string, tags?: string[]): Promise<string | undefined> {
  const r = await request(gw.base, 'POST', '/secure/rate', {
    auth,
    json: { to, content: 'x', ...(tags ? { tags } : {}) },
  });
  return r.status === 200 ? (r.body.data.rate as string) : undefined;
}

beforeAll(async () => {
  gw = await startEmbedded({});
  expect((await putRoute('rest', 1000, {}, '0.07')).status).toBe(200);
}, 120_000);
afterAll(() => gw?.stop());

describe('route patterns', () => {
  it.each([
    ['a backreference', '(\\d)\\1{3}\\d+'],
    ['a lookahead', '(?=33)\\d+'],
    ['a negative lookbehind', '\\d+(?<!0)'],
    ['a repetition count beyond a destination', '\\d{1,1000}'],
    ['a pattern longer than 200 characters', '3'.repeat(201)],
  ])('refuses %s', async (_what, pattern) => {
    const put = await putRoute('evil', 5, { pattern }, '0.01');
    expect(put.status).toBe(400);
    expect(put.body.detail.code).toBe('INVALID_PARAMETER');
    const stored = await request(gw.base, 'GET', '/admin/v1/routes/evil', admin);
    expect(stored.status).toBe(404);
  });

  it('runs nested quantifiers in linear time, and routes by them', async () => {
    // A backtracking engine tries every split of the digits before failing: 2^40 of them here.
    const match = compileRoutePattern('(\\d+)+0');
    const started = performance.now();
    expect(match('1'.repeat(40))).toBe(false);
    expect(match(`${'1'.repeat(40)}0`)).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);

    expect((await putRoute('nested', 10, { pattern: '(\\d+)+0' }, '0.02')).status).toBe(200);
    const auth = await account('pattern-user');
    await waitFor(
      async () => ((await rateOf(auth, '41790000000')) === '0.02' ? true : undefined),
      20_000,
      'the pattern route loaded',
    );
    expect(await rateOf(auth, '111111111111111')).toBe('0.07');
  });
});

describe('routes chosen by tags', () => {
  it('refuses a tag route that does not say which accounts may use it', async () => {
    const put = await putRoute('cheap-open', 20, { tags: ['cheap'] }, '0.001');
    expect(put.status).toBe(400);
    expect(put.body.detail.code).toBe('INVALID_PARAMETER');
    expect(put.text).toContain('accounts');
  });

  it("keeps a tag route's price to the accounts it names", async () => {
    const vip = await account('tag-vip');
    const outsider = await account('tag-outsider');
    expect(
      (await putRoute('cheap', 21, { tags: ['cheap'], accounts: ['tag-vip'] }, '0.001')).status,
    ).toBe(200);
    await waitFor(
      async () => ((await rateOf(vip, '41790000001', ['cheap'])) === '0.001' ? true : undefined),
      20_000,
      'the tag route loaded',
    );
    expect(await rateOf(outsider, '41790000001', ['cheap'])).toBe('0.07');

    // What the outsider is charged for a message it tags so.
    const sent = await request(gw.base, 'POST', '/secure/send', {
      auth: outsider,
      json: { to: '41790000001', content: 'x', tags: ['cheap'] },
    });
    expect(sent.status).toBe(200);
    const balance = await request(gw.base, 'GET', '/secure/balance', { auth: outsider });
    expect(balance.body.data.balance).toBe('999.93');
  });

  it('opens a tag route to every account only when the operator says so', async () => {
    const anyone = await account('tag-anyone');
    expect(
      (await putRoute('promo', 22, { tags: ['promo'], any_account: true }, '0.003')).status,
    ).toBe(200);
    await waitFor(
      async () => ((await rateOf(anyone, '41790000002', ['promo'])) === '0.003' ? true : undefined),
      20_000,
      'the open tag route loaded',
    );
    const both = await putRoute(
      'promo-both',
      23,
      { tags: ['promo'], accounts: ['tag-vip'], any_account: true },
      '0.003',
    );
    expect(both.status).toBe(400);
  });
});
