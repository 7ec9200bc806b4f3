/**
 * Input at the edge, black-box against embedded mode: text that cannot be stored or sent is a 400
 * naming its field (a 401 in a user name), admin amounts are bounded and never rounded, browsers
 * cannot be made to send SMS for another site, what customers read of a failed callback names no
 * address, and the receipt metric's labels stay within the SMPP states.
 */
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request, type Reply, type RequestOptions } from '../support/http';
import { metricValue } from '../support/scrape';

const admin = `Bearer ${ADMIN_TOKEN}`;
const alice = basic('alice', 'alice-password');
const TRUSTED_ORIGIN = 'https://app.example.test';
/** Destinations ending in 777 get a receipt whose stat is no SMPP state. */
const ODD_STAT_SUFFIX = '777';
let sim: SmppSimulator;
let gw: RunningGateway;
const call = (method: string, path: string, options: RequestOptions = {}) =>
  request(gw.base, method, path, options);

function expectError(reply: Reply, status: number, code: string, field?: string): void {
  expect({
    status: reply.status,
    code: reply.body?.detail?.code,
    ...(field !== undefined && { field: reply.body?.detail?.field }),
  }).toEqual({ status, code, ...(field !== undefined && { field }) });
}

const balanceOf = async (auth: string): Promise<string> =>
  (await call('GET', '/secure/balance', { auth })).body.data.balance;

beforeAll(async () => {
  sim = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    deliveryReceipts: true,
    receiptDelayMs: 10,
    receiptStat: (to) => (to.endsWith(ODD_STAT_SUFFIX) ? 'FREE-TEXT-9' : undefined),
  });
  const { port } = await sim.start();
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
    CORS_ALLOWED_ORIGINS: TRUSTED_ORIGIN,
    CALLBACK_MAX_ATTEMPTS: '1',
  });
  const created = await call('POST', '/admin/v1/accounts', {
    auth: admin,
    json: { username: 'alice', password: 'alice-password', balance: '100', rate: '1' },
  });
  expect(created.status).toBe(201);
});

afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
});

describe('text that cannot be stored or sent', () => {
  const unusable: [string, string][] = [
    ['NUL', 'a\u0000b'],
    ['a control character', 'a\u0007b'],
    ['a lone surrogate', 'a\ud800b'],
  ];

  it.each(unusable)('send and rate refuse %s in each text field with 400', async (_name, bad) => {
    const before = await balanceOf(alice);
    const cases: [string, Record<string, unknown>][] = [
      ['content', { to: '41790000001', content: bad }],
      ['tags.0', { to: '41790000001', content: 'x', tags: [bad] }],
      ['from', { to: '41790000001', content: 'x', from: bad }],
      ['to', { to: `4179${bad}`, content: 'x' }],
      ['dlr_url', { to: '41790000001', content: 'x', dlr: 'yes', dlr_url: `http://h/${bad}` }],
    ];
    for (const [field, json] of cases) {
      for (const path of ['/secure/send', '/secure/rate']) {
        const reply = await call('POST', path, { auth: alice, json });
        expectError(reply, 400, 'INVALID_PARAMETER', field);
      }
    }
    expect(await balanceOf(alice)).toBe(before);
  });

  it('sendbatch refuses NUL in messages, globals and batch_config with 400', async () => {
    const before = await balanceOf(alice);
    const bodies: [string, Record<string, unknown>][] = [
      ['messages.0.content', { messages: [{ to: '41790000002', content: 'a\u0000' }] }],
      ['globals.content', { messages: [{ to: '41790000002' }], globals: { content: 'a\u0000' } }],
      [
        'batch_config.callback_url',
        {
          messages: [{ to: '41790000002', content: 'x' }],
          batch_config: { callback_url: 'http://h/\u0000' },
        },
      ],
    ];
    for (const [field, json] of bodies) {
      const reply = await call('POST', '/secure/sendbatch', { auth: alice, json });
      expect(reply.status).toBe(400);
      expect(reply.body.detail.code).toBe('INVALID_PARAMETER');
      expect(JSON.stringify(reply.body.detail)).toContain(field.split('.').pop());
    }
    expect(await balanceOf(alice)).toBe(before);
  });

  it('keeps tab and line breaks in content', async () => {
    const reply = await call('POST', '/secure/rate', {
      auth: alice,
      json: { to: '41790000001', content: 'line one\r\nline\ttwo' },
    });
    expect(reply.status).toBe(200);
  });

  it('answers 401 for a Basic user name with NUL, on every /secure/ route', async () => {
    for (const user of ['al\u0000ice', 'alice\u0000', '\u0000']) {
      const auth = basic(user, 'alice-password');
      expectError(await call('GET', '/secure/balance', { auth }), 401, 'UNAUTHORIZED');
      expectError(
        await call('POST', '/secure/send', { auth, json: { to: '41790000001', content: 'x' } }),
        401,
        'UNAUTHORIZED',
      );
    }
  });

  it('refuses NUL in admin fields and at the token endpoint', async () => {
    expectError(
      await call('POST', '/admin/v1/accounts', {
        auth: admin,
        json: { username: 'nul', password: 'pass\u0000word' },
      }),
      400,
      'INVALID_PARAMETER',
      'password',
    );
    expectError(
      await call('POST', '/admin/v1/accounts/alice/applications', {
        auth: admin,
        json: { name: 'app\u0000' },
      }),
      400,
      'INVALID_PARAMETER',
      'name',
    );
    expectError(
      await call('DELETE', '/admin/v1/accounts/alice/applications/%00', { auth: admin }),
      400,
      'INVALID_PARAMETER',
    );
    const form = new URLSearchParams({ client_id: 'id\u0000', client_secret: 'secret' });
    expectError(
      await call('POST', '/auth/v1/login/application', { body: form }),
      400,
      'INVALID_PARAMETER',
      'client_id',
    );
  });
});

describe('admin amounts', () => {
  const credit = (username: string, json: Record<string, unknown>) =>
    call('POST', `/admin/v1/accounts/${username}/credit`, { auth: admin, json });
  const create = (username: string, extra: Record<string, unknown>) =>
    call('POST', '/admin/v1/accounts', {
      auth: admin,
      json: { username, password: 'a-long-password', ...extra },
    });

  it('refuses a credit past what the balance column holds with 400, changing nothing', async () => {
    expect((await create('rich', { balance: '99999999999999' })).status).toBe(201);
    expectError(await credit('rich', { amount: '1' }), 400, 'INVALID_PARAMETER');
    expectError(
      await credit('rich', { amount: '99999999999999.999999' }),
      400,
      'INVALID_PARAMETER',
    );
    expect((await call('GET', '/admin/v1/accounts/rich', { auth: admin })).body.balance).toBe(
      '99999999999999',
    );
  });

  it('bounds sms_count to the bigint column, as a JSON integer or a digit string', async () => {
    expect((await create('quota', { sms_count: 9007199254740991 })).status).toBe(201);
    const big = '9223372036854775000';
    expect((await create('bigquota', { sms_count: big })).status).toBe(201);
    expect((await call('GET', '/admin/v1/accounts/bigquota', { auth: admin })).body.sms_count).toBe(
      big,
    );
    expectError(
      await create('hugequota', { sms_count: '9223372036854775808' }),
      400,
      'INVALID_PARAMETER',
      'sms_count',
    );
    expectError(
      await credit('bigquota', { amount: '0', sms_count: 1000 }),
      400,
      'INVALID_PARAMETER',
    );
    expect((await call('GET', '/admin/v1/accounts/bigquota', { auth: admin })).body.sms_count).toBe(
      big,
    );
    expectError(
      await credit('quota', { amount: '0', sms_count: '-99999999999999999999' }),
      400,
      'INVALID_PARAMETER',
      'sms_count',
    );
  });

  it('refuses JSON numbers that a double would round, and takes the same value as a string', async () => {
    expect((await create('exact', { balance: '0' })).status).toBe(201);
    const rounded = await call('POST', '/admin/v1/accounts/exact/credit', {
      auth: admin,
      body: '{"amount": 12345678901234.0001}',
      headers: { 'content-type': 'application/json' },
    });
    expectError(rounded, 400, 'INVALID_PARAMETER', 'amount');
    const tooBig = await call('POST', '/admin/v1/accounts', {
      auth: admin,
      body: '{"username":"float","password":"a-long-password","sms_count":18446744073709551616}',
      headers: { 'content-type': 'application/json' },
    });
    expectError(tooBig, 400, 'INVALID_PARAMETER', 'sms_count');
    expect((await call('GET', '/admin/v1/accounts/exact', { auth: admin })).body.balance).toBe('0');
    const exact = await credit('exact', { amount: '12345678901234.0001' });
    expect(exact.status).toBe(200);
    expect(exact.body.balance).toBe('12345678901234.0001');
    const plain = await call('POST', '/admin/v1/accounts/exact/credit', {
      auth: admin,
      body: '{"amount": 0.5}',
      headers: { 'content-type': 'application/json' },
    });
    expect(plain.body.balance).toBe('12345678901234.5001');
  });
});

describe('requests a browser makes for another site', () => {
  const send = { to: '41790000003', content: 'x' };

  it('sends no Basic challenge with 401', async () => {
    const reply = await call('GET', '/secure/balance');
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toBeNull();
  });

  it('refuses a cross-site fetch and a foreign Origin with 403 FORBIDDEN, sending nothing', async () => {
    const before = await balanceOf(alice);
    const received = sim.received.length;
    const foreign: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'https://evil.example.test' },
      { origin: 'null' },
      { origin: 'https://evil.example.test', 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of foreign) {
      expectError(
        await call('POST', '/secure/send', {
          auth: alice,
          body: JSON.stringify(send),
          headers: { ...headers, 'content-type': 'text/plain' },
        }),
        403,
        'FORBIDDEN',
      );
      expectError(await call('GET', '/secure/balance', { auth: alice, headers }), 403, 'FORBIDDEN');
    }
    expect(await balanceOf(alice)).toBe(before);
    expect(sim.received.length).toBe(received);
  });

  it('serves an origin of CORS_ALLOWED_ORIGINS, and clients that are not browsers', async () => {
    const trusted = await call('GET', '/secure/balance', {
      auth: alice,
      headers: { origin: TRUSTED_ORIGIN, 'sec-fetch-site': 'cross-site' },
    });
    expect(trusted.status).toBe(200);
    expect(trusted.headers.get('access-control-allow-origin')).toBe(TRUSTED_ORIGIN);
    const preflight = await call('OPTIONS', '/secure/send', {
      headers: {
        origin: TRUSTED_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(TRUSTED_ORIGIN);
    expect((await call('GET', '/secure/balance', { auth: alice })).status).toBe(200);
    const sameOrigin = await call('GET', '/secure/balance', {
      auth: alice,
      headers: { origin: gw.base, 'sec-fetch-site': 'same-origin' },
    });
    expect(sameOrigin.status).toBe(200);
  });
});

describe('what customers read of a refused callback', () => {
  it('names the host it was given, not the private address that name resolves to', async () => {
    const sent = await call('POST', '/secure/send', {
      auth: alice,
      json: {
        to: '41790000004',
        content: 'x',
        dlr: 'yes',
        'dlr-url': 'http://localhost:9/hook',
        'dlr-level': 3,
      },
    });
    // Refused at acceptance (callback-url-check.ts), before anything is charged.
    expect(sent.status).toBe(400);
    expect(JSON.stringify(sent.body)).toMatch(/dlr_url: localhost is a private/);
    expect(JSON.stringify(sent.body)).not.toMatch(/127\.0\.0\.1|::1|resolves/);
  });
});

describe('the receipt metric', () => {
  it('counts a receipt with a stat outside the SMPP states as other', async () => {
    const before = await metricValue(gw.base, 'smsgw_delivery_receipts_total', { status: 'other' });
    const sent = await call('POST', '/secure/send', {
      auth: alice,
      json: { to: `41790000${ODD_STAT_SUFFIX}`, content: 'x' },
    });
    expect(sent.status).toBe(200);
    await waitFor(async () =>
      (await metricValue(gw.base, 'smsgw_delivery_receipts_total', { status: 'other' })) > before
        ? true
        : undefined,
    );
    const scraped = (await call('GET', '/metrics')).text;
    expect(scraped).not.toContain('FREE-TEXT-9');
  });
});
