/**
 * Distributed mode: which credentials verified recently is kept in Redis, so a customer whose
 * name someone is guessing, behind an address others' failures filled, keeps logging in after
 * auth restarts (a rollout): the exemption is not one process's memory.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { freshCluster, type Cluster } from '../../support/distributed';
import { LoopbackClient } from '../../support/from-address';
import { request } from '../../support/http';
import { freePort, startService, type ServiceProcess } from '../../support/processes';
import { startRedis } from '../../support/redis-server';

const ADMIN_TOKEN = 'e2e-admin-token-0123456789';
const JWT_SECRET = 'e2e-jwt-secret-0123456789-0123456789-0123456789';
const PER_NAME = 4;
const PER_ADDRESS = 6;

describe('the login exemption of verified credentials survives an auth restart', () => {
  let cluster: Cluster;
  let redis: ChildProcess | undefined;
  let auth: ServiceProcess | undefined;
  let env: Record<string, string>;
  const clients: LoopbackClient[] = [];
  const from = (address: string) => {
    const client = new LoopbackClient(address);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    cluster = await freshCluster();
    // A Redis of this test's own: counters of earlier runs (same loopback addresses) stay out.
    const redisPort = await freePort();
    redis = await startRedis(redisPort);
    env = {
      ...cluster.env,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      LOGIN_FAILURES_PER_NAME: String(PER_NAME),
      LOGIN_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
      LOGIN_WINDOW_SECONDS: '300',
      ADMIN_TOKEN,
      JWT_SECRET,
    };
    auth = await startService('auth', env);
  }, 120_000);
  afterAll(async () => {
    for (const client of clients) client.close();
    await auth?.stop();
    redis?.kill('SIGKILL');
    await cluster?.drop();
  }, 60_000);

  it("keeps the customer's right secret working, and only where it verified", async () => {
    const owner = `owner-${randomBytes(3).toString('hex')}`;
    const created = await request(auth!.url, 'POST', '/admin/v1/accounts', {
      auth: `Bearer ${ADMIN_TOKEN}`,
      json: { username: owner, password: `${owner}-password` },
    });
    expect(created.status).toBe(201);
    const app = await request(auth!.url, 'POST', `/admin/v1/accounts/${owner}/applications`, {
      auth: `Bearer ${ADMIN_TOKEN}`,
      json: {},
    });
    expect(app.status).toBe(201);
    const login = (client: LoopbackClient, clientId: string, secret: string) =>
      client.send(`${auth!.url}/auth/v1/login/application`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: clientId, client_secret: secret }).toString(),
      });
    const customer = from('127.0.0.21');
    const attacker = from('127.0.0.22');
    expect((await login(customer, app.body.client_id, app.body.client_secret)).status).toBe(200);

    // A rollout: the replica that verified the customer is gone, a new one takes over.
    await auth!.stop();
    auth = await startService('auth', env);

    // Someone guesses the customer's secret, and others fill the customer's address.
    const guesses = [];
    for (let i = 0; i < PER_NAME + 2; i++)
      guesses.push((await login(attacker, app.body.client_id, `guess-${i}`)).status);
    expect(guesses.slice(PER_NAME).every((s) => s === 429)).toBe(true);
    const neighbours = [];
    for (let i = 0; i < PER_ADDRESS + 2; i++)
      neighbours.push((await login(customer, `nobody-${i}`, 'guess')).status);
    expect(neighbours.slice(PER_ADDRESS).every((s) => s === 429)).toBe(true);

    const answer = await login(customer, app.body.client_id, app.body.client_secret);
    expect({ status: answer.status, code: answer.body?.detail?.code }).toEqual({
      status: 200,
      code: undefined,
    });
    // From the guesser's address the right secret is refused like the wrong ones.
    expect((await login(attacker, app.body.client_id, app.body.client_secret)).status).toBe(429);
  }, 120_000);
});
