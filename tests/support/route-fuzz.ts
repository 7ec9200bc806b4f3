/**
 * Generated requests for every route a service serves: each content type (JSON, urlencoded,
 * multipart, text/plain, none, another charset, gzip, bytes), bodies and queries shaped like the
 * route's schema with hostile values in every field, hostile path parameters, wrong methods and
 * credentials. Shared by the embedded and the distributed fuzz tests.
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import * as contracts from '@smsgw/contracts';
import { basic } from './http';
import { hostileSegment, hostileValue, isSchema, shapedInput } from './hostile-input';

/** Generous: a request still unanswered by then is a hang, not a slow answer. */
export const ANSWER_WITHIN_MS = 20_000;

export interface FuzzCredentials {
  /** `Bearer <admin token>`. */
  admin: string;
  /** Basic credentials of the account the /secure requests are made as. */
  customer: string;
}

/** Covered by inbound-fuzz.test.ts, with the upstream's own credentials and fields. */
export const COVERED_ELSEWHERE = ['POST /inbound/v1/http/{connector}'];

interface RouteSpec {
  /** The name of the contracts schema the body is read with (a name, so a renamed one fails here). */
  body?: string;
  query?: string;
}

/**
 * Every route, with the schemas of what it reads. A route missing here fails admin-fuzz.test.ts:
 * give it its schemas (or `{}` when it reads nothing).
 */
export const SPECS: Record<string, RouteSpec> = {
  'GET /healthz': {},
  'GET /readyz': {},
  'GET /metrics': {},
  'GET /docs': {},
  'GET /openapi.json': {},
  'POST /auth/v1/login/application': { body: 'TokenRequestSchema' },
  // The web console's sessions (docs/console.md § Sessions).
  'POST /console/v1/session': { body: 'ConsoleLoginSchema' },
  'GET /console/v1/session': {},
  'DELETE /console/v1/session': {},
  // A customer's own applications, with its password or its console session.
  'GET /auth/v1/applications': {},
  'POST /auth/v1/applications': { body: 'CreateApplicationSchema' },
  'DELETE /auth/v1/applications/{clientId}': {},
  // Distributed mode only: the gateway's credential check, behind the internal token.
  'POST /internal/v1/verify': {},
  // Distributed mode only: the smpp-server's check of a bind, behind the internal token.
  'POST /internal/v1/smpp-bind': {},
  'POST /admin/v1/accounts': { body: 'CreateAccountSchema' },
  'GET /admin/v1/accounts/{username}': {},
  'POST /admin/v1/accounts/{username}/credit': { body: 'CreditSchema' },
  'GET /admin/v1/accounts/{username}/callback-secret': {},
  'POST /admin/v1/accounts/{username}/callback-secret': { body: 'RotateCallbackSecretSchema' },
  'POST /admin/v1/accounts/{username}/applications': { body: 'CreateApplicationSchema' },
  'GET /admin/v1/accounts/{username}/applications': {},
  'DELETE /admin/v1/accounts/{username}/applications/{clientId}': {},
  'POST /admin/v1/accounts/{username}/applications/{clientId}/secret': {},
  'POST /admin/v1/accounts/{username}/disable': {},
  'POST /admin/v1/accounts/{username}/enable': {},
  'POST /admin/v1/accounts/{username}/password': { body: 'SetPasswordSchema' },
  'GET /admin/v1/accounts/{username}/senders': {},
  'PUT /admin/v1/accounts/{username}/senders': { body: 'SenderRulesSchema' },
  'DELETE /admin/v1/accounts/{username}/senders': {},
  'GET /admin/v1/accounts/{username}/smpp': {},
  'PUT /admin/v1/accounts/{username}/smpp': { body: 'SmppAccessSchema' },
  'DELETE /admin/v1/accounts/{username}/smpp': {},
  'GET /admin/v1/smpp/sessions': {},
  'GET /admin/v1/smpp/waiting': {},
  'DELETE /admin/v1/smpp/sessions/{id}': {},
  'GET /admin/v1/accounts/{username}/optouts': { query: 'OptOutListQuerySchema' },
  'POST /admin/v1/accounts/{username}/optouts': { body: 'OptOutRequestSchema' },
  'DELETE /admin/v1/accounts/{username}/optouts/{number}': {},
  'GET /admin/v1/accounts/{username}/optout-words': {},
  'PUT /admin/v1/accounts/{username}/optout-words': { body: 'OptOutSettingsSchema' },
  'GET /admin/v1/mo-routes': {},
  'GET /admin/v1/mo-routes/match': { query: 'MoRouteMatchQuerySchema' },
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
  'GET /admin/v1/connectors/{name}/tlvs': {},
  'PUT /admin/v1/connectors/{name}/tlvs': { body: 'TlvListInputSchema' },
  'GET /admin/v1/connectors/{name}/inbound-secret': {},
  'PUT /admin/v1/connectors/{name}/inbound-secret': { body: 'InboundSecretSchema' },
  'DELETE /admin/v1/connectors/{name}/inbound-secret': {},
  'GET /admin/v1/routes': {},
  'GET /admin/v1/routes/match': { query: 'RouteMatchQuerySchema' },
  'GET /admin/v1/routes/{name}': {},
  'PUT /admin/v1/routes/{name}': { body: 'MtRouteInputSchema' },
  'DELETE /admin/v1/routes/{name}': {},
  'GET /admin/v1/routes/{name}/tlvs': {},
  'PUT /admin/v1/routes/{name}/tlvs': { body: 'TlvListInputSchema' },
  'GET /admin/v1/tokens': {},
  'POST /admin/v1/tokens': { body: 'CreateAdminTokenSchema' },
  'DELETE /admin/v1/tokens/{name}': {},
  'GET /admin/v1/audit': { query: 'AuditQuerySchema' },
  'GET /admin/v1/batches/stalled': { query: 'StalledBatchesQuerySchema' },
  'GET /admin/v1/batches': { query: 'AdminBatchSearchQuerySchema' },
  'DELETE /admin/v1/batches/{id}': {},
  'GET /admin/v1/accounts': { query: 'AccountListQuerySchema' },
  'GET /admin/v1/messages': { query: 'AdminMessageSearchQuerySchema' },
  'GET /admin/v1/messages/{id}': {},
  'GET /admin/v1/cdrs': { query: 'CdrQuery' },
  'GET /admin/v1/stats': { query: 'AdminStatsQuerySchema' },
  'GET /admin/v1/stats/live': { query: 'LiveStatsQuerySchema' },
  // Selling by destination (docs/billing.md).
  'GET /admin/v1/price-lists': {},
  'POST /admin/v1/price-lists': { body: 'CreatePriceListSchema' },
  'GET /admin/v1/price-lists/{name}': {},
  'POST /admin/v1/price-lists/{name}/versions': { query: 'PriceVersionQuerySchema' },
  'DELETE /admin/v1/price-lists/{name}/versions/{id}': {},
  'GET /admin/v1/price-lists/{name}/csv': { query: 'PriceExportQuerySchema' },
  'GET /admin/v1/groups': {},
  'GET /admin/v1/groups/{name}': {},
  'PUT /admin/v1/groups/{name}': { body: 'CustomerGroupInputSchema' },
  'DELETE /admin/v1/groups/{name}': {},
  'GET /admin/v1/connector-costs': {},
  'PUT /admin/v1/connector-costs/{connector}': { body: 'ConnectorCostInputSchema' },
  'GET /admin/v1/accounts/{username}/pricing': {},
  'PUT /admin/v1/accounts/{username}/pricing': { body: 'AccountPricingInputSchema' },
  'GET /secure/messages': { query: 'MessageSearchQuerySchema' },
  'GET /secure/batches': { query: 'BatchSearchQuerySchema' },
  'GET /secure/stats': { query: 'StatsQuerySchema' },
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
  // Jasmin's REST additions: a query of `to` and `content`, and a ping.
  'GET /secure/rate': {},
  'GET /secure/ping': {},
  'GET /ping': {},
  // Jasmin's HTTP interface and Kannel's sendsms read form or query parameters, each by its own
  // rules (edge/legacy-params.ts), not one contracts schema: the fuzz sends them its shapes.
  'GET /send': {},
  'POST /send': {},
  'GET /balance': {},
  'GET /rate': {},
  'GET /cgi-bin/sendsms': {},
  'POST /cgi-bin/sendsms': {},
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
  // The CDR query's range check reads SEARCH_MAX_DAYS: its default here.
  CdrQuery: shapedInput(contracts.cdrQuerySchema(contracts.SEARCH_DEFAULTS.maxDays)),
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
export const FIXTURE = {
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
export type Encoding = (typeof ENCODINGS)[number];

export interface FuzzRequest {
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
export function requestsFor(
  route: string,
  seed: number,
  { admin, customer }: FuzzCredentials,
  perEncoding: number,
): FuzzRequest[] {
  const [method, template] = route.split(' ');
  const spec = SPECS[route] ?? {};
  const params = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const credentials = template.startsWith('/admin/')
    ? fc.oneof(
        { weight: 12, arbitrary: fc.constant(admin) },
        fc.constantFrom(undefined, customer, 'Bearer wrong-token-0123456789', `${admin}x`),
      )
    : template.startsWith('/secure/') || template.startsWith('/auth/v1/applications')
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
    fc.sample(one(encoding), { numRuns: perEncoding, seed: seed + i }),
  );
}

export async function send(base: string, r: FuzzRequest): Promise<number> {
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
      body: withBody ? (encoded.body as NonNullable<RequestInit['body']>) : undefined,
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

export async function inPool<T>(
  items: T[],
  concurrency: number,
  run: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await run(items[next++]);
    }),
  );
}

export const describeRequest = (r: FuzzRequest): string =>
  JSON.stringify({ ...r, bytes: undefined, body: JSON.stringify(r.body)?.slice(0, 300) });
