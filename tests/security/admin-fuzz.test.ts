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
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import * as contracts from '@smsgw/contracts';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';
import { hostileSegment, hostileValue, isSchema, shapedInput } from '../support/hostile-input';
import { embeddedRoutes } from '../support/served-routes';

const SEED = Number(process.env['FUZZ_SEED'] ?? 20240611);
/** Requests per route and content type; with wrong methods and hostile paths, about 2,000 in all. */
const PER_ROUTE_AND_TYPE = 5;
const CONCURRENCY = 8;
/** Generous: a request still unanswered by then is a hang, not a slow answer. */
const ANSWER_WITHIN_MS = 20_000;

/** Covered by inbound-fuzz.test.ts, with the upstream's own credentials and fields. */
const COVERED_ELSEWHERE = ['POST /inbound/v1/http/{connector}'];

const admin = `Bearer ${ADMIN_TOKEN}`;
/** Its balance pays for less than one SMS: its sends are checked in full, then refused for credit. */
const customer = basic('client', 'client-password');

interface RouteSpec {
  /** The name of the contracts schema the body is read with (a name, so a renamed one fails here). */
  body?: string;
  query?: string;
}

/**
 * Every route, with the schemas of what it reads. A route missing here fails the first test: give
 * it its schemas (or `{}` when it reads nothing).
 */
const SPECS: Record<string, RouteSpec> = {
  'GET /healthz': {},
  'GET /readyz': {},
  'GET /metrics': {},
  'GET /docs': {},
  'GET /openapi.json': {},
  'POST /auth/v1/login/application': { body: 'TokenRequestSchema' },
  'POST /admin/v1/accounts': { body: 'CreateAccountSchema' },
  'GET /admin/v1/accounts/{username}': {},
  'POST /admin/v1/accounts/{username}/credit': { body: 'CreditSchema' },
  'GET /admin/v1/accounts/{username}/callback-secret': {},
  'POST /admin/v1/accounts/{username}/callback-secret': { body: 'RotateCallbackSecretSchema' },
  'POST /admin/v1/accounts/{username}/applications': { body: 'CreateApplicationSchema' },
  'DELETE /admin/v1/accounts/{username}/applications/{clientId}': {},
  'POST /admin/v1/accounts/{username}/applications/{clientId}/secret': {},
  'POST /admin/v1/accounts/{username}/disable': {},
  'POST /admin/v1/accounts/{username}/enable': {},
  'POST /admin/v1/accounts/{username}/password': { body: 'SetPasswordSchema' },
  'GET /admin/v1/accounts/{username}/senders': {},
  'PUT /admin/v1/accounts/{username}/senders': { body: 'SenderRulesSchema' },
  'DELETE /admin/v1/accounts/{username}/senders': {},
  'GET /admin/v1/accounts/{username}/optouts': { query: 'OptOutListQuerySchema' },
  'POST /admin/v1/accounts/{username}/optouts': { body: 'OptOutRequestSchema' },
  'DELETE /admin/v1/accounts/{username}/optouts/{number}': {},
  'GET /admin/v1/accounts/{username}/optout-words': {},
  'PUT /admin/v1/accounts/{username}/optout-words': { body: 'OptOutSettingsSchema' },
  'GET /admin/v1/mo-routes': {},
  'GET /admin/v1/mo-routes/{name}': {},
  'PUT /admin/v1/mo-routes/{name}': { body: 'MoRouteSchema' },
  'DELETE /admin/v1/mo-routes/{name}': {},
  'GET /admin/v1/inbound/unrouted': { query: 'UnroutedQuery' },
  'GET /admin/v1/connectors': {},
  'POST /admin/v1/connectors': { body: 'ConnectorInputSchema' },
  'GET /admin/v1/connectors/{name}': {},
  'PATCH /admin/v1/connectors/{name}': { body: 'ConnectorUpdateSchema' },
  'DELETE /admin/v1/connectors/{name}': {},
  'POST /admin/v1/connectors/{name}/stop': {},
  'POST /admin/v1/connectors/{name}/start': {},
  'GET /admin/v1/connectors/{name}/inbound-secret': {},
  'PUT /admin/v1/connectors/{name}/inbound-secret': { body: 'InboundSecretSchema' },
  'DELETE /admin/v1/connectors/{name}/inbound-secret': {},
  'GET /admin/v1/routes': {},
  'GET /admin/v1/routes/{name}': {},
  'PUT /admin/v1/routes/{name}': { body: 'MtRouteInputSchema' },
  'DELETE /admin/v1/routes/{name}': {},
  'GET /admin/v1/tokens': {},
  'POST /admin/v1/tokens': { body: 'CreateAdminTokenSchema' },
  'DELETE /admin/v1/tokens/{name}': {},
  'GET /admin/v1/audit': { query: 'AuditQuerySchema' },
  'POST /secure/send': { body: 'SendRequestSchema' },
  'POST /secure/sendbatch': { body: 'SendBatch' },
  'POST /secure/rate': { body: 'SendRequestSchema' },
  'GET /secure/balance': {},
  'GET /secure/batches/{id}': {},
  'DELETE /secure/batches/{id}': {},
  'GET /secure/messages/{id}': {},
  'GET /secure/callback-secret': {},
  'POST /secure/callback-secret': { body: 'RotateCallbackSecretSchema' },
  'GET /secure/inbound': { query: 'InboundListQuerySchema' },
  'GET /secure/inbound/{id}': {},
  'GET /secure/optouts': { query: 'OptOutListQuerySchema' },
  'POST /secure/optouts': { body: 'OptOutRequestSchema' },
  'DELETE /secure/optouts/{number}': {},
};

/** Inputs that are not one contracts schema. */
const COMPOSED: Record<string, fc.Arbitrary<unknown>> = {
  // The envelope's messages are checked one by one after globals are merged in.
  SendBatch: fc.oneof(
    fc.record(
      {
        messages: fc.oneof(
          fc.array(shapedInput(contracts.BatchMessageSchema), { maxLength: 3 }),
          hostileValue,
        ),
        globals: shapedInput(contracts.GlobalsSchema),
        batch_config: shapedInput(contracts.BatchConfigSchema),
      },
      { requiredKeys: [] },
    ),
    shapedInput(contracts.BatchRequestSchema),
  ),
  UnroutedQuery: fc.record({ limit: hostileValue }, { requiredKeys: [] }),
};

function inputOf(name: string | undefined): fc.Arbitrary<unknown> {
  if (name === undefined) return fc.oneof(fc.constant(undefined), hostileValue);
  const composed = COMPOSED[name];
  if (composed) return composed;
  const schema: unknown = (contracts as Record<string, unknown>)[name];
  if (!isSchema(schema)) throw new Error(`no schema ${name} in @smsgw/contracts`);
  return shapedInput(schema);
}

/** Fixtures made before the fuzz, named among hostile values so that requests reach them. */
const FIXTURE = {
  connector: 'fuzz-conn',
  route: 'fuzz-route',
  moRoute: 'fuzz-mo',
  token: 'fuzz-token',
  clientId: '',
};
const UUID = '00000000-0000-4000-8000-000000000000';

const paramValue = (param: string): fc.Arbitrary<string> => {
  const known: Record<string, string[]> = {
    // `client` sends the customer requests: its password is left alone so they get past auth.
    username: ['poor', 'bystander', 'nobody'],
    clientId: [FIXTURE.clientId || 'abc', 'abc'],
    name: [FIXTURE.connector, FIXTURE.route, FIXTURE.moRoute, FIXTURE.token, 'nobody'],
    id: [UUID, 'not-a-uuid'],
    number: ['41790000001', '+41790000001', '0'],
  };
  return fc.oneof(fc.constantFrom(...(known[param] ?? ['x'])), hostileSegment);
};

const ENCODINGS = [
  'json',
  'urlencoded',
  'multipart',
  'text',
  'none',
  'utf16',
  'latin1',
  'gzip',
  'bytes',
] as const;
type Encoding = (typeof ENCODINGS)[number];

interface FuzzRequest {
  route: string;
  method: string;
  path: string;
  encoding: Encoding;
  body: unknown;
  bytes: Uint8Array;
  auth: string | undefined;
}

const fieldText = (v: unknown): string =>
  typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));

function encode(encoding: Encoding, body: unknown, bytes: Uint8Array) {
  const json = body === undefined ? undefined : JSON.stringify(body);
  const fields = typeof body === 'object' && body !== null ? Object.entries(body) : [];
  switch (encoding) {
    case 'json':
      return { type: 'application/json', body: json };
    case 'text':
      return { type: 'text/plain', body: json };
    case 'none':
      return { type: undefined, body: json };
    case 'utf16':
      return {
        type: 'application/json; charset=utf-16',
        body: json === undefined ? undefined : Buffer.from(json, 'utf16le'),
      };
    case 'latin1':
      return {
        type: 'application/json; charset=latin1',
        body: json === undefined ? undefined : Buffer.from(json, 'latin1'),
      };
    case 'gzip':
      return {
        type: 'application/json',
        encoding: 'gzip',
        body: gzipSync(json ?? ''),
      };
    case 'urlencoded': {
      const form = new URLSearchParams();
      for (const [k, v] of fields) form.append(k, fieldText(v));
      return { type: 'application/x-www-form-urlencoded', body: form.toString() };
    }
    case 'multipart': {
      // The boundary is the client's, so the type comes from FormData itself.
      const form = new FormData();
      for (const [k, v] of fields) form.append(k, fieldText(v));
      return { type: null, body: form };
    }
    case 'bytes':
      return { type: 'application/octet-stream', body: bytes };
  }
}

function queryOf(value: unknown): string {
  if (typeof value !== 'object' || value === null) return '';
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(value))
    for (const one of Array.isArray(v) ? v : [v])
      if (one !== undefined) q.append(k, fieldText(one));
  const text = q.toString();
  return text ? `?${text}` : '';
}

/** Requests for one route: each content type, and some with a method the route does not have. */
function requestsFor(route: string, seed: number): FuzzRequest[] {
  const [method, template] = route.split(' ');
  const spec = SPECS[route] ?? {};
  const params = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const credentials = template.startsWith('/admin/')
    ? fc.oneof(
        { weight: 12, arbitrary: fc.constant(admin) },
        fc.constantFrom(
          undefined,
          customer,
          'Bearer wrong-token-0123456789',
          `Bearer ${ADMIN_TOKEN}x`,
        ),
      )
    : template.startsWith('/secure/')
      ? fc.oneof(
          { weight: 12, arbitrary: fc.constant(customer) },
          fc.constantFrom(undefined, admin, basic('client', 'wrong-password')),
        )
      : fc.constantFrom(undefined, admin, customer);
  const one = (encoding: Encoding) =>
    fc.record({
      route: fc.constant(route),
      method: fc.oneof(
        { weight: 8, arbitrary: fc.constant(method) },
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
      ),
      path: fc
        .tuple(
          fc.tuple(...params.map(paramValue)),
          spec.query ? inputOf(spec.query) : fc.oneof(fc.constant(undefined), hostileValue),
        )
        .map(
          ([values, query]) =>
            params.reduce((p, name, i) => p.replace(`{${name}}`, values[i]), template) +
            queryOf(query),
        ),
      encoding: fc.constant(encoding),
      body: inputOf(spec.body),
      bytes: fc.uint8Array({ maxLength: 256 }),
      auth: credentials,
    });
  return ENCODINGS.flatMap((encoding, i) =>
    fc.sample(one(encoding), { numRuns: PER_ROUTE_AND_TYPE, seed: seed + i }),
  );
}

async function send(base: string, r: FuzzRequest): Promise<number> {
  const encoded = encode(r.encoding, r.body, r.bytes);
  const headers: Record<string, string> = {};
  if (r.auth !== undefined) headers['authorization'] = r.auth;
  if (encoded.type) headers['content-type'] = encoded.type;
  if ('encoding' in encoded && encoded.encoding) headers['content-encoding'] = encoded.encoding;
  const withBody = !['GET', 'HEAD', 'OPTIONS'].includes(r.method) && encoded.body !== undefined;
  let response: Response;
  try {
    response = await fetch(`${base}${r.path}`, {
      method: r.method,
      headers,
      body: withBody ? (encoded.body as BodyInit) : undefined,
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    });
  } catch (err) {
    // The client itself refuses some inputs (a header value it cannot send): nothing was sent.
    if (err instanceof TypeError && !/fetch failed/.test(err.message)) return 0;
    throw new Error(`no answer: ${(err as Error).message}`, { cause: err });
  }
  await response.arrayBuffer();
  return response.status;
}

async function inPool<T>(items: T[], run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) await run(items[next++]);
    }),
  );
}

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

const describeRequest = (r: FuzzRequest): string =>
  JSON.stringify({ ...r, bytes: undefined, body: JSON.stringify(r.body)?.slice(0, 300) });

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
  // And no route is described here that is no longer served.
  expect(Object.keys(SPECS).filter((r) => !served.includes(r))).toEqual([]);
});

it('answers generated requests to every route, with every content type, without a 5xx or a hang, changing only what an accepted request was about', async () => {
  const routes = embeddedRoutes().filter((r) => !COVERED_ELSEWHERE.includes(r));
  const requests = routes.flatMap((route, i) => requestsFor(route, SEED + i * 100));
  // Interleaved, so that requests to one route do not all meet the same moment.
  const shuffled = fc.sample(fc.shuffledSubarray(requests, { minLength: requests.length }), {
    numRuns: 1,
    seed: SEED,
  })[0];

  const before = await states();
  const failures: string[] = [];
  const accepted = new Set<string>();
  const refused = new Map<string, number>();
  await inPool(shuffled, async (r) => {
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
  // And it still works: an account made now sends.
  const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
    auth: admin,
    json: { username: 'after-fuzz', password: 'after-fuzz-password', balance: '10', rate: '1' },
  });
  expect(created.status).toBe(201);
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
