/**
 * Thousands of generated malformed and hostile requests against embedded mode: bodies, types,
 * encodings, nesting, headers, paths and credentials, over HTTP and as raw bytes on a socket.
 * None may get a 5xx or go unanswered, the service is healthy after, and no refused request
 * changes a balance or sends an SMS. The seed is fixed so a failure reproduces; FUZZ_SEED picks
 * another.
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';

const SEED = Number(process.env['FUZZ_SEED'] ?? 20240611);
const HTTP_REQUESTS = 2000;
const RAW_REQUESTS = 300;
const CONCURRENCY = 16;
/** Generous: a request still unanswered by then is a hang, not a slow answer. */
const ANSWER_WITHIN_MS = 20_000;

const admin = `Bearer ${ADMIN_TOKEN}`;
/** Its balance pays for less than one SMS, so every send it makes is refused, valid or not. */
const poor = basic('poor', 'poor-password');
const bystander = basic('bystander', 'bystander-password');

let sim: SmppSimulator;
let gw: RunningGateway;

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: true });
  const { port } = await sim.start();
  gw = await startEmbedded({ SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`, MAX_BODY_BYTES: '65536' });
  for (const [username, balance] of [
    ['poor', '0.5'],
    ['bystander', '10'],
  ]) {
    const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
      auth: admin,
      json: { username, password: `${username}-password`, balance, rate: '1' },
    });
    expect(created.status).toBe(201);
  }
});

afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
});

// Text that databases, SMSCs and parsers choke on, mixed into otherwise ordinary values.
const hostileChar = fc.constantFrom(
  '\u0000',
  '\u0001',
  '\u001b',
  '\u007f',
  '\ud800',
  '\udfff',
  '\ufeff',
  '\uffff',
  '\u202e',
  '%00',
  '\\',
  '"',
  "'",
  '😀',
  '€',
);
const hostileString = fc
  .array(fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), hostileChar), { maxLength: 6 })
  .map((parts) => parts.join(''));

const numberish = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(
    1e308,
    -1e308,
    2 ** 53 + 1,
    -0,
    0.1,
    '1e400',
    '99999999999999999999',
    '-1',
    '0x10',
    '',
  ),
);
const value: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  numberish,
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileString, { maxLength: 3 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 3 }),
);

const messageFields = [
  'to',
  'from',
  'content',
  'hex_content',
  'hex-content',
  'coding',
  'dlr',
  'dlr_url',
  'dlr-url',
  'dlr_level',
  'dlr_method',
  'priority',
  'validity_period',
  'sdt',
  'tags',
  '__proto__',
  'constructor',
];
/** A valid send with some fields replaced by hostile values or removed. */
const message = fc
  .tuple(
    fc.dictionary(fc.constantFrom(...messageFields), value, { maxKeys: 4 }),
    fc.subarray(['to', 'content']),
  )
  .map(([changes, dropped]) => {
    const m: Record<string, unknown> = { to: '41790000001', content: 'hello', ...changes };
    for (const key of dropped) delete m[key];
    return m;
  });

const nested = fc
  .tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom('[', '{"a":'))
  .map(([depth, open]) => open.repeat(depth) + '1' + (open === '[' ? ']' : '}').repeat(depth));

const jsonBodyText = fc.oneof(
  message.map((m) => JSON.stringify(m)),
  fc
    .record({
      messages: fc.oneof(fc.array(message, { maxLength: 4 }), value),
      globals: fc.oneof(message, value),
      batch_config: fc.dictionary(
        fc.constantFrom('callback_url', 'errback_url', 'schedule_at', 'x'),
        value,
      ),
    })
    .map((b) => JSON.stringify(b)),
  fc
    .dictionary(
      fc.constantFrom(
        'username',
        'password',
        'balance',
        'sms_count',
        'rate',
        'default_from',
        'throughput',
        'amount',
        'name',
        'client_id',
        'client_secret',
      ),
      value,
    )
    .map((b) => JSON.stringify(b)),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  nested,
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constantFrom('', '{', '{"to":', 'null', '[]', '"x"', '{"to":"1","content":"\\u0000"}'),
);

const body = fc.oneof(
  { weight: 4, arbitrary: jsonBodyText.map((t): string | Uint8Array => t) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 512 }) },
);

/** Every byte of the UTF-8 form percent-encoded (encodeURIComponent throws on a lone surrogate). */
const percentEncoded = (s: string): string =>
  [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

const path = fc.oneof(
  fc.constantFrom(
    '/secure/send',
    '/secure/sendbatch',
    '/secure/rate',
    '/secure/balance',
    '/secure/messages/00000000-0000-0000-0000-000000000000',
    '/secure/batches/00000000-0000-0000-0000-000000000000',
    '/auth/v1/login/application',
    '/admin/v1/accounts',
    '/admin/v1/accounts/poor',
    '/admin/v1/accounts/nobody/credit',
    '/admin/v1/accounts/poor/applications',
    '/admin/v1/accounts/poor/applications/abc',
    '/docs',
    '/openapi.json',
    '/healthz',
  ),
  fc
    .tuple(
      fc.constantFrom(
        '/secure/messages/',
        '/secure/batches/',
        '/admin/v1/accounts/',
        '/admin/v1/accounts/poor/applications/',
      ),
      fc.oneof(
        fc.webSegment(),
        fc.constantFrom(
          '%00',
          '%ff%fe',
          '..%2f..',
          '%E0%80%80',
          '%ED%A0%80',
          '%',
          '%zz',
          'a'.repeat(5000),
        ),
        hostileString.map(percentEncoded),
      ),
    )
    .map(([prefix, segment]) => prefix + segment),
  fc.webPath().map((p) => `/${p.replace(/^\/+/, '')}`),
);

// Unknown users cost a password hash each, so they are a smaller share than known credentials.
const credential = fc.oneof(
  { weight: 8, arbitrary: fc.constant(poor) },
  { weight: 3, arbitrary: fc.constant(admin) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.tuple(hostileString, hostileString).map(([u, p]) => basic(u, p)) },
  { weight: 1, arbitrary: hostileString.map((u) => basic(u, 'poor-password')) },
  fc.constantFrom(
    'Basic',
    'Basic !!!',
    'Basic ' + Buffer.from('no-colon').toString('base64'),
    'Bearer',
    'Bearer a.b.c',
    'Bearer ' + 'x'.repeat(4000),
    'Digest user="poor"',
  ),
);

const contentType = fc.oneof(
  fc.constantFrom(
    undefined,
    'application/json',
    'application/json; charset=utf-16',
    'application/json; charset=latin1',
    'application/vnd.api+json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'multipart/form-data',
    'application/xml',
    'application/json; charset=',
    ';;;',
  ),
  fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
);

const extraHeaders = fc.dictionary(
  fc.constantFrom(
    'content-encoding',
    'origin',
    'sec-fetch-site',
    'accept',
    'accept-encoding',
    'x-forwarded-for',
    'idempotency-key',
    'transfer-encoding-x',
  ),
  fc.oneof(
    fc.constantFrom('gzip', 'deflate', 'br', 'identity, gzip', 'cross-site', 'null', '*/*'),
    fc.string({ unit: 'grapheme-ascii', maxLength: 30 }),
  ),
  { maxKeys: 3 },
);

const httpRequest = fc.record({
  method: fc.constantFrom('GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
  path,
  auth: credential,
  contentType,
  headers: extraHeaders,
  body,
});
type HttpRequest = typeof httpRequest extends fc.Arbitrary<infer T> ? T : never;

/** Raw bytes on a socket: request lines, header blocks and framing no HTTP client would send. */
const rawRequest = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('GET', 'POST', 'BREW', 'G\u0000T', ''),
      fc.oneof(path, fc.string({ unit: 'binary-ascii', maxLength: 60 })),
      fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/9.9', ''),
      fc.array(
        fc.oneof(
          fc.constantFrom(
            'Content-Length: 5',
            'Content-Length: -1',
            'Content-Length: 99999999999999999999',
            'Transfer-Encoding: chunked',
            'Transfer-Encoding: chunked, identity',
            'Content-Type: application/json',
            `Authorization: ${poor}`,
            'Authorization: Basic AA==',
            'Host: ',
            'X: \u0000',
          ),
          fc.string({ unit: 'binary-ascii', maxLength: 40 }),
        ),
        { maxLength: 5 },
      ),
      fc.oneof(
        fc.string({ unit: 'binary-ascii', maxLength: 80 }),
        fc.constantFrom(
          'zz\r\n{}\r\n0\r\n\r\n',
          '5\r\n{"to"\r\n',
          '{"to":"1","content":"\\u0000"}',
        ),
      ),
    )
    .map(
      ([method, target, version, headers, tail]) =>
        `${method} ${target} ${version}\r\nHost: 127.0.0.1\r\n${headers.join('\r\n')}\r\n\r\n${tail}`,
    ),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
);

async function send(base: string, r: HttpRequest): Promise<number> {
  const headers: Record<string, string> = {};
  if (r.auth !== undefined) headers['authorization'] = r.auth;
  if (r.contentType !== undefined) headers['content-type'] = r.contentType;
  Object.assign(headers, r.headers);
  const withBody = !['GET', 'OPTIONS'].includes(r.method);
  let response: Response;
  try {
    response = await fetch(`${base}${r.path}`, {
      method: r.method,
      headers,
      body: withBody ? r.body : undefined,
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

/** The status of the first response on the socket, 0 when the server closed it without one. */
function sendRaw(port: number, bytes: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer and the connection stayed open'));
    }, ANSWER_WITHIN_MS);
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(answer);
      if (status) {
        clearTimeout(timer);
        socket.destroy();
        resolve(Number(status[1]));
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(0);
    });
    socket.write(bytes, 'latin1', () => socket.end());
  });
}

async function inPool<T>(items: T[], run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) await run(items[next++]);
    }),
  );
}

const describeRequest = (r: HttpRequest): string =>
  JSON.stringify({ ...r, body: typeof r.body === 'string' ? r.body.slice(0, 300) : '<bytes>' });

it(`answers ${HTTP_REQUESTS} generated HTTP requests and ${RAW_REQUESTS} raw ones without a 5xx or a hang, changing nothing`, async () => {
  const balances = async () => ({
    poor: (await request(gw.base, 'GET', '/secure/balance', { auth: poor })).body.data,
    bystander: (await request(gw.base, 'GET', '/secure/balance', { auth: bystander })).body.data,
  });
  const before = await balances();
  const failures: string[] = [];

  const requests = fc.sample(httpRequest, { numRuns: HTTP_REQUESTS, seed: SEED });
  await inPool(requests, async (r) => {
    try {
      const status = await send(gw.base, r);
      if (status >= 500) failures.push(`${status} for ${describeRequest(r)}`);
    } catch (err) {
      failures.push(`${(err as Error).message} for ${describeRequest(r)}`);
    }
  });

  const port = Number(new URL(gw.base).port);
  const raws = fc.sample(rawRequest, { numRuns: RAW_REQUESTS, seed: SEED });
  await inPool(raws, async (bytes) => {
    try {
      const status = await sendRaw(port, bytes);
      if (status >= 500) failures.push(`${status} for raw ${JSON.stringify(bytes.slice(0, 300))}`);
    } catch (err) {
      failures.push(`${(err as Error).message} for raw ${JSON.stringify(bytes.slice(0, 300))}`);
    }
  });

  expect({ seed: SEED, failures: failures.slice(0, 20), count: failures.length }).toEqual({
    seed: SEED,
    failures: [],
    count: 0,
  });
  expect((await request(gw.base, 'GET', '/healthz')).status).toBe(200);
  expect((await request(gw.base, 'GET', '/readyz')).status).toBe(200);
  expect(await balances()).toEqual(before);
  expect(sim.received).toHaveLength(0);
  // And it still works: a valid send from a funded account goes out.
  const sent = await request(gw.base, 'POST', '/secure/send', {
    auth: bystander,
    json: { to: '41790000009', content: 'still here' },
  });
  expect(sent.status).toBe(200);
}, 600_000);
