import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { request } from '../support/http';

/**
 * Jasmin's HTTP interface and Kannel's sendsms on ports of their own (JASMIN_HTTP_PORT,
 * KANNEL_SENDSMS_PORT), as a client configured with a host and port expects them. Jasmin's HTTP API
 * listens on 1401 unless configured (jasmin/protocols/http/configs.py:
 * `self.port = self._getint('http-api', 'port', 1401)`); Kannel's smsbox serves sendsms on its
 * `sendsms-port`, 13013 in its user guide's smsbox example (`group = smsbox` …
 * `sendsms-port = 13013`). Each port answers as the main port does, and serves its own interface
 * only. 0 takes a free port here.
 */

const PASSWORD = 'ports-password-01';
let sim: SmppSimulator;
let gw: RunningGateway;
let jasmin: string;
let kannel: string;
let smscUrl: string;

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0 });
  const { port } = await sim.start();
  smscUrl = `smpp://gw:pw@127.0.0.1:${port}`;
  gw = await startEmbedded({
    SMSC_URL: smscUrl,
    JASMIN_HTTP_PORT: '0',
    KANNEL_SENDSMS_PORT: '0',
  });
  expect(gw.gateway.jasminHttpPort).toEqual(expect.any(Number));
  expect(gw.gateway.kannelSendsmsPort).toEqual(expect.any(Number));
  jasmin = `http://127.0.0.1:${gw.gateway.jasminHttpPort}`;
  kannel = `http://127.0.0.1:${gw.gateway.kannelSendsmsPort}`;
  const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
    auth: `Bearer ${ADMIN_TOKEN}`,
    json: { username: 'ports', password: PASSWORD, balance: '50' },
  });
  expect(created.status).toBe(201);
}, 60_000);
afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
});

const jasminQuery = (extra: Record<string, string> = {}): string =>
  new URLSearchParams({ username: 'ports', password: PASSWORD, ...extra }).toString();

describe("Jasmin's HTTP interface on JASMIN_HTTP_PORT", () => {
  it('sends as the main port does, and the message reaches the SMSC', async () => {
    const before = sim.received.length;
    const query = jasminQuery({ to: '41790000001', content: 'via 1401' });
    const own = await request(jasmin, 'GET', `/send?${query}`);
    const main = await request(gw.base, 'GET', `/send?${query}`);
    expect(own.status).toBe(200);
    expect(own.text).toMatch(/^Success "[0-9a-f-]{36}"$/);
    expect(main.status).toBe(own.status);
    expect(main.text).toMatch(/^Success "/);
    await waitFor(() => sim.received.length >= before + 2, 15_000, 'both messages at the SMSC');
    // POST with a form, as Jasmin's examples send it.
    const posted = await request(jasmin, 'POST', '/send', {
      body: jasminQuery({ to: '41790000002', content: 'posted' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(posted.text).toMatch(/^Success "/);
  });

  it('refuses as the main port does', async () => {
    const query = new URLSearchParams({
      username: 'ports',
      password: 'wrong-password',
      to: '41790000001',
      content: 'x',
    }).toString();
    const own = await request(jasmin, 'GET', `/send?${query}`);
    const main = await request(gw.base, 'GET', `/send?${query}`);
    expect({ status: own.status, text: own.text }).toEqual({
      status: main.status,
      text: main.text,
    });
    expect(own.status).toBe(403);
  });

  it('answers /balance, /rate and /ping (ping.py answers the text Jasmin/PONG)', async () => {
    const own = await request(jasmin, 'GET', `/balance?${jasminQuery()}`);
    const main = await request(gw.base, 'GET', `/balance?${jasminQuery()}`);
    expect(own.status).toBe(200);
    expect(own.body).toEqual(main.body);
    const rate = await request(jasmin, 'GET', `/rate?${jasminQuery({ to: '41790000001' })}`);
    expect(rate.status).toBe(200);
    const ping = await request(jasmin, 'GET', '/ping');
    expect({ status: ping.status, text: ping.text }).toEqual({ status: 200, text: 'Jasmin/PONG' });
  });

  it("serves Jasmin's HTTP interface only: no REST, admin, Kannel or metrics routes", async () => {
    for (const path of ['/secure/balance', '/admin/v1/accounts', '/cgi-bin/sendsms', '/metrics'])
      expect({ path, status: (await request(jasmin, 'GET', path)).status }).toEqual({
        path,
        status: 404,
      });
  });
});

describe("Kannel's sendsms on KANNEL_SENDSMS_PORT", () => {
  const kannelQuery = (extra: Record<string, string>): string =>
    new URLSearchParams({ username: 'ports', password: PASSWORD, ...extra }).toString();

  it('accepts as the main port does, and the message reaches the SMSC', async () => {
    const before = sim.received.length;
    const query = kannelQuery({ to: '41790000003', text: 'via 13013' });
    const own = await request(kannel, 'GET', `/cgi-bin/sendsms?${query}`);
    const main = await request(gw.base, 'GET', `/cgi-bin/sendsms?${query}`);
    expect({ status: own.status, text: own.text }).toEqual({
      status: 202,
      text: '0: Accepted for delivery',
    });
    expect({ status: main.status, text: main.text }).toEqual({
      status: own.status,
      text: own.text,
    });
    await waitFor(() => sim.received.length >= before + 2, 15_000, 'both messages at the SMSC');
  });

  it('refuses as the main port does', async () => {
    const query = kannelQuery({ password: 'wrong-password', to: '41790000003', text: 'x' });
    const own = await request(kannel, 'GET', `/cgi-bin/sendsms?${query}`);
    const main = await request(gw.base, 'GET', `/cgi-bin/sendsms?${query}`);
    expect({ status: own.status, text: own.text }).toEqual({
      status: main.status,
      text: main.text,
    });
    expect(own.status).toBe(403);
  });

  it("serves Kannel's sendsms only", async () => {
    for (const path of ['/send', '/secure/balance', '/admin/v1/accounts', '/metrics', '/ping'])
      expect({ path, status: (await request(kannel, 'GET', path)).status }).toEqual({
        path,
        status: 404,
      });
  });
});

it('opens no port of its own unless asked', async () => {
  const plain = await startEmbedded({ SMSC_URL: smscUrl });
  try {
    expect(plain.gateway.jasminHttpPort).toBeUndefined();
    expect(plain.gateway.kannelSendsmsPort).toBeUndefined();
  } finally {
    await plain.stop();
  }
});
