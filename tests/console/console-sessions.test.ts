import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { adminCaller, request, type Reply } from '../support/http';

/**
 * The web console's sessions, black-box against embedded mode: a login makes an HttpOnly,
 * SameSite=Strict cookie; the API takes the cookie in place of credentials, with the session's
 * CSRF token on anything that changes state; requests from another site, wrong logins and ended
 * sessions are refused and change nothing.
 */

let gw: RunningGateway;
const admin = adminCaller(() => gw.base, `Bearer ${ADMIN_TOKEN}`);
const PASSWORD = 'console-pass-1';

beforeAll(async () => {
  gw = await startEmbedded({});
  expect(
    (await admin('POST', '/accounts', { username: 'cora', password: PASSWORD, balance: 10 }))
      .status,
  ).toBe(201);
});
afterAll(() => gw.stop());

interface Session {
  cookie: string;
  csrf: string;
  reply: Reply;
}

/** The cookie pair (name=value) of a reply's Set-Cookie. */
const cookieOf = (reply: Reply): string => (reply.headers.get('set-cookie') ?? '').split(';')[0];

async function login(json: unknown, headers: Record<string, string> = {}): Promise<Session> {
  const reply = await request(gw.base, 'POST', '/console/v1/session', { json, headers });
  return { cookie: cookieOf(reply), csrf: String(reply.body?.csrfToken ?? ''), reply };
}

const withSession = (s: Session, extra: Record<string, string> = {}) => ({
  cookie: s.cookie,
  'x-csrf-token': s.csrf,
  ...extra,
});

async function balance(): Promise<string> {
  const reply = await admin('GET', '/accounts/cora');
  return String(reply.body.balance);
}

describe('console sessions', () => {
  it('a customer logs in: the cookie is HttpOnly and SameSite=Strict, and the API takes it', async () => {
    const s = await login({ kind: 'customer', username: 'cora', password: PASSWORD });
    expect(s.reply.status).toBe(201);
    const setCookie = s.reply.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^smsgw_console=[A-Za-z0-9_-]{43};/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    expect(setCookie).toMatch(/Path=\//);
    // Kept for the longest a session lasts (12 h by default); the server ends an idle one sooner.
    expect(setCookie).toMatch(/Max-Age=43200/);
    expect(s.reply.body).toMatchObject({ kind: 'customer', name: 'cora', scopes: [] });
    expect(s.reply.headers.get('cache-control')).toBe('no-store');

    const me = await request(gw.base, 'GET', '/console/v1/session', {
      headers: { cookie: s.cookie },
    });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ kind: 'customer', name: 'cora', csrfToken: s.csrf });

    const bal = await request(gw.base, 'GET', '/secure/balance', { headers: { cookie: s.cookie } });
    expect(bal.status).toBe(200);
    expect(bal.body.data.balance).toBeDefined();
    // A customer's session is not an operator's.
    const adminTry = await request(gw.base, 'GET', '/admin/v1/accounts', {
      headers: withSession(s),
    });
    expect(adminTry.status).toBe(401);
  });

  it('a send with the session needs its CSRF token; without it nothing is sent or charged', async () => {
    const s = await login({ kind: 'customer', username: 'cora', password: PASSWORD });
    const before = await balance();
    const json = { to: '41790000001', content: 'from the console' };
    const forged = await request(gw.base, 'POST', '/secure/send', {
      json,
      headers: { cookie: s.cookie, origin: gw.base, 'sec-fetch-site': 'same-origin' },
    });
    expect(forged.status).toBe(403);
    expect(forged.body.detail.message).toMatch(/x-csrf-token/);
    const wrong = await request(gw.base, 'POST', '/secure/send', {
      json,
      headers: withSession({ ...s, csrf: 'x'.repeat(43) }),
    });
    expect(wrong.status).toBe(403);
    expect(await balance()).toBe(before);

    const sent = await request(gw.base, 'POST', '/secure/send', {
      json,
      headers: withSession(s, { origin: gw.base, 'sec-fetch-site': 'same-origin' }),
    });
    expect(sent.status).toBe(200);
    expect(await balance()).not.toBe(before);
  });

  it('refuses a request with the session from another site, even with the token', async () => {
    const s = await login({ kind: 'customer', username: 'cora', password: PASSWORD });
    const before = await balance();
    const reply = await request(gw.base, 'POST', '/secure/send', {
      json: { to: '41790000001', content: 'cross-site' },
      headers: withSession(s, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }),
    });
    expect(reply.status).toBe(403);
    const read = await request(gw.base, 'GET', '/secure/balance', {
      headers: withSession(s, { 'sec-fetch-site': 'cross-site' }),
    });
    expect(read.status).toBe(403);
    const crossLogin = await login(
      { kind: 'customer', username: 'cora', password: PASSWORD },
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
    );
    expect(crossLogin.reply.status).toBe(403);
    expect(crossLogin.cookie).toBe('');
    expect(await balance()).toBe(before);
  });

  it('refuses wrong logins with a clear 4xx and no cookie', async () => {
    for (const json of [
      { kind: 'customer', username: 'cora', password: 'wrong-password' },
      { kind: 'customer', username: 'nobody', password: PASSWORD },
      { kind: 'operator', token: 'not-a-token' },
      { kind: 'operator', token: `${ADMIN_TOKEN}x` },
    ]) {
      const s = await login(json);
      expect(s.reply.status).toBe(401);
      expect(s.cookie).toBe('');
    }
    for (const json of [{}, { kind: 'customer' }, { kind: 'root', token: 'x' }, 'text', []]) {
      const s = await login(json);
      expect(s.reply.status).toBe(400);
      expect(s.cookie).toBe('');
    }
    const noSession = await request(gw.base, 'GET', '/console/v1/session');
    expect(noSession.status).toBe(401);
    const forgedCookie = await request(gw.base, 'GET', '/secure/balance', {
      headers: { cookie: `smsgw_console=${'A'.repeat(43)}` },
    });
    expect(forgedCookie.status).toBe(401);
  });

  it('an operator logs in with an admin token; its scopes hold and the audit names the token', async () => {
    const made = await admin('POST', '/tokens', {
      name: 'support-desk',
      scopes: ['accounts:read', 'messages:read'],
    });
    expect(made.status).toBe(201);
    const s = await login({ kind: 'operator', token: made.body.data.token });
    expect(s.reply.status).toBe(201);
    expect(s.reply.body).toMatchObject({
      kind: 'operator',
      name: 'support-desk',
      scopes: ['accounts:read', 'messages:read'],
    });
    const list = await request(gw.base, 'GET', '/admin/v1/accounts', { headers: withSession(s) });
    expect(list.status).toBe(200);
    const credit = await request(gw.base, 'POST', '/admin/v1/accounts/cora/credit', {
      json: { amount: 5 },
      headers: withSession(s),
    });
    expect(credit.status).toBe(403);
    const noCsrf = await request(gw.base, 'POST', '/admin/v1/accounts/cora/credit', {
      json: { amount: 5 },
      headers: { cookie: s.cookie },
    });
    expect(noCsrf.status).toBe(403);
    const audit = await admin('GET', '/audit?actor=support-desk');
    expect(audit.status).toBe(200);
    expect(audit.body.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ actor: 'support-desk', status: 403 })]),
    );

    // Revoking the token ends its console sessions at their next request.
    expect((await admin('DELETE', '/tokens/support-desk')).status).toBe(200);
    const after = await request(gw.base, 'GET', '/admin/v1/accounts', { headers: withSession(s) });
    expect(after.status).toBe(401);
    const me = await request(gw.base, 'GET', '/console/v1/session', {
      headers: { cookie: s.cookie },
    });
    expect(me.status).toBe(401);
  });

  it('a logout ends the session on the server; a password change ends a customer session', async () => {
    const s = await login({ kind: 'customer', username: 'cora', password: PASSWORD });
    const noToken = await request(gw.base, 'DELETE', '/console/v1/session', {
      headers: { cookie: s.cookie },
    });
    expect(noToken.status).toBe(403);
    const out = await request(gw.base, 'DELETE', '/console/v1/session', {
      headers: withSession(s),
    });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/smsgw_console=;.*Max-Age=0/i);
    const reused = await request(gw.base, 'GET', '/secure/balance', {
      headers: { cookie: s.cookie },
    });
    expect(reused.status).toBe(401);

    const t = await login({ kind: 'customer', username: 'cora', password: PASSWORD });
    expect(
      (await request(gw.base, 'GET', '/secure/balance', { headers: { cookie: t.cookie } })).status,
    ).toBe(200);
    expect(
      (await admin('POST', '/accounts/cora/password', { password: 'console-pass-2' })).status,
    ).toBe(200);
    const stale = await request(gw.base, 'GET', '/secure/balance', {
      headers: { cookie: t.cookie },
    });
    expect(stale.status).toBe(401);
  });
});
