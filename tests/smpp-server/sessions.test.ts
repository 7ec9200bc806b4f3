/**
 * The SMPP server as a customer's platform meets it, in embedded mode with a simulator as the
 * operator's SMSC: binds of each kind with the account's SMPP password, refusals of wrong
 * credentials, of a disabled account and of one session too many, enquire_link both ways,
 * generic_nack, unbind, and the timeouts of a connection that never binds or goes silent.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSignedCertificate, waitFor, type TestCertificate } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { adminCaller } from '../support/http';
import { runSmsgw } from '../support/cli';
import { CMD, openEsme, type Esme } from './support/esme-client';

let smsc: SmppSimulator;
let gw: RunningGateway;
let certificate: TestCertificate;
const open: Esme[] = [];
const admin = `Bearer ${ADMIN_TOKEN}`;
const adminCall = adminCaller(() => gw.base, admin);

async function esme(options: { answerEnquireLink?: boolean } = {}): Promise<Esme> {
  const client = await openEsme({ port: gw.gateway.smppPort, ...options });
  open.push(client);
  return client;
}

beforeAll(async () => {
  smsc = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: false });
  const { port } = await smsc.start();
  certificate = selfSignedCertificate(mkdtempSync(join(tmpdir(), 'smpp-server-tls-')));
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
    SMPP_SERVER_TLS_PORT: '0',
    SMPP_SERVER_TLS_CERT: certificate.certFile,
    // Written beside the certificate by selfSignedCertificate.
    SMPP_SERVER_TLS_KEY: certificate.certFile.replace(/-cert\.pem$/, '-key.pem'),
    // Long enough for several slow binds on one connection on a busy machine.
    SMPP_BIND_TIMEOUT_MS: '8000',
    SMPP_IDLE_TIMEOUT_MS: '1500',
    SMPP_ENQUIRE_LINK_MS: '1000',
  });
  for (const username of ['carol', 'dave', 'frank']) {
    const created = await adminCall('POST', '/accounts', {
      username,
      password: `${username}-http-password`,
      balance: '100',
      rate: '0.1',
    });
    expect(created.status).toBe(201);
  }
  expect(
    (await adminCall('PUT', '/accounts/carol/smpp', { password: 'c4r0lpw!', max_sessions: 2 }))
      .status,
  ).toBe(200);
  expect((await adminCall('PUT', '/accounts/dave/smpp', { password: 'd4vepw#1' })).status).toBe(
    200,
  );
}, 60_000);

afterAll(async () => {
  for (const client of open) client.close();
  await gw?.stop();
  await smsc?.stop();
});

afterEach(async () => {
  for (const client of open.splice(0)) client.close();
  // Session places are freed as the server sees each close.
  await waitFor(
    async () =>
      (await adminCall('GET', '/accounts/carol/smpp')).status === 200 ? true : undefined,
    5_000,
  );
});

describe('SMPP sessions', () => {
  it('binds as transmitter, receiver and transceiver with the SMPP password, not the HTTP one', async () => {
    for (const kind of ['bind_transmitter', 'bind_receiver', 'bind_transceiver'] as const) {
      const client = await esme();
      const resp = await client.bind(kind, 'dave', 'd4vepw#1');
      expect(resp.commandId).toBe((CMD[kind] | 0x80000000) >>> 0);
      expect(resp.status).toBe(0);
      expect((await client.unbind()).status).toBe(0);
    }
    const wrong = await esme();
    expect((await wrong.bind('bind_transceiver', 'dave', 'dave-http-password')).status).toBe(0x0e);
    expect((await wrong.bind('bind_transceiver', 'nobody', 'd4vepw#1')).status).toBe(0x0e);
  });

  it('binds over TLS with the configured certificate', async () => {
    const client = await openEsme({
      port: gw.gateway.smppTlsPort!,
      tls: { ca: certificate.cert },
    });
    open.push(client);
    expect((await client.bind('bind_transceiver', 'dave', 'd4vepw#1')).status).toBe(0);
    expect((await client.request(CMD.enquire_link)).status).toBe(0);
    expect((await client.unbind()).status).toBe(0);
  });

  it('answers enquire_link, a generic_nack for an unknown command, and refuses a second bind', async () => {
    const client = await esme();
    expect((await client.request(CMD.enquire_link)).status).toBe(0);
    // Before the bind, a submit_sm is refused with ESME_RINVBNDSTS.
    expect((await client.submit({ to: '41790000001', bytes: Buffer.from('hi') })).status).toBe(
      0x04,
    );
    expect((await client.bind('bind_transceiver', 'dave', 'd4vepw#1')).status).toBe(0);
    const nack = await client.request(0x00000077);
    expect(nack.commandId >>> 0).toBe(CMD.generic_nack);
    expect(nack.status).toBe(0x03);
    expect((await client.bind('bind_transceiver', 'dave', 'd4vepw#1')).status).toBe(0x05);
  });

  it('refuses a session beyond the account’s limit until one closes', async () => {
    const first = await esme();
    const second = await esme();
    const third = await esme();
    expect((await first.bind('bind_transceiver', 'carol', 'c4r0lpw!')).status).toBe(0);
    expect((await second.bind('bind_transmitter', 'carol', 'c4r0lpw!')).status).toBe(0);
    expect((await third.bind('bind_receiver', 'carol', 'c4r0lpw!')).status).toBe(0x0d);
    await first.unbind();
    // Its place is freed when the server sees the connection close, as its listing shows.
    await waitFor(async () => {
      const list = (await adminCall('GET', '/smpp/sessions')).body.data as { system_id: string }[];
      return list.filter((s) => s.system_id === 'carol').length === 1 ? true : undefined;
    }, 10_000);
    const fourth = await esme();
    expect((await fourth.bind('bind_receiver', 'carol', 'c4r0lpw!')).status).toBe(0);
  });

  it('closes a connection that never binds, and unbinds a session that goes silent', async () => {
    const idle = await esme();
    const refused = await esme();
    expect((await refused.bind('bind_transmitter', 'dave', 'wrong')).status).not.toBe(0);
    await waitFor(() => (idle.closed && refused.closed ? true : undefined), 20_000);
    // Closed at the bind timeout, not unbound: unbind is for bound sessions.
    for (const unbound of [idle, refused])
      expect(unbound.received.map((p) => p.commandId)).not.toContain(CMD.unbind);

    const silent = await esme({ answerEnquireLink: false });
    expect((await silent.bind('bind_transmitter', 'dave', 'd4vepw#1')).status).toBe(0);
    await waitFor(() => (silent.closed ? true : undefined), 10_000);
    expect(silent.received.map((p) => p.commandId)).toEqual(
      expect.arrayContaining([CMD.enquire_link, CMD.unbind]),
    );

    // A client that answers the server's enquire_links stays bound past the idle timeout.
    const alive = await esme();
    expect((await alive.bind('bind_transmitter', 'dave', 'd4vepw#1')).status).toBe(0);
    await waitFor(
      () =>
        alive.received.filter((p) => p.commandId === CMD.enquire_link).length >= 3
          ? true
          : undefined,
      10_000,
    );
    expect(alive.closed).toBe(false);
  });

  it('closes the sessions of an account the operator disables within a second, and refuses its binds', async () => {
    const client = await esme();
    expect((await client.bind('bind_transceiver', 'dave', 'd4vepw#1')).status).toBe(0);
    const disabledAt = Date.now();
    expect((await adminCall('POST', '/accounts/dave/disable')).status).toBe(200);
    await waitFor(() => (client.closed ? true : undefined), 5_000);
    expect(Date.now() - disabledAt).toBeLessThan(1_000 + 500);
    expect(client.received.some((p) => p.commandId === CMD.unbind)).toBe(true);
    const again = await esme();
    expect((await again.bind('bind_transceiver', 'dave', 'd4vepw#1')).status).toBe(0x0d);
    expect((await adminCall('POST', '/accounts/dave/enable')).status).toBe(200);
  });

  it('gives access, limits the addresses and takes access away with the CLI', async () => {
    const given = JSON.parse(
      await runSmsgw(gw.base, [
        'smpp',
        'access',
        'frank',
        '--password',
        'fr4nk-pw',
        '--max-sessions',
        '3',
      ]),
    ) as unknown;
    expect(given).toEqual({
      system_id: 'frank',
      max_sessions: 3,
      throughput: null,
      allowed_addresses: [],
    });
    const client = await esme();
    expect((await client.bind('bind_transceiver', 'frank', 'fr4nk-pw')).status).toBe(0);

    await runSmsgw(gw.base, ['smpp', 'access', 'frank', '--allow-from', '192.0.2.0/24']);
    // The allow-list is checked at each bind: a new bind from 127.0.0.1 is refused.
    const elsewhere = await esme();
    expect((await elsewhere.bind('bind_transceiver', 'frank', 'fr4nk-pw')).status).toBe(0x0d);
    await runSmsgw(gw.base, ['smpp', 'access', 'frank', '--any-address']);
    expect((await elsewhere.bind('bind_transceiver', 'frank', 'fr4nk-pw')).status).toBe(0);

    expect(JSON.parse(await runSmsgw(gw.base, ['smpp', 'access', 'frank', '--remove']))).toEqual({
      system_id: 'frank',
      removed: true,
    });
    await waitFor(() => (client.closed && elsewhere.closed ? true : undefined), 5_000);
    const after = await esme();
    expect((await after.bind('bind_transceiver', 'frank', 'fr4nk-pw')).status).toBe(0x0e);
  });

  it('lists the sessions bound with the admin API and the CLI, and closes one', async () => {
    const rx = await esme();
    expect((await rx.bind('bind_receiver', 'dave', 'd4vepw#1')).status).toBe(0);
    const listed = await waitFor(async () => {
      const list = (await adminCall('GET', '/smpp/sessions')).body.data as {
        id: string;
        system_id: string;
        bind_type: string;
        address: string;
      }[];
      return list.find((s) => s.system_id === 'dave');
    }, 10_000);
    expect(listed).toMatchObject({
      bind_type: 'receiver',
      address: expect.stringContaining('127.0.0.1'),
    });
    const shown = JSON.parse(await runSmsgw(gw.base, ['smpp', 'sessions'])) as {
      data: { id: string }[];
    };
    expect(shown.data.map((s) => s.id)).toContain(listed.id);

    await runSmsgw(gw.base, ['smpp', 'sessions', '--close', listed.id]);
    await waitFor(() => (rx.closed ? true : undefined), 10_000);
    expect(rx.received.some((p) => p.commandId === CMD.unbind)).toBe(true);
    await waitFor(async () => {
      const list = (await adminCall('GET', '/smpp/sessions')).body.data as { id: string }[];
      return list.some((s) => s.id === listed.id) ? undefined : true;
    }, 10_000);
    expect((await adminCall('DELETE', `/smpp/sessions/${listed.id}`)).status).toBe(404);
    expect((await adminCall('DELETE', '/smpp/sessions/not-a-session')).status).toBe(400);
  });

  it('refuses malformed SMPP access settings with a 4xx naming the field, changing nothing', async () => {
    for (const [body, field] of [
      [{ password: '123456789' }, 'password'],
      [{ password: 'okpass12', max_sessions: 0 }, 'max_sessions'],
      [{ allowed_addresses: ['10.0.0.300'] }, 'allowed_addresses.0'],
      [{ throughput: 'fast' }, 'throughput'],
    ] as const) {
      const res = await adminCall('PUT', '/accounts/carol/smpp', body);
      expect(res.status).toBe(400);
      expect(res.body.detail.field).toBe(field);
    }
    expect((await adminCall('PUT', '/accounts/nobody/smpp', { password: 'xpass123' })).status).toBe(
      404,
    );
    expect((await adminCall('GET', '/accounts/carol/smpp')).body).toEqual({
      system_id: 'carol',
      max_sessions: 2,
      throughput: null,
      allowed_addresses: [],
    });
  });
});
