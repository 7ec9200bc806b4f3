import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, UrlGuard } from '@smsgw/kit';
import {
  HttpConnector,
  SmscError,
  parseHttpSmscUrl,
  splitMessage,
  type SubmitRequest,
} from '../src';

/** A small upstream speaking the simpler HTTP interface: a form posted to /send. */
let upstream: Server;
let base: string;
const seen: URLSearchParams[] = [];
let next = 1;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => answer(req, res, new URLSearchParams(Buffer.concat(chunks).toString())));
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  base = `http://gw:secret@127.0.0.1:${(upstream.address() as AddressInfo).port}/api?window=2&timeout_ms=1500`;
});

function answer(req: IncomingMessage, res: ServerResponse, form: URLSearchParams): void {
  const url = new URL(req.url ?? '/', 'http://upstream');
  seen.push(form);
  if (req.method !== 'POST' || url.pathname !== '/api/send' || url.search !== '')
    return void res.writeHead(404).end('Error "no such path"');
  if (
    form.get('password') !== 'secret' ||
    req.headers.authorization !== `Basic ${Buffer.from('gw:secret').toString('base64')}`
  )
    return void res.writeHead(403).end('Error "Authentication failure"');
  const to = form.get('to') ?? '';
  if (to.startsWith('999')) return void res.writeHead(400).end('Error "Bad destination"');
  if (to.startsWith('500')) return void res.writeHead(500).end('Error "busy"');
  if (to.startsWith('777')) return void setTimeout(() => res.end(`Success "late"`), 4000);
  res.end(`Success "${(next++).toString(16).toUpperCase()}0A"`);
}
afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
});

const connector = () =>
  new HttpConnector(
    { ...parseHttpSmscUrl(base), name: 'upstream' },
    createLogger('test', 'silent'),
    new UrlGuard(['127.0.0.1']),
  );
const request = (content: string, to = '41790000001'): SubmitRequest => {
  const encoded = splitMessage({ content }, { maxParts: 10 });
  return {
    to,
    from: 'Acme',
    dataCoding: encoded.dataCoding,
    parts: encoded.parts,
    registeredDelivery: true,
  };
};

describe('HttpConnector', () => {
  it('parses its SMSC_URL without leaking credentials into the base URL', () => {
    expect(parseHttpSmscUrl('https://u%40x:p%3A@up.example/gw?window=5')).toEqual({
      baseUrl: 'https://up.example/gw',
      username: 'u@x',
      password: 'p:',
      window: 5,
      timeoutMs: 10_000,
      onNoAnswer: 'unknown',
    });
    expect(parseHttpSmscUrl('http://a:b@h?on_no_answer=resend').onNoAnswer).toBe('resend');
    expect(() => parseHttpSmscUrl('http://a:b@h?colour=1')).toThrow(/colour/);
  });

  it('sends the whole text, joined from its parts, and returns the upstream id', async () => {
    const c = connector();
    await c.start();
    const text = 'Привет, '.repeat(20);
    const result = await c.submit(request(text));
    const sent = seen.at(-1)!;
    expect(Object.fromEntries(sent)).toEqual({
      username: 'gw',
      password: 'secret',
      to: '41790000001',
      from: 'Acme',
      coding: '8',
      content: text,
    });
    expect(result.smscIds).toHaveLength(1);
    expect(c.isUp()).toBe(true);
  });

  it('forwards priority, validity-period and sdt under the names of the interface', async () => {
    await connector().submit({
      ...request('later'),
      priority: 2,
      validityMinutes: 90,
      scheduleDeliveryTime: '260101120000000R',
    });
    expect(Object.fromEntries(seen.at(-1)!)).toMatchObject({
      content: 'later',
      priority: '2',
      'validity-period': '90',
      sdt: '260101120000000R',
    });
  });

  it('sends binary content as hex-content', async () => {
    await connector().submit({
      to: '41790000001',
      from: null,
      dataCoding: 4,
      parts: [Buffer.from([0xde, 0xad, 0xbe, 0xef])],
      registeredDelivery: false,
    });
    expect(seen.at(-1)!.get('hex-content')).toBe('deadbeef');
    expect(seen.at(-1)!.has('content')).toBe(false);
  });

  it('maps a refusal to a permanent error and an upstream failure or timeout to a transient one', async () => {
    const c = connector();
    await expect(c.submit(request('x', '999123'))).rejects.toMatchObject({
      code: 'HTTP_400',
      permanent: true,
    });
    await expect(c.submit(request('x', '500123'))).rejects.toMatchObject({
      code: 'HTTP_500',
      permanent: false,
    });
    const late = await c.submit(request('x', '777123')).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(SmscError);
    expect(late).toMatchObject({ code: 'TIMEOUT', permanent: false });
  });

  it('tells once the request has left, before the answer', async () => {
    const events: string[] = [];
    const submission = connector().submit(request('hello'));
    void submission.written.then(() => events.push('written'));
    await submission.then(() => events.push('answered'));
    expect(events).toEqual(['written', 'answered']);
  });
});
