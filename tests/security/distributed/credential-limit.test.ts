/**
 * Distributed mode: two auth replicas, each behind its own gateway, count failed logins in one
 * Redis, so a guesser gains nothing by spreading guesses over replicas. The gateways pass the
 * client's address on, so the address limit counts clients, not gateways.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { freshCluster, type Cluster } from '../../support/distributed';
import { LoopbackClient, type Timed } from '../../support/from-address';
import { basic, request } from '../../support/http';
import { freePort, startService, type ServiceProcess } from '../../support/processes';
import { startRedis } from '../../support/redis-server';

const ADMIN_TOKEN = 'e2e-admin-token-0123456789';
const JWT_SECRET = 'e2e-jwt-secret-0123456789-0123456789-0123456789';
const PER_NAME = 4;
const PER_ADDRESS = 6;

function expectRateLimited(answer: Timed): void {
  expect({ status: answer.status, code: answer.body?.detail?.code }).toEqual({
    status: 429,
    code: 'RATE_LIMITED',
  });
  expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
}

describe('failed logins are limited across auth replicas through Redis', () => {
  let cluster: Cluster;
  let redis: ChildProcess | undefined;
  const running: ServiceProcess[] = [];
  let auths: ServiceProcess[];
  let gateways: ServiceProcess[];
  const clients: LoopbackClient[] = [];
  const from = (address: string) => {
    const client = new LoopbackClient(address);
    clients.push(client);
    return client;
  };
  const run = `${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    cluster = await freshCluster();
    // A Redis of this test's own: counters of earlier runs (same loopback addresses) stay out.
    const redisPort = await freePort();
    redis = await startRedis(redisPort);
    const env = {
      ...cluster.env,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      LOGIN_FAILURES_PER_NAME: String(PER_NAME),
      LOGIN_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
      LOGIN_WINDOW_SECONDS: '300',
    };
    auths = [];
    gateways = [];
    for (let i = 0; i < 2; i++) {
      const auth = await startService('auth', { ...env, ADMIN_TOKEN, JWT_SECRET });
      running.push(auth);
      auths.push(auth);
      const gateway = await startService('api-gateway', { ...env, AUTH_URL: auth.url });
      running.push(gateway);
      gateways.push(gateway);
    }
    for (const username of [`guessed-${run}`, `customer-${run}`, `owner-${run}`]) {
      const created = await request(auths[0].url, 'POST', '/admin/v1/accounts', {
        auth: `Bearer ${ADMIN_TOKEN}`,
        json: { username, password: `${username}-password` },
      });
      expect(created.status).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    for (const client of clients) client.close();
    await Promise.all(running.map((s) => s.stop()));
    redis?.kill('SIGKILL');
    await cluster?.drop();
  }, 60_000);

  it('counts wrong Basic passwords for one name over both replicas', async () => {
    const attacker = from('127.0.0.2');
    const guess = (gateway: ServiceProcess, i: number) =>
      attacker.send(`${gateway.url}/secure/balance`, {
        headers: { authorization: basic(`guessed-${run}`, `guess-${i}`) },
      });
    for (let i = 0; i < PER_NAME; i++) expect((await guess(gateways[i % 2], i)).status).toBe(401);
    expectRateLimited(await guess(gateways[0], 100));
    expectRateLimited(await guess(gateways[1], 101));

    // Another customer, from another address, is served by both.
    const customer = from('127.0.0.9');
    for (const gateway of gateways) {
      const answer = await customer.send(`${gateway.url}/secure/balance`, {
        headers: { authorization: basic(`customer-${run}`, `customer-${run}-password`) },
      });
      expect(answer.status).toBe(200);
    }
  });

  it('counts wrong client secrets on the token endpoint over both replicas', async () => {
    const app = await request(
      auths[1].url,
      'POST',
      `/admin/v1/accounts/owner-${run}/applications`,
      {
        auth: `Bearer ${ADMIN_TOKEN}`,
        json: {},
      },
    );
    expect(app.status).toBe(201);
    const client = from('127.0.0.5');
    const login = (auth: ServiceProcess, secret: string) =>
      client.send(`${auth.url}/auth/v1/login/application`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: app.body.client_id,
          client_secret: secret,
        }).toString(),
      });
    for (let i = 0; i < PER_NAME; i++)
      expect((await login(auths[i % 2], `wrong-${i}`)).status).toBe(401);
    expectRateLimited(await login(auths[0], 'wrong-again'));
    expectRateLimited(await login(auths[1], 'wrong-again'));
  });

  it('counts per client address, as the gateways pass it on, over both replicas', async () => {
    const sprayer = from('127.0.0.3');
    const spray = (gateway: ServiceProcess, i: number) =>
      sprayer.send(`${gateway.url}/secure/balance`, {
        headers: { authorization: basic(`nobody-${run}-${i}`, 'guess') },
      });
    for (let i = 0; i < PER_ADDRESS; i++)
      expect((await spray(gateways[i % 2], i)).status).toBe(401);
    expectRateLimited(await spray(gateways[0], 100));
    expectRateLimited(await spray(gateways[1], 101));
    // The gateways' own address is not what was limited: another client is still checked.
    const other = await from('127.0.0.4').send(`${gateways[0].url}/secure/balance`, {
      headers: { authorization: basic(`nobody-${run}-other`, 'guess') },
    });
    expect(other.status).toBe(401);
  });
});
