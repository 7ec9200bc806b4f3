import jwt from 'jsonwebtoken';
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, JWT_SECRET, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request, type Reply } from '../support/http';

const admin = `Bearer ${ADMIN_TOKEN}`;
const alice = basic('alice', 'alice-password');
let sim: SmppSimulator;
let gw: RunningGateway;
const call = (method: string, path: string, options: Parameters<typeof request>[3] = {}) =>
  request(gw.base, method, path, options);

function expectError(reply: Reply, status: number, code: string): void {
  expect({ status: reply.status, code: reply.body?.detail?.code }).toEqual({ status, code });
  expect(typeof reply.body.detail.message).toBe('string');
  expect(reply.text).not.toMatch(/\bat \S+ \(|node_modules/);
}

beforeAll(async () => {
  sim = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    deliveryReceipts: true,
    receiptDelayMs: 20,
  });
  const { port } = await sim.start();
  gw = await startEmbedded({ SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`, MAX_BODY_BYTES: '4096' });
  const created = await call('POST', '/admin/v1/accounts', {
    auth: admin,
    json: { username: 'alice', password: 'alice-password', balance: '10', rate: '0.5' },
  });
  expect(created.status).toBe(201);
  expect(
    (
      await call('POST', '/admin/v1/accounts', {
        auth: admin,
        json: { username: 'bob', password: 'bob-password', balance: '0.2', rate: '1' },
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await call('POST', '/admin/v1/accounts', {
        auth: admin,
        json: { username: 'carol', password: 'carol-password', sms_count: 0, balance: null },
      })
    ).status,
  ).toBe(201);
});

afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
});

describe('admin API', () => {
  it('creates an account once and shows it', async () => {
    const again = await call('POST', '/admin/v1/accounts', {
      auth: admin,
      json: { username: 'alice', password: 'another-password' },
    });
    expectError(again, 409, 'CONFLICT');
    const shown = await call('GET', '/admin/v1/accounts/alice', { auth: admin });
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      username: 'alice',
      balance: expect.any(String),
      sms_count: 'ND',
      rate: '0.5',
    });
    expect(shown.text).not.toMatch(/password|hash/i);
  });

  it('refuses callers without the admin token and bad account bodies', async () => {
    expectError(await call('GET', '/admin/v1/accounts/alice'), 401, 'UNAUTHORIZED');
    expectError(
      await call('GET', '/admin/v1/accounts/alice', { auth: 'Bearer wrong-token-wrong-token' }),
      401,
      'UNAUTHORIZED',
    );
    const short = await call('POST', '/admin/v1/accounts', {
      auth: admin,
      json: { username: 'dave', password: 'short' },
    });
    expectError(short, 400, 'INVALID_PARAMETER');
    expect(short.body.detail.field).toBe('password');
    expectError(await call('GET', '/admin/v1/accounts/nobody', { auth: admin }), 404, 'NOT_FOUND');
  });
});

describe('POST /secure/send', () => {
  it('answers Success "<id> and the SMSC receives that destination and text; balance shows the debit', async () => {
    const before = sim.messages().length;
    const reply = await call('POST', '/secure/send', {
      auth: alice,
      json: { to: '+41790000001', content: 'Hello', from: 'Acme' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatch(/^Success "[0-9a-f-]{36}$/);
    const id = reply.body.data.slice('Success "'.length);

    await sim.waitFor(before + 1, 10_000);
    const received = sim.messages().at(-1)!;
    expect(received).toMatchObject({ to: '41790000001', from: 'Acme', text: 'Hello' });

    const balance = await call('GET', '/secure/balance', { auth: alice });
    expect(balance.status).toBe(200);
    expect(balance.body).toEqual({ data: { balance: '9.5', sms_count: 'ND' } });

    const status = await waitFor(async () => {
      const r = await call('GET', `/secure/messages/${id}`, { auth: alice });
      return r.body?.data?.state === 'delivered' ? r : undefined;
    });
    expect(status.body.data).toMatchObject({
      id,
      to: '41790000001',
      segments: 1,
      cost: '0.5',
      smscId: expect.any(String),
    });
    expect(status.body.data.smscId).not.toBe('');
    // Another account cannot see it.
    expectError(
      await call('GET', `/secure/messages/${id}`, { auth: basic('bob', 'bob-password') }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await call('GET', '/secure/messages/not-a-uuid', { auth: alice }),
      404,
      'NOT_FOUND',
    );
  });

  it('accepts both spellings of dashed fields and a numeric to', async () => {
    const dashed = await call('POST', '/secure/send', {
      auth: alice,
      json: { to: 41790000002, 'hex-content': '48656c6c6f', coding: 0 },
    });
    expect(dashed.status).toBe(200);
    const both = await call('POST', '/secure/send', {
      auth: alice,
      json: { to: '41790000002', hex_content: '00', 'hex-content': '00' },
    });
    expectError(both, 400, 'INVALID_PARAMETER');
  });
});

describe('POST /secure/rate', () => {
  it('tells the encoding, parts and price before sending, and charges nothing', async () => {
    const before = (await call('GET', '/secure/balance', { auth: alice })).body.data.balance;
    const unicode = await call('POST', '/secure/rate', {
      auth: alice,
      json: { to: '41790000001', content: 'Привет 👋'.repeat(10) },
    });
    expect(unicode.body).toEqual({
      data: { coding: 8, encoding: 'UCS-2', segments: 2, rate: '0.5', cost: '1' },
    });
    const gsm = await call('POST', '/secure/rate', {
      auth: alice,
      json: { to: '41790000001', content: 'x'.repeat(400) },
    });
    expect(gsm.body.data).toMatchObject({ coding: 0, segments: 3, cost: '1.5' });
    expectError(
      await call('POST', '/secure/rate', {
        auth: alice,
        json: { to: '41790000001', content: '你好', coding: 3 },
      }),
      400,
      'INVALID_PARAMETER',
    );
    expect((await call('GET', '/secure/balance', { auth: alice })).body.data.balance).toBe(before);
  });
});

describe('bad input gets the right 4xx and changes nothing', () => {
  const badSends: [
    string,
    RequestInit & { json?: unknown; raw?: string; type?: string },
    number,
    string,
    string?,
  ][] = [
    ['malformed JSON', { raw: '{"to": "4179', type: 'application/json' }, 400, 'INVALID_PARAMETER'],
    ['a JSON array', { json: [{ to: '41790000001', content: 'x' }] }, 400, 'INVALID_PARAMETER'],
    ['to of the wrong type', { json: { to: true, content: 'x' } }, 400, 'INVALID_PARAMETER', 'to'],
    [
      'content of the wrong type',
      { json: { to: '41790000001', content: 42 } },
      400,
      'INVALID_PARAMETER',
      'content',
    ],
    [
      'an unknown field',
      { json: { to: '41790000001', content: 'x', colour: 'red' } },
      400,
      'INVALID_PARAMETER',
      'colour',
    ],
    [
      'both content and hex_content',
      { json: { to: '41790000001', content: 'x', hex_content: '41' } },
      400,
      'INVALID_PARAMETER',
      'hex_content',
    ],
    [
      'neither content nor hex_content',
      { json: { to: '41790000001' } },
      400,
      'INVALID_PARAMETER',
      'content',
    ],
    ['a to with letters', { json: { to: 'abc', content: 'x' } }, 400, 'INVALID_PARAMETER', 'to'],
    [
      'a to of 16 digits',
      { json: { to: '+1234567890123456', content: 'x' } },
      400,
      'INVALID_PARAMETER',
      'to',
    ],
    [
      'a list of destinations',
      { json: { to: ['41790000001', '41790000002'], content: 'x' } },
      400,
      'INVALID_PARAMETER',
      'to',
    ],
    [
      'odd hex_content',
      { json: { to: '41790000001', hex_content: 'abc' } },
      400,
      'INVALID_PARAMETER',
      'hex_content',
    ],
    [
      'priority out of range',
      { json: { to: '41790000001', content: 'x', priority: 7 } },
      400,
      'INVALID_PARAMETER',
      'priority',
    ],
    // sdt's last character is one of + - R; '0', 'A' and '=' lie between '+' and 'R' in ASCII.
    ...[
      '2601011200000000',
      '260101120000000A',
      '260101120000000=',
      '26010112000000R',
      '260101120000000R ',
    ].map((sdt): (typeof badSends)[number] => [
      `an sdt of ${JSON.stringify(sdt)}`,
      { json: { to: '41790000001', content: 'x', sdt } },
      400,
      'INVALID_PARAMETER',
      'sdt',
    ]),
    [
      'content the coding cannot carry',
      { json: { to: '41790000001', content: '你好', coding: 3 } },
      400,
      'INVALID_PARAMETER',
      'content',
    ],
    [
      'more parts than MAX_PARTS',
      { json: { to: '41790000001', content: 'x'.repeat(153 * 10 + 1) } },
      400,
      'INVALID_PARAMETER',
      'content',
    ],
    [
      'an oversized body',
      { json: { to: '41790000001', content: 'x'.repeat(5000) } },
      413,
      'PAYLOAD_TOO_LARGE',
    ],
    [
      'an unsupported content type',
      { raw: '<sms/>', type: 'application/xml' },
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
  ];

  it.each(badSends)('%s', async (...row) => {
    const [, input, status, code, field] = row;
    const messagesBefore = sim.messages().length;
    const options =
      input.raw !== undefined
        ? { body: input.raw, headers: { 'content-type': input.type! } }
        : { json: input.json };
    const reply = await call('POST', '/secure/send', { auth: alice, ...options });
    expectError(reply, status, code);
    if (field) expect(reply.body.detail.field).toBe(field);
    expect((await call('GET', '/secure/balance', { auth: alice })).body.data.balance).toBe(
      currentAliceBalance,
    );
    expect(sim.messages().length).toBe(messagesBefore);
  });

  let currentAliceBalance: string;
  beforeAll(async () => {
    currentAliceBalance = (await call('GET', '/secure/balance', { auth: alice })).body.data.balance;
  });

  const credentials: [string, string | undefined, string][] = [
    ['no credentials', undefined, 'UNAUTHORIZED'],
    ['a wrong password', basic('alice', 'wrong-password'), 'UNAUTHORIZED'],
    ['an unknown user', basic('mallory', 'alice-password'), 'UNAUTHORIZED'],
    ['a malformed Basic header', 'Basic %%%not-base64', 'UNAUTHORIZED'],
    ['an unknown scheme', 'Digest username="alice"', 'UNAUTHORIZED'],
    [
      'a forged token',
      `Bearer ${jwt.sign({ cid: 'x' }, 'not-the-secret-not-the-secret-0123456789', { subject: 'x', issuer: 'sms-gateway', expiresIn: 600 })}`,
      'UNAUTHORIZED',
    ],
    [
      'an unsigned token',
      `Bearer ${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"x","cid":"x","iss":"sms-gateway"}').toString('base64url')}.`,
      'UNAUTHORIZED',
    ],
    ['garbage as a token', 'Bearer abc.def', 'UNAUTHORIZED'],
  ];

  it.each(credentials)('401 for %s on send and balance', async (_name, auth, code) => {
    const send = await call('POST', '/secure/send', {
      ...(auth && { auth }),
      json: { to: '41790000001', content: 'x' },
    });
    expectError(send, 401, code);
    expect(send.headers.get('www-authenticate')).toBeNull();
    expectError(await call('GET', '/secure/balance', { ...(auth && { auth }) }), 401, code);
    expect((await call('GET', '/secure/balance', { auth: alice })).body.data.balance).toBe(
      currentAliceBalance,
    );
  });

  it('402 when credit or quota is short, and nothing is charged', async () => {
    const bob = basic('bob', 'bob-password');
    expectError(
      await call('POST', '/secure/send', { auth: bob, json: { to: '41790000001', content: 'x' } }),
      402,
      'INSUFFICIENT_CREDIT',
    );
    expect((await call('GET', '/secure/balance', { auth: bob })).body.data).toEqual({
      balance: '0.2',
      sms_count: 'ND',
    });
    const carol = basic('carol', 'carol-password');
    expectError(
      await call('POST', '/secure/send', {
        auth: carol,
        json: { to: '41790000001', content: 'x' },
      }),
      402,
      'QUOTA_EXCEEDED',
    );
    expect((await call('GET', '/secure/balance', { auth: carol })).body.data).toEqual({
      balance: 'ND',
      sms_count: '0',
    });
  });

  it('unknown paths are a 404 error body, never a 500', async () => {
    expectError(await call('GET', '/secure/nothing-here', { auth: alice }), 404, 'NOT_FOUND');
    expectError(await call('DELETE', '/no/such/path'), 404, 'NOT_FOUND');
  });
});

describe('tokens: POST /auth/v1/login/application', () => {
  let clientId: string;
  let clientSecret: string;
  beforeAll(async () => {
    const app = await call('POST', '/admin/v1/accounts/alice/applications', {
      auth: admin,
      json: { name: 'test app' },
    });
    expect(app.status).toBe(201);
    ({ client_id: clientId, client_secret: clientSecret } = app.body);
  });

  const login = (fields: Record<string, string>, as: 'multipart' | 'urlencoded') => {
    if (as === 'urlencoded')
      return call('POST', '/auth/v1/login/application', { body: new URLSearchParams(fields) });
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    return call('POST', '/auth/v1/login/application', { body: form });
  };

  it.each(['multipart', 'urlencoded'] as const)(
    'issues a bearer token for a %s form that works on /secure/',
    async (as) => {
      const reply = await login({ client_id: clientId, client_secret: clientSecret }, as);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        access_token: expect.any(String),
        token_type: 'bearer',
        expires_in: 3600,
      });
      const balance = await call('GET', '/secure/balance', {
        auth: `Bearer ${reply.body.access_token}`,
      });
      expect(balance.status).toBe(200);
    },
  );

  it('404 for an unknown client_id as the spec says, 401 for a wrong secret, 400 on a missing field', async () => {
    // The specification: "application does not exist: 404
    // {"detail": {"code": "APPLICATION_NOT_EXISTS", "message": "Application not exists"}}".
    for (const as of ['multipart', 'urlencoded'] as const) {
      const unknown = await login({ client_id: 'no-such-client', client_secret: 'whatever' }, as);
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({
        detail: { code: 'APPLICATION_NOT_EXISTS', message: 'Application not exists' },
      });
    }
    const wrong = await login({ client_id: clientId, client_secret: 'wrong' }, 'urlencoded');
    expectError(wrong, 401, 'UNAUTHORIZED');
    expect(wrong.body.detail.message).toBe('Wrong client_id or client_secret');
    const missing = await login({ client_id: clientId }, 'multipart');
    expectError(missing, 400, 'INVALID_PARAMETER');
    expect(missing.body.detail.field).toBe('client_secret');
  });

  it('an expired token gives the spec body on every path', async () => {
    const account = (await call('GET', '/admin/v1/accounts/alice', { auth: admin })).body;
    const expired = jwt.sign({ cid: clientId }, JWT_SECRET, {
      subject: account.id,
      issuer: 'sms-gateway',
      expiresIn: -10,
    });
    for (const [method, path] of [
      ['GET', '/secure/balance'],
      ['POST', '/secure/send'],
      ['GET', `/secure/messages/${account.id}`],
    ] as const) {
      const reply = await call(method, path, {
        auth: `Bearer ${expired}`,
        ...(method === 'POST' && { json: { to: '41790000001', content: 'x' } }),
      });
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({
        detail: { code: 'ACCESS_TOKEN_EXPIRED', message: 'Access token signature has expired' },
      });
    }
  });

  it('revoking the application revokes its tokens', async () => {
    const app = await call('POST', '/admin/v1/accounts/alice/applications', {
      auth: admin,
      json: {},
    });
    const token = (
      await login(
        { client_id: app.body.client_id, client_secret: app.body.client_secret },
        'urlencoded',
      )
    ).body.access_token;
    expect((await call('GET', '/secure/balance', { auth: `Bearer ${token}` })).status).toBe(200);
    expect(
      (
        await call('DELETE', `/admin/v1/accounts/alice/applications/${app.body.client_id}`, {
          auth: admin,
        })
      ).status,
    ).toBe(204);
    await waitFor(
      async () =>
        (await call('GET', '/secure/balance', { auth: `Bearer ${token}` })).status === 401
          ? true
          : undefined,
      10_000,
      'the revoked token refused',
      200,
    );
    // A revoked application exists no more: its secret gets no new token.
    const again = await login(
      { client_id: app.body.client_id, client_secret: app.body.client_secret },
      'urlencoded',
    );
    expect(again.status).toBe(404);
    expect(again.body.detail.code).toBe('APPLICATION_NOT_EXISTS');
  });
});
