/**
 * Password guessing against embedded mode, black-box: a flood of wrong passwords meets 429 after
 * the configured number of failures, and customers (cached or not) keep being served meanwhile.
 */
import { waitFor } from '@smsgw/kit/testing';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';
import { LoopbackClient, percentile, type Timed } from '../support/from-address';
import { parseExposition } from '../support/metrics-doc';

const FLOOD_REQUESTS = 2000;
const FLOOD_CONNECTIONS = 100;
const PER_NAME = 10;
const PER_ADDRESS = 40;

let gw: RunningGateway;
const admin = `Bearer ${ADMIN_TOKEN}`;

async function createAccount(username: string): Promise<void> {
  const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
    auth: admin,
    json: { username, password: `${username}-password` },
  });
  expect(created.status).toBe(201);
}

beforeAll(async () => {
  gw = await startEmbedded({
    LOGIN_FAILURES_PER_NAME: String(PER_NAME),
    LOGIN_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
    LOGIN_WINDOW_SECONDS: '600',
  });
  for (const name of ['customer', 'newcomer', 'app-owner']) await createAccount(name);
}, 60_000);
afterAll(async () => {
  await gw?.stop();
});

/**
 * `count` requests over `connections` connections from one address; every answer, also in
 * `answers` as they come.
 */
async function flood(
  client: LoopbackClient,
  count: number,
  connections: number,
  next: (i: number) => { path: string; authorization: string },
  answers: Timed[] = [],
): Promise<Timed[]> {
  let sent = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (sent < count) {
        const { path, authorization } = next(sent++);
        answers.push(await client.send(`${gw.base}${path}`, { headers: { authorization } }));
      }
    }),
  );
  return answers;
}

function expectRateLimited(answer: Timed): void {
  expect(answer.status).toBe(429);
  expect(answer.body?.detail?.code).toBe('RATE_LIMITED');
  expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
  expect(Number(answer.headers['retry-after'])).toBeLessThanOrEqual(600);
}

describe('a flood of wrong Basic passwords', () => {
  it('is answered 429 with Retry-After after the limit, while customers get no error', async () => {
    const attacker = new LoopbackClient('127.0.0.1', FLOOD_CONNECTIONS);
    const customerClient = new LoopbackClient('127.0.0.2');
    const customer = basic('customer', 'customer-password');
    const balance = `${gw.base}/secure/balance`;
    expect(
      (await customerClient.send(balance, { headers: { authorization: customer } })).status,
    ).toBe(200);

    let flooding = true;
    const customerAnswers: Timed[] = [];
    const customerLoop = (async () => {
      for (let i = 0; i < 100_000 && flooding; i++)
        customerAnswers.push(
          await customerClient.send(balance, { headers: { authorization: customer } }),
        );
    })();
    const flooded: Timed[] = [];
    const guessing = flood(
      attacker,
      FLOOD_REQUESTS,
      FLOOD_CONNECTIONS,
      (i) => ({
        path: '/secure/balance',
        // The worst case: guesses at the very account that keeps sending.
        authorization: basic('customer', `guess-${i}`),
      }),
      flooded,
    );
    // A customer never seen before starts while the flood runs, from its own address: once the
    // flood is being refused, with most of its requests still to come.
    await waitFor(
      () => (flooded.some((a) => a.status === 429) ? true : undefined),
      30_000,
      'the flood refused',
      5,
    );
    const newcomer = await new LoopbackClient('127.0.0.3').send(balance, {
      headers: { authorization: basic('newcomer', 'newcomer-password') },
    });
    const answers = await guessing;
    flooding = false;
    await customerLoop;
    attacker.close();
    customerClient.close();

    const statuses: Record<number, number> = {};
    for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    expect(answers).toHaveLength(FLOOD_REQUESTS);
    // Only the configured number of guesses was ever checked; everything else was refused.
    expect(statuses[401]).toBe(PER_NAME);
    expect(statuses[429]).toBe(FLOOD_REQUESTS - PER_NAME);
    for (const a of answers.filter((x) => x.status === 429)) expectRateLimited(a);

    expect(newcomer.status).toBe(200);
    const customerStatuses = new Set(customerAnswers.map((a) => a.status));
    expect([...customerStatuses]).toEqual([200]);
    const p99 = percentile(
      customerAnswers.map((a) => a.ms),
      99,
    );
    process.stdout.write(
      `credential flood: ${JSON.stringify(statuses)}; customer ${customerAnswers.length} requests, p99 ${p99.toFixed(1)} ms; newcomer's first ${newcomer.ms.toFixed(0)} ms\n`,
    );
    // The times are printed, not asserted: they move with the machine. What bounds them is
    // asserted above: only PER_NAME guesses reached a key derivation (the 401s), and the customer
    // and the newcomer were never refused.
  }, 120_000);

  it('limits an address that tries many names, and leaves other addresses alone', async () => {
    // Fewer connections than the KDF gate holds, so every answer is the throttle's (no 503).
    const attacker = new LoopbackClient('127.0.0.5', 10);
    const answers = await flood(attacker, PER_ADDRESS + 50, 10, (i) => ({
      path: '/secure/balance',
      authorization: basic(`nobody-${i}`, 'guess'),
    }));
    attacker.close();
    expect(answers.filter((a) => a.status === 401)).toHaveLength(PER_ADDRESS);
    for (const a of answers.filter((x) => x.status !== 401)) expectRateLimited(a);
    const other = await new LoopbackClient('127.0.0.6').send(`${gw.base}/secure/balance`, {
      headers: { authorization: basic('nobody-x', 'guess') },
    });
    expect(other.status).toBe(401);
  }, 60_000);

  it('counts wrong client secrets on the token endpoint the same way', async () => {
    const app = await request(gw.base, 'POST', '/admin/v1/accounts/app-owner/applications', {
      auth: admin,
      json: { name: 'ci' },
    });
    expect(app.status).toBe(201);
    const client = new LoopbackClient('127.0.0.7');
    const login = (secret: string) =>
      client.send(`${gw.base}/auth/v1/login/application`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: app.body.client_id,
          client_secret: secret,
        }).toString(),
      });
    for (let i = 0; i < PER_NAME; i++) expect((await login(`wrong-${i}`)).status).toBe(401);
    expectRateLimited(await login('wrong-again'));
    client.close();
  });

  it('counts what it refused in smsgw_auth_login_throttled_total', async () => {
    const scrape = parseExposition((await request(gw.base, 'GET', '/metrics')).text);
    const value = (reason: string) =>
      scrape.samples.find(
        (s) => s.name === 'smsgw_auth_login_throttled_total' && s.labels['reason'] === reason,
      )?.value ?? 0;
    expect(value('name')).toBeGreaterThanOrEqual(FLOOD_REQUESTS - PER_NAME);
    expect(value('address')).toBeGreaterThanOrEqual(50);
  });
});
