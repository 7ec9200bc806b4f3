import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { adminCaller, basic, request } from '../support/http';

/**
 * What the web console asks beside the search: the last minutes live, which route a number would
 * take (MT and MO), and an account's applications, listed by operators and managed by the
 * customer itself. Black-box against embedded mode and the simulator.
 */

let sim: SmppSimulator;
let gw: RunningGateway;
const admin = `Bearer ${ADMIN_TOKEN}`;
const call = adminCaller(() => gw.base, admin);
const gina = basic('gina', 'gina-password');

beforeAll(async () => {
  // Messages to +4479... are refused by the SMSC: a failure to count.
  sim = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    deliveryReceipts: true,
    rejectDestinations: /^4479/,
  });
  const { port } = await sim.start();
  gw = await startEmbedded({ SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}` });
  const made = await call('POST', '/accounts', {
    username: 'gina',
    password: 'gina-password',
    balance: '100',
    rate: '0.1',
  });
  expect(made.status).toBe(201);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
});

describe('the last minutes, live', () => {
  it('counts this minute the messages accepted, delivered and failed, every minute present', async () => {
    const before = (await call('GET', '/stats/live?minutes=5')).body.data;
    const count = (minutes: { accepted: number }[]) => minutes.reduce((n, m) => n + m.accepted, 0);
    for (const to of ['41790000401', '41790000402', '447900000403'])
      expect(
        (
          await request(gw.base, 'POST', '/secure/send', {
            auth: gina,
            json: { to, content: 'hi' },
          })
        ).status,
      ).toBe(200);
    const live = await waitFor(async () => {
      const { body } = await call('GET', '/stats/live?minutes=5');
      const sum = (k: 'delivered' | 'failed') =>
        body.data.minutes.reduce((n: number, m: Record<string, number>) => n + m[k], 0);
      return sum('delivered') >= 2 && sum('failed') >= 1 ? body.data : undefined;
    }, 30_000);
    expect(live.minutes).toHaveLength(5);
    expect(count(live.minutes) - count(before.minutes)).toBeGreaterThanOrEqual(3);
    // Consecutive minutes, the newest the one of the reading.
    const starts = live.minutes.map((m: { minute: string }) => Date.parse(m.minute));
    expect(starts.slice(1).map((t: number, i: number) => t - starts[i])).toEqual([
      60_000, 60_000, 60_000, 60_000,
    ]);
    expect(Date.parse(live.until) - starts[4]).toBeLessThan(60_000);
    for (const m of live.minutes)
      expect(m.accepted).toBe(m.delivered + m.failed + m.waiting + m.cancelled);
  });

  it('refuses a range it does not serve, and a token without messages:read', async () => {
    for (const minutes of ['0', '181', 'ten', '-1'])
      expect((await call('GET', `/stats/live?minutes=${minutes}`)).status).toBe(400);
    expect((await call('GET', '/stats/live?hours=1')).status).toBe(400);
    const token = await call('POST', '/tokens', { name: 'routes-only', scopes: ['routes'] });
    expect(token.status).toBe(201);
    const reply = await request(gw.base, 'GET', '/admin/v1/stats/live', {
      auth: `Bearer ${token.body.data.token}`,
    });
    expect(reply.status).toBe(403);
  });
});

describe('which route would this number take?', () => {
  it('answers as acceptance decides: position, prefix, account, and none', async () => {
    // Without routes every message goes to `default`.
    const bare = await call('GET', '/routes/match?to=41790000001&account=gina');
    expect(bare.status).toBe(200);
    expect(bare.body.data).toEqual({ route: null, no_routes: true, unusable: [] });

    for (const [name, route] of Object.entries({
      swiss: {
        position: 10,
        kind: 'static',
        connectors: [{ connector: 'default' }],
        filters: { prefixes: ['41'] },
      },
      ginas: {
        position: 5,
        kind: 'static',
        connectors: [{ connector: 'default' }],
        filters: { prefixes: ['4179'], accounts: ['gina'] },
      },
    }))
      expect((await call('PUT', `/routes/${name}`, route)).status).toBe(200);

    const take = async (query: string) =>
      (await call('GET', `/routes/match?${query}`)).body.data.route?.name ?? null;
    expect(await take('to=%2B41790000001&account=gina')).toBe('ginas');
    expect(await take('to=41790000001&account=other')).toBe('swiss');
    expect(await take('to=41310000001&account=gina')).toBe('swiss');
    expect(await take('to=33600000001&account=gina')).toBeNull();

    // The answer is what sending does, once the gateway has read the routes (within a second or
    // so): a number no route takes is refused.
    const refused = await waitFor(async () => {
      const reply = await request(gw.base, 'POST', '/secure/send', {
        auth: gina,
        json: { to: '33600000001', content: 'x' },
      });
      return reply.status === 400 ? reply : undefined;
    }, 30_000);
    expect(refused.text).toContain('No route takes messages to 33600000001');

    for (const query of [
      'account=gina',
      'to=abc&account=gina',
      'to=4179',
      'to=41&account=gina&at=yesterday',
    ])
      expect((await call('GET', `/routes/match?${query}`)).status).toBe(400);
    for (const name of ['swiss', 'ginas'])
      expect((await call('DELETE', `/routes/${name}`)).status).toBe(200);
  });

  it('answers for MO routes by number, keyword and connector', async () => {
    const put = await call('PUT', '/mo-routes/stop-words', {
      position: 1,
      to: '4000',
      exact: true,
      keyword: 'info',
      account: 'gina',
    });
    expect(put.status).toBe(200);
    const take = async (query: string) =>
      (await call('GET', `/mo-routes/match?${query}`)).body.data;
    expect(await take('to=4000&text=info%20please')).toEqual({
      route: expect.objectContaining({ name: 'stop-words', account: 'gina', keyword: 'INFO' }),
      keyword: 'INFO',
    });
    expect((await take('to=4000&text=hello')).route).toBeNull();
    expect((await take('to=40001&text=info')).route).toBeNull();
    expect((await take('to=4000&text=info&connector=other')).route).toBeNull();
    expect((await call('GET', '/mo-routes/match?text=info')).status).toBe(400);
    expect((await call('DELETE', '/mo-routes/stop-words')).status).toBe(200);
  });
});

describe("a customer's applications", () => {
  it('are made, listed and revoked by the customer, and listed by operators, never with a secret', async () => {
    const made = await request(gw.base, 'POST', '/auth/v1/applications', {
      auth: gina,
      json: { name: 'billing' },
    });
    expect(made.status).toBe(201);
    const { client_id, client_secret } = made.body as { client_id: string; client_secret: string };
    expect(client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const token = await request(gw.base, 'POST', '/auth/v1/login/application', {
      body: new URLSearchParams({ client_id, client_secret }),
    });
    expect(token.status).toBe(200);
    const bearer = `Bearer ${token.body.access_token as string}`;

    const listed = await request(gw.base, 'GET', '/auth/v1/applications', { auth: gina });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      expect.objectContaining({ client_id, name: 'billing', secret_changed_at: null }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(client_secret);
    const byOperator = await call('GET', '/accounts/gina/applications');
    expect(byOperator.body.data.map((a: { client_id: string }) => a.client_id)).toEqual([
      client_id,
    ]);
    expect((await call('GET', '/accounts/nobody/applications')).status).toBe(404);

    // An application's token cannot make or revoke applications, nor can a wrong password.
    for (const auth of [bearer, basic('gina', 'wrong-password'), undefined]) {
      const reply = await request(gw.base, 'POST', '/auth/v1/applications', {
        ...(auth !== undefined && { auth }),
        json: {},
      });
      expect([401, 403]).toContain(reply.status);
    }
    expect(
      (await request(gw.base, 'DELETE', `/auth/v1/applications/${client_id}`, { auth: bearer }))
        .status,
    ).toBe(403);
    expect(
      (await request(gw.base, 'POST', '/auth/v1/applications', { auth: gina, json: { name: 7 } }))
        .status,
    ).toBe(400);
    expect(
      (await request(gw.base, 'GET', '/auth/v1/applications', { auth: gina })).body.data,
    ).toHaveLength(1);

    const revoked = await request(gw.base, 'DELETE', `/auth/v1/applications/${client_id}`, {
      auth: gina,
    });
    expect(revoked.status).toBe(204);
    expect(
      (await request(gw.base, 'DELETE', `/auth/v1/applications/${client_id}`, { auth: gina }))
        .status,
    ).toBe(404);
    expect(
      (await request(gw.base, 'GET', '/auth/v1/applications', { auth: gina })).body.data,
    ).toEqual([]);
    await waitFor(async () => {
      const reply = await request(gw.base, 'GET', '/secure/balance', { auth: bearer });
      return reply.status === 401 ? true : undefined;
    }, 30_000);
  });
});

describe("an operator's cancel of a customer's batch", () => {
  it('cancels and refunds what is not sent, once, and only with accounts:write', async () => {
    const balance = async () => String((await call('GET', '/accounts/gina')).body.balance);
    const before = await balance();
    const sent = await request(gw.base, 'POST', '/secure/sendbatch', {
      auth: gina,
      json: {
        messages: [{ to: ['41790000501', '41790000502'], content: 'later' }],
        batch_config: { schedule_at: '3600s' },
      },
    });
    expect(sent.status).toBe(200);
    const batchId = sent.body.data.batchId as string;
    expect(Number(await balance())).toBeLessThan(Number(before));

    const reader = await call('POST', '/tokens', {
      name: 'batch-reader',
      scopes: ['batches:read'],
    });
    const refused = await request(gw.base, 'DELETE', `/admin/v1/batches/${batchId}`, {
      auth: `Bearer ${reader.body.data.token as string}`,
    });
    expect(refused.status).toBe(403);

    const cancelled = await call('DELETE', `/batches/${batchId}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ batchId, state: 'cancelled' });
    expect(Number(cancelled.body.data.refunded)).toBeGreaterThan(0);
    expect(await balance()).toBe(before);
    const status = await request(gw.base, 'GET', `/secure/batches/${batchId}`, { auth: gina });
    expect(status.body.data.state).toBe('cancelled');

    expect((await call('DELETE', `/batches/${batchId}`)).status).toBe(409);
    expect(await balance()).toBe(before);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-batch'])
      expect((await call('DELETE', `/batches/${id}`)).status).toBe(404);
    const audited = await call('GET', `/audit?target=${encodeURIComponent(`/batches/${batchId}`)}`);
    // Newest first: the second cancel, refused; the one that refunded; the token without the scope.
    expect(audited.body.data.map((e: { result: string }) => e.result)).toEqual([
      'failed',
      'ok',
      'denied',
    ]);
    expect(audited.body.data[1]).toMatchObject({
      actor: 'ADMIN_TOKEN',
      summary: { refunded: cancelled.body.data.refunded },
    });
  });
});
