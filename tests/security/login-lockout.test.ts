/**
 * Lockouts behind a proxy, black-box in embedded mode: others' failed logins must not lock out a
 * customer whose credentials verified before, whether every client shares the proxy's address
 * (TRUSTED_PROXIES unset) or the proxy names each client (TRUSTED_PROXIES set, X-Forwarded-For);
 * IPv6 clients are counted by their /64; and the token endpoint answers an unknown client_id as
 * its specification does, after the same key derivation a wrong secret costs.
 */
import { waitFor } from '@smsgw/kit/testing';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request, type Reply } from '../support/http';

const admin = `Bearer ${ADMIN_TOKEN}`;

async function createAccount(gw: RunningGateway, username: string): Promise<string> {
  const password = `${username}-password`;
  const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
    auth: admin,
    json: { username, password },
  });
  expect(created.status).toBe(201);
  return basic(username, password);
}

async function createApplication(
  gw: RunningGateway,
  username: string,
): Promise<{ client_id: string; client_secret: string }> {
  await createAccount(gw, username);
  const app = await request(gw.base, 'POST', `/admin/v1/accounts/${username}/applications`, {
    auth: admin,
    json: { name: 'billing' },
  });
  expect(app.status).toBe(201);
  return { client_id: app.body.client_id, client_secret: app.body.client_secret };
}

function token(
  gw: RunningGateway,
  fields: { client_id: string; client_secret: string },
  forwardedFor?: string,
): Promise<Reply> {
  return request(gw.base, 'POST', '/auth/v1/login/application', {
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
    },
    body: new URLSearchParams(fields).toString(),
  });
}

function balance(gw: RunningGateway, authorization: string, forwardedFor?: string) {
  return request(gw.base, 'GET', '/secure/balance', {
    auth: authorization,
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
  });
}

/** `count` wrong Basic logins by names nobody has, one after the other; their statuses. */
async function wrongLogins(
  gw: RunningGateway,
  count: number,
  from: (i: number) => string | undefined,
  tag: string,
): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++)
    statuses.push((await balance(gw, basic(`${tag}-${i}`, 'guess'), from(i))).status);
  return statuses;
}

describe('every client on the proxy address (TRUSTED_PROXIES unset)', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    // The shipped limits, as the review met them.
    gw = await startEmbedded({
      LOGIN_FAILURES_PER_NAME: '10',
      LOGIN_FAILURES_PER_ADDRESS: '100',
      LOGIN_WINDOW_SECONDS: '900',
    });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
  });

  it('keeps serving customers who verified before after 120 wrong logins by other names', async () => {
    const alice = await createAccount(gw, 'alice');
    const bobApp = await createApplication(gw, 'bob');
    expect((await balance(gw, alice)).status).toBe(200);
    expect((await token(gw, bobApp)).status).toBe(200);

    const statuses = await wrongLogins(gw, 120, () => undefined, 'stranger');
    expect(statuses.filter((s) => s === 401)).toHaveLength(100);
    expect(statuses.slice(100).every((s) => s === 429)).toBe(true);

    // alice's cached answer is dropped, as it is a minute later or after any change to her
    // account: her next request is checked again, behind the address that others filled.
    for (const step of ['disable', 'enable'])
      expect(
        (await request(gw.base, 'POST', `/admin/v1/accounts/alice/${step}`, { auth: admin }))
          .status,
      ).toBe(200);
    const answer = await waitFor(
      async () => {
        const reply = await balance(gw, alice);
        return reply.status === 403 ? undefined : reply;
      },
      10_000,
      "alice's account enabled again",
    );
    expect({ status: answer.status, body: answer.body?.detail }).toEqual({
      status: 200,
      body: undefined,
    });
    expect((await token(gw, bobApp)).status).toBe(200);

    // The address limit still holds for credentials that did not verify before.
    const carol = await createAccount(gw, 'carol');
    expect((await balance(gw, carol)).status).toBe(429);
  }, 120_000);
});

describe('behind a trusted proxy that names each client (TRUSTED_PROXIES=127.0.0.1)', () => {
  let gw: RunningGateway;
  const PER_ADDRESS = 20;
  beforeAll(async () => {
    gw = await startEmbedded({
      TRUSTED_PROXIES: '127.0.0.1',
      LOGIN_FAILURES_PER_NAME: '10',
      LOGIN_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
      LOGIN_WINDOW_SECONDS: '900',
    });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
  });

  it("counts each client's failures against that client only", async () => {
    const dana = await createAccount(gw, 'dana');
    // Many clients, each with a few failures: none is held back.
    const spread = await wrongLogins(gw, 60, (i) => `198.51.100.${1 + (i % 30)}`, 'many');
    expect(spread.every((s) => s === 401)).toBe(true);
    // One client with many failures is limited, and only that client.
    const heavy = await wrongLogins(gw, PER_ADDRESS + 5, () => '198.51.100.200', 'heavy');
    expect(heavy.filter((s) => s === 401)).toHaveLength(PER_ADDRESS);
    expect(heavy.slice(PER_ADDRESS).every((s) => s === 429)).toBe(true);
    expect((await balance(gw, basic('someone', 'guess'), '::ffff:198.51.100.200')).status).toBe(
      429,
    );
    expect((await balance(gw, dana, '198.51.100.201')).status).toBe(200);
  }, 120_000);

  it('lets a customer who verified before through an address others behind one NAT filled', async () => {
    const erinApp = await createApplication(gw, 'erin');
    const nat = '203.0.113.10';
    expect((await token(gw, erinApp, nat)).status).toBe(200);
    const statuses = await wrongLogins(gw, PER_ADDRESS + 5, () => nat, 'nat');
    expect(statuses.slice(PER_ADDRESS).every((s) => s === 429)).toBe(true);
    expect((await token(gw, erinApp, nat)).status).toBe(200);
    // A customer of that NAT who never verified waits for the window, as a guesser does.
    const frank = await createAccount(gw, 'frank');
    expect((await balance(gw, frank, nat)).status).toBe(429);
  }, 120_000);

  it('counts an IPv6 client by its /64, so it cannot spread its guesses over its prefix', async () => {
    const statuses = await wrongLogins(
      gw,
      PER_ADDRESS + 5,
      (i) => `2001:db8:5:6:${(i + 1).toString(16)}::1`,
      'six',
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(PER_ADDRESS);
    expect(statuses.slice(PER_ADDRESS).every((s) => s === 429)).toBe(true);
    // The next /64 is another client.
    expect((await balance(gw, basic('six-x', 'guess'), '2001:db8:5:7::1')).status).toBe(401);
  }, 120_000);
});

describe('the token endpoint answers an unknown client_id as the specification does', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startEmbedded({ TRUSTED_PROXIES: '127.0.0.1' });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
  });

  it('answers an unknown client_id 404 and a wrong secret 401, in about the same time', async () => {
    const app = await createApplication(gw, 'grace');
    const timed = async (fields: { client_id: string; client_secret: string }, from: string) => {
      const started = performance.now();
      const reply = await token(gw, fields, from);
      return { reply, ms: performance.now() - started };
    };
    const wrong: Array<{ reply: Reply; ms: number }> = [];
    const unknown: Array<{ reply: Reply; ms: number }> = [];
    for (let i = 0; i < 5; i++) {
      wrong.push(await timed({ ...app, client_secret: `wrong-${i}` }, `192.0.2.${i + 1}`));
      unknown.push(
        await timed(
          { client_id: `unknown-${i}-${app.client_id}`, client_secret: `wrong-${i}` },
          `192.0.2.${i + 101}`,
        ),
      );
    }
    const answer = ({ reply }: { reply: Reply }) => ({ status: reply.status, body: reply.body });
    for (const x of unknown)
      expect(answer(x)).toEqual({
        status: 404,
        body: { detail: { code: 'APPLICATION_NOT_EXISTS', message: 'Application not exists' } },
      });
    for (const x of wrong)
      expect(answer(x)).toEqual({
        status: 401,
        body: { detail: { code: 'UNAUTHORIZED', message: 'Wrong client_id or client_secret' } },
      });
    // Both pay a key derivation: neither is several times faster than the other.
    const median = (xs: Array<{ ms: number }>) => xs.map((x) => x.ms).sort((a, b) => a - b)[2];
    const ratio = median(unknown) / median(wrong);
    process.stdout.write(
      `token endpoint: wrong secret ${median(wrong).toFixed(1)} ms, unknown client_id ${median(unknown).toFixed(1)} ms\n`,
    );
    expect(ratio).toBeGreaterThan(1 / 3);
    expect(ratio).toBeLessThan(3);
  }, 60_000);
});
