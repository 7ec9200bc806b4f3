/**
 * Every HTTP route of every distributed-mode service (auth with its internal credential check,
 * api-gateway, dispatcher, batch-scheduler, callback-notifier: health, readiness and metrics on
 * each), read from the routers, given generated requests of every content type with hostile
 * fields and path parameters, fewer than the embedded fuzz (admin-fuzz.test.ts) sends. None may
 * get a 5xx or go unanswered, and every service is healthy and ready after, and still serves.
 * The inbound upstream route has its own fuzz. The seed is fixed; FUZZ_SEED picks another.
 */
import fc from 'fast-check';
import { SmppSimulator } from '@smsgw/smsc';
import type { ServiceProcess } from '@smsgw/kit/testing';
import { E2E_ADMIN_TOKEN, E2E_JWT_SECRET, useDistributedRun } from '../../support/distributed';
import { basic, request } from '../../support/http';
import {
  COVERED_ELSEWHERE,
  FIXTURE,
  describeRequest,
  inPool,
  requestsFor,
  send,
} from '../../support/route-fuzz';
import { distributedRoutes } from '../../support/served-routes';

const SEED = Number(process.env['FUZZ_SEED'] ?? 20240611);
const PER_ROUTE_AND_TYPE = 1;
const CONCURRENCY = 6;

const admin = `Bearer ${E2E_ADMIN_TOKEN}`;
/** Its balance pays for less than one SMS: its sends are checked in full, then refused for credit. */
const customer = basic('client', 'client-password');

describe('every route of every distributed service', () => {
  const run = useDistributedRun();
  const services: Record<string, ServiceProcess> = {};

  beforeAll(async () => {
    const sim = new SmppSimulator({ host: '127.0.0.1', port: 0 });
    run.simulators.push(sim);
    const { port } = await sim.start();
    services['auth'] = await run.start('auth', {
      ADMIN_TOKEN: E2E_ADMIN_TOKEN,
      JWT_SECRET: E2E_JWT_SECRET,
      // Wrong credentials by the hundred come from one address here; that limit has its own tests.
      LOGIN_FAILURES_PER_ADDRESS: '1000000',
    });
    const [gateway, dispatcher, scheduler, notifier] = await Promise.all([
      run.start('api-gateway', { AUTH_URL: services['auth'].url }),
      run.start('dispatcher', { SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}` }),
      run.start('batch-scheduler'),
      run.start('callback-notifier'),
    ]);
    Object.assign(services, {
      'api-gateway': gateway,
      dispatcher,
      'batch-scheduler': scheduler,
      'callback-notifier': notifier,
    });
    for (const [username, balance] of [
      ['client', '0.5'],
      ['poor', '0.5'],
    ]) {
      const created = await request(services['auth'].url, 'POST', '/admin/v1/accounts', {
        auth: admin,
        json: { username, password: `${username}-password`, balance, rate: '1' },
      });
      expect(created.status).toBe(201);
    }
    const app = await request(
      services['auth'].url,
      'POST',
      '/admin/v1/accounts/poor/applications',
      { auth: admin, json: {} },
    );
    FIXTURE.clientId = app.body.client_id;
  }, 180_000);

  it('answers generated requests to each without a 5xx or a hang, and every service stays ready', async () => {
    const routes = distributedRoutes();
    expect(Object.keys(routes).sort()).toEqual(Object.keys(services).sort());
    const requests = Object.entries(routes).flatMap(([service, served]) =>
      served
        .filter((route) => !COVERED_ELSEWHERE.includes(route))
        .flatMap((route, i) =>
          requestsFor(route, SEED + i * 100, { admin, customer }, PER_ROUTE_AND_TYPE).map((r) => ({
            service,
            r,
          })),
        ),
    );
    const shuffled = fc.sample(fc.shuffledSubarray(requests, { minLength: requests.length }), {
      numRuns: 1,
      seed: SEED,
    })[0];
    const failures: string[] = [];
    await inPool(shuffled, CONCURRENCY, async ({ service, r }) => {
      try {
        const status = await send(services[service].url, r);
        if (status >= 500) failures.push(`${service}: ${status} for ${describeRequest(r)}`);
      } catch (err) {
        failures.push(`${service}: ${(err as Error).message} for ${describeRequest(r)}`);
      }
    });
    expect({ seed: SEED, failures: failures.slice(0, 20), count: failures.length }).toEqual({
      seed: SEED,
      failures: [],
      count: 0,
    });
    expect(requests.length).toBeGreaterThan(500);

    for (const [name, service] of Object.entries(services)) {
      const health = await request(service.url, 'GET', '/healthz');
      const ready = await request(service.url, 'GET', '/readyz');
      expect({ name, health: health.status, ready: ready.status }).toEqual({
        name,
        health: 200,
        ready: 200,
      });
    }
    // And it still serves: an account made now sends.
    const created = await request(services['auth'].url, 'POST', '/admin/v1/accounts', {
      auth: admin,
      json: { username: 'after-fuzz', password: 'after-fuzz-password', balance: '10', rate: '1' },
    });
    expect(created.status).toBe(201);
    const sent = await request(services['api-gateway'].url, 'POST', '/secure/send', {
      auth: basic('after-fuzz', 'after-fuzz-password'),
      json: { to: '41790000009', content: 'still here' },
    });
    expect(sent.status).toBe(200);
  }, 600_000);
});
