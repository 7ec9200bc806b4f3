/**
 * Every route of embedded mode (the admin API, auth's token endpoint, the customer API, the API
 * document, health, readiness and metrics), read from the express routers so a new route cannot
 * escape, given generated requests: each route with every content type (JSON, urlencoded,
 * multipart, text/plain, none, another charset, gzip, bytes), bodies and queries shaped like its
 * schema with hostile values of every type in every field, and hostile path parameters. None may
 * get a 5xx or go unanswered; the gateway stays healthy and usable; and a state no accepted
 * request was about (an account, the connectors, routes, MO routes, admin tokens) is as it was,
 * so no refused request changed anything. The inbound upstream route has its own fuzz
 * (inbound-fuzz.test.ts). The seed is fixed so a failure reproduces; FUZZ_SEED picks another.
 */
import fc from 'fast-check';
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';
import {
  COVERED_ELSEWHERE,
  FIXTURE,
  SPECS,
  describeRequest,
  inPool,
  requestsFor,
  send,
  type FuzzRequest,
} from '../support/route-fuzz';
import { distributedRoutes, embeddedRoutes } from '../support/served-routes';

const SEED = Number(process.env['FUZZ_SEED'] ?? 20240611);
/** Requests per route and content type; with wrong methods and hostile paths, about 2,000 in all. */
const PER_ROUTE_AND_TYPE = 5;
const CONCURRENCY = 8;

const admin = `Bearer ${ADMIN_TOKEN}`;
/** Its balance pays for less than one SMS: its sends are checked in full, then refused for credit. */
const customer = basic('client', 'client-password');

/** Which part of an account a request under it is about (the rest changes account and balance). */
const ACCOUNT_PARTS: Record<string, string> = {
  senders: 'senders',
  optouts: 'optouts',
  'optout-words': 'words',
  'callback-secret': 'secret',
  applications: 'applications',
};

/** What a request is about, for telling which states an accepted request may have changed. */
function subjectOf(r: FuzzRequest): string | undefined {
  const segments = r.path.split('?')[0].split('/');
  if (r.path.startsWith('/admin/v1/accounts/'))
    return `account:${segments[4]}:${ACCOUNT_PARTS[segments[5]] ?? 'view'}`;
  if (r.path.startsWith('/admin/v1/accounts')) {
    const username = (r.body as { username?: unknown } | undefined)?.username;
    return `account:${typeof username === 'string' ? username : '?'}:view`;
  }
  if (r.path.startsWith('/admin/v1/')) return segments[3];
  if (r.path.startsWith('/secure/'))
    return `account:client:${ACCOUNT_PARTS[segments[2]] ?? 'view'}`;
  return undefined;
}

let sim: SmppSimulator;
let gw: RunningGateway;

const adminGet = async (path: string) => {
  const reply = await request(gw.base, 'GET', path, { auth: admin });
  return { status: reply.status, body: reply.body as unknown };
};

/** Each state that an accepted request could change, by what such a request is about. */
async function states(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const name of ['poor', 'bystander', 'nobody', 'client']) {
    out[`account:${name}:view`] = await adminGet(`/admin/v1/accounts/${name}`);
    out[`account:${name}:senders`] = await adminGet(`/admin/v1/accounts/${name}/senders`);
    out[`account:${name}:optouts`] = await adminGet(`/admin/v1/accounts/${name}/optouts`);
    out[`account:${name}:words`] = await adminGet(`/admin/v1/accounts/${name}/optout-words`);
    out[`account:${name}:secret`] = await adminGet(`/admin/v1/accounts/${name}/callback-secret`);
  }
  const connectors = (await adminGet('/admin/v1/connectors')) as {
    body: { data?: Array<Record<string, unknown>> };
  };
  // What the operator set, not the sessions' live status.
  out['connectors'] = connectors.body.data?.map((c) => [
    c.name,
    c.url,
    c.binds,
    c.bind,
    c.desiredState,
  ]);
  out['routes'] = await adminGet('/admin/v1/routes');
  out['mo-routes'] = await adminGet('/admin/v1/mo-routes');
  out['tokens'] = await adminGet('/admin/v1/tokens');
  return out;
}

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0 });
  const { port } = await sim.start();
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
    MAX_BODY_BYTES: '65536',
    // Wrong credentials by the hundred come from one address here; that limit has its own tests.
    LOGIN_FAILURES_PER_ADDRESS: '1000000',
  });
  for (const [username, balance] of [
    ['poor', '0.5'],
    ['bystander', '10'],
    ['client', '0.5'],
  ]) {
    const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
      auth: admin,
      json: { username, password: `${username}-password`, balance, rate: '1' },
    });
    expect(created.status).toBe(201);
  }
  const app = await request(gw.base, 'POST', '/admin/v1/accounts/poor/applications', {
    auth: admin,
    json: { name: 'fuzz' },
  });
  FIXTURE.clientId = app.body.client_id;
  const made = [
    await request(gw.base, 'POST', '/admin/v1/connectors', {
      auth: admin,
      json: { name: FIXTURE.connector, url: `smpp://gw:pw@127.0.0.1:${port}` },
    }),
    await request(gw.base, 'PUT', `/admin/v1/routes/${FIXTURE.route}`, {
      auth: admin,
      json: {
        position: 500_000,
        kind: 'static',
        connectors: [{ connector: FIXTURE.connector }],
        filters: { prefixes: ['999'] },
      },
    }),
    await request(gw.base, 'PUT', `/admin/v1/mo-routes/${FIXTURE.moRoute}`, {
      auth: admin,
      json: { position: 500_000, to: '999', account: 'bystander' },
    }),
  ];
  expect(made.map((r) => r.status)).toEqual([201, 200, 200]);
}, 120_000);

afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
});

it('knows every route the services serve (a new one needs its schemas here)', () => {
  const served = embeddedRoutes().filter((r) => !COVERED_ELSEWHERE.includes(r));
  expect(served.filter((r) => !(r in SPECS))).toEqual([]);
  // And no route is described that no service serves any more.
  const anywhere = new Set([...served, ...Object.values(distributedRoutes()).flat()]);
  expect(Object.keys(SPECS).filter((r) => !anywhere.has(r))).toEqual([]);
});

it('answers generated requests to every route, with every content type, without a 5xx or a hang, changing only what an accepted request was about', async () => {
  const routes = embeddedRoutes().filter((r) => !COVERED_ELSEWHERE.includes(r));
  const requests = routes.flatMap((route, i) =>
    requestsFor(route, SEED + i * 100, { admin, customer }, PER_ROUTE_AND_TYPE),
  );
  // Interleaved, so that requests to one route do not all meet the same moment.
  const shuffled = fc.sample(fc.shuffledSubarray(requests, { minLength: requests.length }), {
    numRuns: 1,
    seed: SEED,
  })[0];

  const before = await states();
  const failures: string[] = [];
  const accepted = new Set<string>();
  const refused = new Map<string, number>();
  await inPool(shuffled, CONCURRENCY, async (r) => {
    try {
      const status = await send(gw.base, r);
      if (status >= 500) failures.push(`${status} for ${describeRequest(r)}`);
      const subject = subjectOf(r);
      if (subject === undefined || ['GET', 'HEAD', 'OPTIONS'].includes(r.method)) return;
      if (status >= 200 && status < 300) accepted.add(subject);
      else if (status >= 400) refused.set(subject, (refused.get(subject) ?? 0) + 1);
    } catch (err) {
      failures.push(`${(err as Error).message} for ${describeRequest(r)}`);
    }
  });

  expect({ seed: SEED, failures: failures.slice(0, 20), count: failures.length }).toEqual({
    seed: SEED,
    failures: [],
    count: 0,
  });
  expect(requests.length).toBeGreaterThan(1000);

  const after = await states();
  const untouched = Object.keys(before).filter((subject) => !accepted.has(subject));
  expect(Object.fromEntries(untouched.map((s) => [s, after[s]]))).toEqual(
    Object.fromEntries(untouched.map((s) => [s, before[s]])),
  );
  // Not vacuous: states that only refused requests were about, by the dozen, are among them.
  const refusedOnly = untouched.filter((s) => (refused.get(s) ?? 0) >= 10);
  expect(refusedOnly.length).toBeGreaterThanOrEqual(5);

  expect((await request(gw.base, 'GET', '/healthz')).status).toBe(200);
  expect((await request(gw.base, 'GET', '/readyz')).status).toBe(200);
  // And it still works: an account made now sends. The MT routes the fuzz left (accepted
  // changes, in an order the pool decides) are removed first, so that its message goes by the
  // default connector rather than meet a route table that takes no 4179….
  const left = await adminGet('/admin/v1/routes');
  for (const route of (left.body as { data: { name: string }[] }).data)
    expect(
      (
        await request(gw.base, 'DELETE', `/admin/v1/routes/${encodeURIComponent(route.name)}`, {
          auth: admin,
        })
      ).status,
    ).toBe(200);
  const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
    auth: admin,
    json: { username: 'after-fuzz', password: 'after-fuzz-password', balance: '10', rate: '1' },
  });
  expect(created.status).toBe(201);
  // The gateway reloads its routes within its refresh period: its price says when it has.
  await waitFor(
    async () => {
      const rate = await request(gw.base, 'POST', '/secure/rate', {
        auth: basic('after-fuzz', 'after-fuzz-password'),
        json: { to: '41790000009', content: 'still here' },
      });
      return rate.status === 200 ? true : undefined;
    },
    15_000,
    'the gateway routes 4179… again',
    100,
  );
  const sent = await request(gw.base, 'POST', '/secure/send', {
    auth: basic('after-fuzz', 'after-fuzz-password'),
    json: { to: '41790000009', content: 'still here' },
  });
  expect(sent.status).toBe(200);
}, 600_000);

it("refuses the review's strings in every number field of account and credit bodies with a 4xx, whatever the content type", async () => {
  const bodies: Array<[string, Record<string, unknown>, string[]]> = [
    [
      '/admin/v1/accounts',
      { username: 'fresh', password: 'long-enough' },
      ['balance', 'sms_count', 'rate', 'throughput'],
    ],
    ['/admin/v1/accounts/poor/credit', { amount: '1' }, ['amount', 'sms_count']],
  ];
  const answers: string[] = [];
  for (const [path, valid, fields] of bodies)
    for (const field of fields)
      for (const value of ['abc', '%00', '9999-12-31 23:59:59'])
        for (const encoding of ['json', 'urlencoded', 'text', 'none', 'gzip'] as const) {
          const status = await send(gw.base, {
            route: `POST ${path}`,
            method: 'POST',
            path,
            encoding,
            body: { ...valid, [field]: value },
            bytes: new Uint8Array(),
            auth: admin,
          });
          if (status < 400 || status >= 500)
            answers.push(`${status} ${path} ${field}=${value} as ${encoding}`);
        }
  expect(answers).toEqual([]);
  expect((await adminGet('/admin/v1/accounts/fresh')).status).toBe(404);
});
