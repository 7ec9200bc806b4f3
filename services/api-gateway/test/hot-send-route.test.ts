import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Principal } from '@smsgw/contracts';
import {
  HttpError,
  closeServer,
  compileProxyTrust,
  createHttpApp,
  createLogger,
  createRegistry,
  finishApp,
  listen,
  requestMeter,
} from '@smsgw/kit';
import { hotSendRoute } from '../src/hot-send-route';
import type { CredentialVerifier } from '../src/credential-client';
import { requestCaller } from '../src/request-caller';

/**
 * The hot route takes exactly the requests express's middleware would only pass on, and answers
 * them as express's route would; every other request reaches express (here a route answering
 * `{ via: 'express' }`), untouched.
 */
const PRINCIPAL: Principal = { accountId: 'acc-1', username: 'alice', via: 'basic' };
const GOOD = 'Basic YWxpY2U6czNjcmV0';
const MAX_BODY = 1024;

const verifier: CredentialVerifier = {
  verify: (authorization) =>
    authorization === GOOD
      ? Promise.resolve(PRINCIPAL)
      : Promise.reject(HttpError.unauthorized('Invalid credentials')),
};

let handled: { principal: Principal; body: unknown }[] = [];
let handlerFails: Error | undefined;
let server: Server;
let base: string;
const registry = createRegistry('hot-route-test', false);

beforeAll(async () => {
  const logger = createLogger('test', 'silent');
  const app = createHttpApp({ registry });
  app.all('/{*rest}', (req, res) => {
    req.resume();
    req.on('end', () => res.json({ via: 'express' }));
  });
  finishApp(app, { logger, registry, readiness: () => ({}) });
  const hot = hotSendRoute({
    send: (principal, body) => {
      handled.push({ principal, body });
      if (handlerFails) return Promise.reject(handlerFails);
      return Promise.resolve({ data: 'Success "id-1"' });
    },
    caller: requestCaller(verifier, compileProxyTrust([])),
    maxBodyBytes: MAX_BODY,
    corsAllowedOrigins: [],
    meter: requestMeter(registry),
    logger,
  });
  server = await listen(app, 0, '127.0.0.1', hot);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => closeServer(server));
beforeEach(() => {
  handled = [];
  handlerFails = undefined;
});

interface Answer {
  status: number;
  type: string | undefined;
  body: any;
}

/** One request as node sends it: exactly these headers (no Content-Length unless given). */
function send(
  path: string,
  headers: Record<string, string>,
  body = '',
  method = 'POST',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers['content-type'],
          body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'),
        }),
      );
    });
    req.on('error', reject);
    req.setTimeout(5_000, () => req.destroy(new Error('timed out')));
    req.end(body);
  });
}

const json = (text: string, extra: Record<string, string> = {}): Record<string, string> => ({
  authorization: GOOD,
  'content-type': 'application/json',
  'content-length': String(Buffer.byteLength(text)),
  ...extra,
});
const BODY = '{"to":["+4917012345"],"content":"hi"}';

describe('hotSendRoute', () => {
  it('answers a plain authenticated send with the handler, given the principal and the body', async () => {
    const answer = await send('/secure/send', json(BODY), BODY);
    expect(answer).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      body: { data: 'Success "id-1"' },
    });
    expect(handled).toEqual([{ principal: PRINCIPAL, body: JSON.parse(BODY) }]);
  });

  it.each([
    ['no content type', { 'content-type': '' }],
    ['text/plain', { 'content-type': 'text/plain' }],
    ['charset=utf-8', { 'content-type': 'application/json; charset=utf-8' }],
  ])('takes a JSON body sent with %s', async (_name, headers) => {
    const h = json(BODY, headers);
    if (h['content-type'] === '') delete h['content-type'];
    expect((await send('/secure/send', h, BODY)).body).toEqual({ data: 'Success "id-1"' });
    expect(handled).toHaveLength(1);
  });

  it.each([
    ['another method', '/secure/send', {}, 'PUT'],
    ['a trailing slash', '/secure/send/', {}, 'POST'],
    ['a query string', '/secure/send?x=1', {}, 'POST'],
    ['another path', '/secure/sendbatch', {}, 'POST'],
    ['an Origin', '/secure/send', { origin: 'https://example.org' }, 'POST'],
    ['Sec-Fetch-Site', '/secure/send', { 'sec-fetch-site': 'same-origin' }, 'POST'],
    ['an Idempotency-Key', '/secure/send', { 'idempotency-key': 'key-1' }, 'POST'],
    ['a form content type', '/secure/send', { 'content-type': 'multipart/form-data' }, 'POST'],
    [
      'a latin-1 charset',
      '/secure/send',
      { 'content-type': 'application/json; charset=latin1' },
      'POST',
    ],
    ['a content coding', '/secure/send', { 'content-encoding': 'gzip' }, 'POST'],
  ])('leaves a request with %s to express', async (_name, path, headers, method) => {
    const answer = await send(path, json(BODY, headers), BODY, method);
    expect(answer.body).toEqual({ via: 'express' });
    expect(handled).toEqual([]);
  });

  it('leaves a chunked body and one above the limit to express', async () => {
    const chunked = json(BODY, { 'transfer-encoding': 'chunked' });
    delete chunked['content-length'];
    expect((await send('/secure/send', chunked, BODY)).body).toEqual({ via: 'express' });
    const big = `{"content":"${'x'.repeat(MAX_BODY)}"}`;
    expect((await send('/secure/send', json(big), big)).body).toEqual({ via: 'express' });
    expect(handled).toEqual([]);
  });

  it('refuses bad credentials before reading the body, as express does', async () => {
    const answer = await send('/secure/send', json(BODY, { authorization: 'Basic bad' }), BODY);
    expect(answer.status).toBe(401);
    expect(answer.body.detail).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(handled).toEqual([]);
  });

  it('answers malformed JSON, a refusal and a failure with the error body', async () => {
    const malformed = await send('/secure/send', json('{"to":'), '{"to":');
    expect([malformed.status, malformed.body.detail.code]).toEqual([400, 'INVALID_PARAMETER']);
    expect(handled).toEqual([]);

    handlerFails = new HttpError('INSUFFICIENT_CREDIT', 'Not enough credit for this message');
    const refused = await send('/secure/send', json(BODY), BODY);
    expect([refused.status, refused.body.detail.code]).toEqual([402, 'INSUFFICIENT_CREDIT']);

    handlerFails = new Error('database went away at /srv/secret/path.js:12');
    const failed = await send('/secure/send', json(BODY), BODY);
    expect([failed.status, failed.body.detail.code]).toEqual([500, 'INTERNAL_ERROR']);
    expect(JSON.stringify(failed.body)).not.toContain('secret');
  });

  it('counts its requests as express counts them: refused before the route as unmatched', async () => {
    const count = async (route: string, status: string): Promise<number> => {
      const metric = await registry.getSingleMetric('smsgw_http_requests_total')!.get();
      return metric.values
        .filter((v) => v.labels['route'] === route && v.labels['status'] === status)
        .reduce((sum, v) => sum + v.value, 0);
    };
    const before = [await count('/secure/send', '200'), await count('unmatched', '401')];
    await send('/secure/send', json(BODY), BODY);
    await send('/secure/send', json(BODY, { authorization: 'Basic bad' }), BODY);
    expect([await count('/secure/send', '200'), await count('unmatched', '401')]).toEqual([
      before[0] + 1,
      before[1] + 1,
    ]);
  });

  it('is not there when CORS origins are configured (CORS headers go on every answer)', () => {
    const route = hotSendRoute({
      send: () => Promise.reject(new Error('unused')),
      caller: requestCaller(verifier, compileProxyTrust([])),
      maxBodyBytes: MAX_BODY,
      corsAllowedOrigins: ['https://app.example.org'],
      meter: requestMeter(registry),
      logger: createLogger('test', 'silent'),
    });
    expect(route).toBeUndefined();
  });
});
