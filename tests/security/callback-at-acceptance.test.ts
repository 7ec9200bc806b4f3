import { SmppSimulator } from '@smsgw/smsc';
import { UrlGuard } from '@smsgw/kit';
import { waitFor } from '@smsgw/kit/testing';
import { CallbackUrlCheck } from '@smsgw/acceptance';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request, type Reply } from '../support/http';

/**
 * A callback URL on a private, loopback or link-local address is refused when the message or batch
 * is accepted, with a 400 naming the field, on every entry point that takes one: the client learns
 * it at once instead of its reports being dropped later by the notifier. Hosts that
 * CALLBACK_ALLOWED_HOSTS lists are taken (here 127.0.0.1; 10.0.0.0/8 stays refused). Nothing is
 * charged for a refused request. (A host name resolving to a private address is refused as well,
 * without the address being told: tests/security/input-at-the-edge.test.ts.)
 */

const PASSWORD = 'callback-password-01';
const auth = basic('hooks', PASSWORD);
let sim: SmppSimulator;
let gw: RunningGateway;

const PRIVATE = 'http://10.1.2.3/dlr';
const ALLOWED = 'http://127.0.0.1:9/dlr';

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0 });
  const { port } = await sim.start();
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
    CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
  });
  const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
    auth: `Bearer ${ADMIN_TOKEN}`,
    json: { username: 'hooks', password: PASSWORD, balance: '100' },
  });
  expect(created.status).toBe(201);
}, 60_000);
afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
});

const balance = async (): Promise<string> =>
  (await request(gw.base, 'GET', '/secure/balance', { auth })).body.data.balance as string;

const send = (dlrUrl: string, headers: Record<string, string> = {}): Promise<Reply> =>
  request(gw.base, 'POST', '/secure/send', {
    auth,
    headers,
    json: { to: '41790000001', content: 'hi', dlr: 'yes', 'dlr-url': dlrUrl, 'dlr-level': 3 },
  });

const batch = (config: Record<string, string>, dlrUrl?: string): Promise<Reply> =>
  request(gw.base, 'POST', '/secure/sendbatch', {
    auth,
    json: {
      messages: [
        { to: ['41790000002'], content: 'a' },
        { to: ['41790000003'], content: 'b', ...(dlrUrl && { 'dlr-url': dlrUrl, dlr: 'yes' }) },
      ],
      batch_config: config,
    },
  });

const jasminSend = (dlrUrl: string): Promise<Reply> =>
  request(
    gw.base,
    'GET',
    `/send?${String(new URLSearchParams({ username: 'hooks', password: PASSWORD, to: '41790000004', content: 'hi', 'dlr-url': dlrUrl, 'dlr-level': '2' }))}`,
  );

const kannelSend = (dlrUrl: string): Promise<Reply> =>
  request(
    gw.base,
    'GET',
    `/cgi-bin/sendsms?${String(new URLSearchParams({ username: 'hooks', password: PASSWORD, to: '41790000005', text: 'hi', 'dlr-url': dlrUrl, 'dlr-mask': '3' }))}`,
  );

describe('a private callback address is refused at acceptance', () => {
  it('on /secure/send (the hot path and express), naming dlr_url, charging nothing', async () => {
    const before = await balance();
    for (const url of [PRIVATE, 'http://169.254.169.254/latest', 'http://[::1]:8080/x']) {
      const hot = await send(url);
      expect({ url, status: hot.status, field: hot.body.detail.field }).toEqual({
        url,
        status: 400,
        field: 'dlr_url',
      });
      expect(hot.body.detail.message).toMatch(/private, loopback or link-local/);
    }
    // An Idempotency-Key sends the request through express's layers instead of the hot path.
    const express = await send(PRIVATE, { 'idempotency-key': 'private-hook-1' });
    expect(express.status).toBe(400);
    expect(express.body.detail.field).toBe('dlr_url');
    expect(await balance()).toBe(before);
  });

  it('on /secure/sendbatch: callback_url, errback_url and a message dlr-url, each named', async () => {
    const before = await balance();
    const callback = await batch({ callback_url: PRIVATE });
    expect(callback.status).toBe(400);
    expect(callback.body.detail.field).toBe('batch_config.callback_url');
    const errback = await batch({ errback_url: 'http://192.168.1.10/err' });
    expect(errback.status).toBe(400);
    expect(errback.body.detail.field).toBe('batch_config.errback_url');
    const perMessage = await batch({}, PRIVATE);
    expect(perMessage.status).toBe(400);
    expect(perMessage.body.detail.field).toBe('messages[1].dlr_url');
    expect(await balance()).toBe(before);
  });

  it("on Jasmin's /send, as Jasmin's error answer", async () => {
    const refused = await jasminSend(PRIVATE);
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/^Error ".*dlr_url: 10\.1\.2\.3 is a private/);
  });

  it("on Kannel's /cgi-bin/sendsms, as Kannel's refusal", async () => {
    const refused = await kannelSend(PRIVATE);
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/dlr_url: 10\.1\.2\.3 is a private.*rejected$/);
  });
});

describe('CALLBACK_ALLOWED_HOSTS', () => {
  it('lets a listed private host through on every entry point', async () => {
    expect((await send(ALLOWED)).status).toBe(200);
    expect((await batch({ callback_url: ALLOWED, errback_url: ALLOWED }, ALLOWED)).status).toBe(
      200,
    );
    expect((await jasminSend(ALLOWED)).text).toMatch(/^Success "/);
    expect((await kannelSend(ALLOWED)).status).toBe(202);
  });
});

describe('host names are resolved once per TTL, not once per request', () => {
  const counting = (answers: Record<string, string[]>) => {
    const calls: string[] = [];
    const resolve = (host: string): Promise<string[]> => {
      calls.push(host);
      const found = answers[host];
      return found ? Promise.resolve(found) : Promise.reject(new Error('ENOTFOUND'));
    };
    return { calls, resolve };
  };

  it('asks DNS once for many requests to one host, again after the TTL', async () => {
    const dns = counting({ 'hooks.example': ['203.0.113.7'], 'inside.example': ['10.9.9.9'] });
    const check = new CallbackUrlCheck(new UrlGuard([]), {
      ttlMs: 1000,
      maxHosts: 100,
      resolve: dns.resolve,
    });
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => check.check('dlr_url', `http://hooks.example/${i}`)),
    );
    for (let i = 0; i < 3; i++)
      await expect(check.check('dlr_url', 'http://inside.example/x')).rejects.toThrow(
        /dlr_url: inside\.example is a private/,
      );
    expect(dns.calls).toEqual(['hooks.example', 'inside.example']);
    // An IP literal needs no lookup; a name that does not resolve passes (the notifier checks).
    await expect(check.check('dlr_url', 'http://10.0.0.1/x')).rejects.toThrow(/private/);
    await check.check('dlr_url', 'http://nowhere.example/x');
    expect(dns.calls).toEqual(['hooks.example', 'inside.example', 'nowhere.example']);
    // Once the TTL has passed, the name is asked for again (a name may move).
    await waitFor(
      async () => {
        await check.check('dlr_url', 'http://hooks.example/again');
        return dns.calls.filter((h) => h === 'hooks.example').length === 2 ? true : undefined;
      },
      10_000,
      'hooks.example resolved again after the TTL',
    );
  });
});
