import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallbackSender } from '../src/callback-sender';
import { UrlGuard } from '@smsgw/kit';

describe('UrlGuard', () => {
  const guard = new UrlGuard([]);
  it.each([
    ['127.0.0.1'],
    ['10.1.2.3'],
    ['172.20.0.1'],
    ['192.168.1.1'],
    ['169.254.169.254'],
    ['100.64.0.1'],
    ['0.0.0.0'],
    ['::1'],
    ['fd00:ec2::254'],
    ['fe80::1'],
    ['::ffff:10.0.0.1'],
    ['::ffff:127.0.0.1'],
  ])('refuses %s', (address) => {
    expect(guard.refusal('example.test', address)).toMatch(/private, loopback or link-local/);
  });
  it.each([['93.184.216.34'], ['2606:2800:220:1:248:1893:25c8:1946'], ['8.8.8.8']])(
    'lets %s through',
    (address) => {
      expect(guard.refusal('example.test', address)).toBeUndefined();
    },
  );
  it('lets an operator allow hosts, addresses and networks', () => {
    const allowing = new UrlGuard(['localhost', '10.0.0.0/8', '192.168.1.5']);
    expect(allowing.refusal('localhost', '127.0.0.1')).toBeUndefined();
    expect(allowing.refusal('hooks.internal', '10.9.9.9')).toBeUndefined();
    expect(allowing.refusal('x', '192.168.1.5')).toBeUndefined();
    expect(allowing.refusal('x', '192.168.1.6')).toBeDefined();
    expect(allowing.refusal('127.0.0.1', '127.0.0.1')).toBeDefined();
  });
});

describe('CallbackSender', () => {
  let server: Server;
  let base: string;
  const seen: { url: string; method: string; body: string }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ url: req.url ?? '', method: req.method ?? '', body });
        // Never answered (until the server closes): the sender's own timeout must end it.
        if (req.url?.startsWith('/slow')) return;
        res.writeHead(req.url?.startsWith('/fail') ? 502 : 200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  // Seconds, not milliseconds: the receivers that answer must do so within it on a busy machine.
  const allowed = new CallbackSender(new UrlGuard(['127.0.0.1']), {
    timeoutMs: 2000,
    hostConcurrency: 2,
  });

  it('keeps the URL query string and adds the parameters (GET)', async () => {
    expect(
      await allowed.send({
        url: `${base}/hook?a=1`,
        method: 'GET',
        params: { to: '4179', statusText: 'Success "x"' },
      }),
    ).toEqual({ ok: true, status: 200 });
    expect(seen.at(-1)).toMatchObject({
      method: 'GET',
      url: '/hook?a=1&to=4179&statusText=Success+%22x%22',
    });
  });

  it('posts the parameters as a form', async () => {
    await allowed.send({ url: `${base}/post`, method: 'POST', params: { id: 'm1', level: '1' } });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/post', body: 'id=m1&level=1' });
  });

  it('asks for a retry on non-2xx and on a timeout', async () => {
    expect(await allowed.send({ url: `${base}/fail`, method: 'GET', params: {} })).toEqual({
      ok: false,
      retry: true,
      reason: 'HTTP 502',
      category: 'HTTP status 502',
    });
    expect(await allowed.send({ url: `${base}/slow`, method: 'GET', params: {} })).toMatchObject({
      ok: false,
      retry: true,
      reason: expect.stringMatching(/2000 ms/),
      category: 'timed out',
    });
  });

  it('refuses loopback without an allow-list entry, without connecting', async () => {
    const before = seen.length;
    const guarded = new CallbackSender(new UrlGuard([]), { timeoutMs: 300, hostConcurrency: 2 });
    const outcome = await guarded.send({ url: `${base}/hook`, method: 'GET', params: {} });
    expect(outcome).toMatchObject({
      ok: false,
      retry: false,
      reason: expect.stringMatching(/^refused: .*127\.0\.0\.1/),
    });
    const viaName = await guarded.send({
      url: base.replace('127.0.0.1', 'localhost') + '/hook',
      method: 'GET',
      params: {},
    });
    expect(viaName).toMatchObject({ ok: false, retry: false });
    expect(seen.length).toBe(before);
  });

  it('never has more requests in progress to one host than its cap', async () => {
    let active = 0;
    let peak = 0;
    const capped = createServer((_req, res) => {
      peak = Math.max(peak, ++active);
      setTimeout(() => {
        active--;
        res.end();
      }, 30);
    });
    await new Promise<void>((r) => capped.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(capped.address() as AddressInfo).port}/`;
    await Promise.all(
      Array.from({ length: 8 }, () => allowed.send({ url, method: 'GET', params: {} })),
    );
    capped.closeAllConnections();
    await new Promise((r) => capped.close(r));
    expect(peak).toBe(2);
  });
});
