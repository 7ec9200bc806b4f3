/**
 * Prices are credit, black-box against embedded mode: an admin token without the `credit` scope
 * cannot give an account a rate (a rate of 0 sends without limit at no charge), nor give a route a
 * price (a route's price replaces the rate of the accounts it takes), nor take one away or change
 * it by putting the route again, through the API or the CLI. Each refusal is a 403 naming the scope
 * and changes nothing.
 */
import { runSmsgw } from '../support/cli';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request, type Reply } from '../support/http';

const admin = `Bearer ${ADMIN_TOKEN}`;
let gw: RunningGateway;

const call = (method: string, path: string, auth: string, json?: unknown): Promise<Reply> =>
  request(gw.base, method, path, { auth, ...(json !== undefined && { json }) });

async function token(name: string, scopes: string[]): Promise<string> {
  const made = await call('POST', '/admin/v1/tokens', admin, { name, scopes });
  expect(made.status).toBe(201);
  return made.body.data.token as string;
}

function expectMissingCredit(reply: Reply): void {
  expect(reply.status).toBe(403);
  expect(reply.body.detail).toEqual({
    code: 'FORBIDDEN',
    message: 'This admin token lacks the scope credit',
    field: 'scope',
  });
}

beforeAll(async () => {
  gw = await startEmbedded({});
}, 120_000);
afterAll(async () => {
  await gw?.stop();
});

describe('an account rate needs the credit scope', () => {
  it('a token without credit cannot create an account with any rate; with credit it can', async () => {
    const writer = await token('rate-writer', ['accounts:write', 'accounts:read']);
    for (const [username, rate] of [
      ['free-zero', '0'],
      ['free-number', 0],
      ['free-cheap', '0.000001'],
      ['free-default', '1'],
    ] as const) {
      expectMissingCredit(
        await call('POST', '/admin/v1/accounts', `Bearer ${writer}`, {
          username,
          password: `${username}-password`,
          rate,
        }),
      );
      // Nothing was made: the name is still free and nobody can log in with it.
      expect((await call('GET', `/admin/v1/accounts/${username}`, admin)).status).toBe(404);
      expect(
        (
          await request(gw.base, 'GET', '/secure/balance', {
            auth: basic(username, `${username}-password`),
          })
        ).status,
      ).toBe(401);
    }
    const denied = await call(
      'GET',
      `/admin/v1/audit?actor=rate-writer&action=${encodeURIComponent('POST /accounts')}`,
      admin,
    );
    expect(denied.body.data).toHaveLength(4);
    expect(denied.body.data.map((e: { result: string }) => e.result)).toEqual(
      Array(4).fill('denied'),
    );

    const pricer = await token('rate-pricer', ['accounts:write', 'credit']);
    const priced = await call('POST', '/admin/v1/accounts', `Bearer ${pricer}`, {
      username: 'priced',
      password: 'priced-password',
      rate: '0.05',
    });
    expect(priced.status).toBe(201);
    expect(priced.body.rate).toBe('0.05');
    // Without a rate the writer still makes accounts, at the default rate and with no credit.
    const plain = await call('POST', '/admin/v1/accounts', `Bearer ${writer}`, {
      username: 'plain-rate',
      password: 'plain-rate-password',
    });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ balance: '0', rate: '1' });
  });

  it('the CLI is refused --rate with a token without credit', async () => {
    const writer = await token('rate-cli-writer', ['accounts:write']);
    await expect(
      runSmsgw(
        gw.base,
        ['accounts', 'create', 'cli-free', '--password', 'cli-free-password', '--rate', '0'],
        { SMSGW_ADMIN_TOKEN: writer },
      ),
    ).rejects.toThrow(/lacks the scope credit/);
    expect((await call('GET', '/admin/v1/accounts/cli-free', admin)).status).toBe(404);
  });
});

describe('a route price needs the credit scope', () => {
  it('a token without credit cannot put a route with a price; without a price it can', async () => {
    expect(
      (
        await call('POST', '/admin/v1/connectors', admin, {
          name: 'price-op',
          url: 'smpp://price:price-pw@127.0.0.1:1',
        })
      ).status,
    ).toBe(201);
    const router = await token('price-router', ['routes']);
    const route = (price?: string | number) => ({
      position: 7100,
      kind: 'static',
      connectors: [{ connector: 'price-op' }],
      filters: { accounts: ['plain-rate'] },
      ...(price !== undefined && { price }),
    });
    for (const price of ['0', 0, '0.01'])
      expectMissingCredit(
        await call('PUT', '/admin/v1/routes/free-route', `Bearer ${router}`, route(price)),
      );
    expect((await call('GET', '/admin/v1/routes/free-route', admin)).status).toBe(404);

    const unpriced = await call('PUT', '/admin/v1/routes/free-route', `Bearer ${router}`, route());
    expect(unpriced.status).toBe(200);
    expect(unpriced.body.data.price).toBeNull();
    // Replacing an unpriced route with a priced one is refused too, and leaves it as it was.
    expectMissingCredit(
      await call('PUT', '/admin/v1/routes/free-route', `Bearer ${router}`, route('0')),
    );
    expect((await call('GET', '/admin/v1/routes/free-route', admin)).body.data.price).toBeNull();

    const pricer = await token('price-pricer', ['routes', 'credit']);
    const priced = await call('PUT', '/admin/v1/routes/free-route', `Bearer ${pricer}`, route('0'));
    expect(priced.status).toBe(200);
    expect(priced.body.data.price).toBe('0.000000');
  });

  it('a token without credit cannot take a price away or change it by putting the route again; the same price it can put', async () => {
    expect(
      (
        await call('POST', '/admin/v1/connectors', admin, {
          name: 'reprice-op',
          url: 'smpp://reprice:reprice-pw@127.0.0.1:1',
        })
      ).status,
    ).toBe(201);
    const route = (position: number, price?: string | number) => ({
      position,
      kind: 'static',
      connectors: [{ connector: 'reprice-op' }],
      filters: { accounts: ['plain-rate'] },
      ...(price !== undefined && { price }),
    });
    const pricer = await token('reprice-pricer', ['routes', 'credit']);
    expect(
      (await call('PUT', '/admin/v1/routes/dear-route', `Bearer ${pricer}`, route(7200, '0.05')))
        .status,
    ).toBe(200);
    const router = await token('reprice-router', ['routes']);
    // PUT replaces the route: without a price it would charge the accounts' rate instead.
    for (const body of [route(7201), route(7201, '0'), route(7201, '0.049999')])
      expectMissingCredit(
        await call('PUT', '/admin/v1/routes/dear-route', `Bearer ${router}`, body),
      );
    const kept = await call('GET', '/admin/v1/routes/dear-route', admin);
    expect(kept.body.data).toMatchObject({ position: 7200, price: '0.050000' });
    const denied = await call(
      'GET',
      `/admin/v1/audit?actor=reprice-router&action=${encodeURIComponent('PUT /routes/:name')}`,
      admin,
    );
    expect(denied.body.data.map((e: { result: string }) => e.result)).toEqual(
      Array(3).fill('denied'),
    );

    // The price it was given, however written, is no change: the route's other fields are routes'.
    for (const price of ['0.05', 0.05, '0.050000']) {
      const same = await call(
        'PUT',
        '/admin/v1/routes/dear-route',
        `Bearer ${router}`,
        route(7202, price),
      );
      expect(same.status).toBe(200);
      expect(same.body.data).toMatchObject({ position: 7202, price: '0.050000' });
    }
    // With credit the price goes.
    const unpriced = await call(
      'PUT',
      '/admin/v1/routes/dear-route',
      `Bearer ${pricer}`,
      route(7202),
    );
    expect(unpriced.status).toBe(200);
    expect(unpriced.body.data.price).toBeNull();
  });
});
