import express from 'express';
import type { AddressInfo } from 'node:net';
import { IncomingMessage, request, type Server } from 'node:http';
import { Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { finishApp, jsonBody } from '../src/http';
import { readPlainJson } from '../src/plain-json-body';
import { createLogger } from '../src/logger';
import { Registry } from 'prom-client';

let server: Server;
let port: number;

beforeAll(async () => {
  const app = express();
  app.post('/echo', ...jsonBody(64), (req, res) => {
    res.json({ body: req.body as unknown });
  });
  finishApp(app, {
    logger: createLogger('test', 'silent'),
    registry: new Registry(),
    readiness: () => ({}),
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((r) => server.close(r)));

/** A raw request, so that length, coding and chunking are what the test says. */
function post(
  body: Buffer | string,
  headers: Record<string, string>,
  chunked = false,
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/echo',
        headers: chunked ? headers : { 'content-length': String(bytes.length), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(bytes);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };

describe('jsonBody', () => {
  it('reads a plain JSON body', async () => {
    expect(await post('{"to":"41790000001","text":"é"}', JSON_TYPE)).toEqual({
      status: 200,
      json: { body: { to: '41790000001', text: 'é' } },
    });
  });

  it('takes an empty body as {}, and drops a byte order mark', async () => {
    expect((await post('', JSON_TYPE)).json).toEqual({ body: {} });
    expect((await post('\ufeff{"a":1}', JSON_TYPE)).json).toEqual({ body: { a: 1 } });
    expect((await post('\ufeff', JSON_TYPE)).json).toEqual({ body: {} });
  });

  it('answers malformed JSON with a 400 naming the body', async () => {
    const { status, json } = await post('{"a":', JSON_TYPE);
    expect(status).toBe(400);
    expect(json).toMatchObject({ detail: { code: 'INVALID_PARAMETER', field: 'body' } });
  });

  it('reads what only express.json knows: a compressed body, a chunked one, another charset', async () => {
    expect(
      (await post(gzipSync('{"a":2}'), { ...JSON_TYPE, 'content-encoding': 'gzip' })).json,
    ).toEqual({ body: { a: 2 } });
    expect(
      (await post('{"a":3}', { ...JSON_TYPE, 'transfer-encoding': 'chunked' }, true)).json,
    ).toEqual({ body: { a: 3 } });
    expect(
      (
        await post(Buffer.from('\ufeff{"a":4}', 'utf16le'), {
          'content-type': 'application/json; charset=utf-16le',
        })
      ).json,
    ).toEqual({ body: { a: 4 } });
  });

  it('refuses a body over the limit, and a charset JSON does not allow', async () => {
    expect((await post(`{"a":"${'x'.repeat(100)}"}`, JSON_TYPE)).status).toBe(413);
    expect(
      (await post('{"a":1}', { 'content-type': 'application/json; charset=latin1' })).status,
    ).toBe(415);
  });
});

describe('readPlainJson', () => {
  it('fails at once for a request whose client left before it was read', async () => {
    const req = new IncomingMessage(new Socket());
    const closed = new Promise((resolve) => req.once('close', resolve));
    req.destroy();
    await closed;
    await expect(readPlainJson(req)).rejects.toMatchObject({ type: 'request.aborted' });
  });
});
