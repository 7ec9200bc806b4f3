import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@smsgw/kit/testing';
import { HttpCredentialClient } from '../src/credential-client';

/** A stand-in for auth's /internal/v1/verify that answers what `answer` says, when `gate` opens. */
let server: Server;
let authUrl: string;
let calls = 0;
let lastHeaders: Record<string, string | string[] | undefined> = {};
let answer: { status: number; body: unknown; headers?: Record<string, string> } = {
  status: 200,
  body: { accountId: 'a1', username: 'alice', via: 'basic' },
};
let gate: Promise<void> = Promise.resolve();

beforeAll(async () => {
  server = createServer((req, res) => {
    calls++;
    lastHeaders = req.headers;
    void gate.then(() => {
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  authUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  calls = 0;
  answer = { status: 200, body: { accountId: 'a1', username: 'alice', via: 'basic' } };
  gate = Promise.resolve();
});

const basic = 'Basic YWxpY2U6czNjcmV0';
const INTERNAL_TOKEN = 'unit-test-internal-token-0123456789';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * Entries refresh after 60 % of their life: these waits land between refresh point and expiry, with
 * room for a slow machine.
 */
const TTL_MS = 2000;
const PAST_REFRESH_MS = 1300;

/**
 * Until a refresh that failed has landed, every request answered from the cache: the entry is kept,
 * so a request after it starts the next refresh (the third call).
 */
const cachedPastFailedRefresh = (client: HttpCredentialClient) =>
  waitFor(
    async () => {
      expect((await client.verify(basic)).accountId).toBe('a1');
      return calls >= 3;
    },
    5_000,
    'a request answered from the cache after the failed refresh',
  );

describe('HttpCredentialClient', () => {
  it('asks auth once for concurrent requests with the same credentials', async () => {
    let open!: () => void;
    gate = new Promise<void>((r) => (open = r));
    const client = new HttpCredentialClient(authUrl, INTERNAL_TOKEN);
    const pending = Array.from({ length: 20 }, () => client.verify(basic));
    // Auth is asked; it answers once all twenty wait (a call each would show in `calls` below).
    await waitFor(() => calls > 0, 5_000, 'auth asked');
    open();
    const principals = await Promise.all(pending);
    expect(principals.every((p) => p.accountId === 'a1')).toBe(true);
    expect(calls).toBe(1);
    await client.verify(basic);
    expect(calls).toBe(1);
  });

  it('answers from the cache while it refreshes an ageing entry in the background', async () => {
    const client = new HttpCredentialClient(authUrl, INTERNAL_TOKEN, TTL_MS);
    await client.verify(basic);
    await sleep(PAST_REFRESH_MS);
    let open!: () => void;
    gate = new Promise<void>((r) => (open = r));
    answer = { status: 200, body: { accountId: 'a1', username: 'alice-renamed', via: 'basic' } };
    expect((await client.verify(basic)).username).toBe('alice');
    expect((await client.verify(basic)).username).toBe('alice');
    await waitFor(() => calls === 2);
    open();
    await waitFor(async () => (await client.verify(basic)).username === 'alice-renamed');
    expect(calls).toBe(2);
    expect((await client.verify(basic)).username).toBe('alice-renamed');
  });

  it('stops answering from the cache once auth refuses the credentials', async () => {
    const client = new HttpCredentialClient(authUrl, INTERNAL_TOKEN, TTL_MS);
    await client.verify(basic);
    await sleep(PAST_REFRESH_MS);
    answer = {
      status: 401,
      body: { detail: { code: 'UNAUTHORIZED', message: 'Wrong username or password' } },
    };
    await client.verify(basic); // still cached; starts the refresh
    await waitFor(() => calls === 2);
    // Answered from the cache until the refusal lands; the next request then asks auth again.
    const refused = await waitFor(
      () =>
        client.verify(basic).then(
          () => undefined,
          (err: unknown) => err,
        ),
      5_000,
      'the credential refused',
    );
    expect(refused).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    // That was the third call: no request was answered from the cache after the refusal (one
    // would have started another refresh).
    expect(calls).toBe(3);
  });

  it('keeps a cached answer while auth is unreachable, and reports 503 without one', async () => {
    const client = new HttpCredentialClient(authUrl, INTERNAL_TOKEN, TTL_MS);
    await client.verify(basic);
    await sleep(PAST_REFRESH_MS);
    answer = { status: 502, body: 'bad gateway' };
    expect((await client.verify(basic)).accountId).toBe('a1');
    await waitFor(() => calls === 2);
    await cachedPastFailedRefresh(client);
    await expect(client.verify('Basic Ym9iOng=')).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
    });
    await expect(client.verify(undefined)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('tells auth the client address, so failed logins are limited per client', async () => {
    const client = new HttpCredentialClient(authUrl, INTERNAL_TOKEN);
    await client.verify(basic, { address: '198.51.100.7' });
    expect(lastHeaders['x-smsgw-client-address']).toBe('198.51.100.7');
  });

  it('passes a rate limit on with its Retry-After, and keeps a cached answer meanwhile', async () => {
    const limited = {
      status: 429,
      body: { detail: { code: 'RATE_LIMITED', message: 'Too many failed logins' } },
      headers: { 'retry-after': '42' },
    };
    const client = new HttpCredentialClient(authUrl, INTERNAL_TOKEN, TTL_MS);
    await client.verify(basic);
    await sleep(PAST_REFRESH_MS);
    answer = limited;
    await client.verify(basic); // still cached; starts the refresh
    await waitFor(() => calls === 2);
    await cachedPastFailedRefresh(client);
    await expect(client.verify('Basic Ym9iOng=')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
      extra: { headers: { 'Retry-After': '42' } },
    });
  });

  it('passes the busy 503 of auth on with its Retry-After', async () => {
    answer = {
      status: 503,
      body: { detail: { code: 'SERVICE_UNAVAILABLE', message: 'Too many logins at once' } },
      headers: { 'retry-after': '1' },
    };
    await expect(
      new HttpCredentialClient(authUrl, INTERNAL_TOKEN).verify(basic),
    ).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
      message: 'Too many logins at once',
      extra: { headers: { 'Retry-After': '1' } },
    });
  });
});
