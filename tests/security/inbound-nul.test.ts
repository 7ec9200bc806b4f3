/**
 * NUL in an inbound message: a UCS-2 U+0000, or a 0x00 byte in a one-byte coding (ASCII, Latin-1),
 * is something a handset can send. It is recorded (the text with U+FFFD in its place, the bytes as
 * received) and the SMSC is answered OK, so it is not delivered again for ever; over HTTP the same
 * text is recorded too, not a 500.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';

const admin = `Bearer ${ADMIN_TOKEN}`;
const nina = basic('nina', 'nina-password');
const UPSTREAM_SECRET = 'nul-upstream-secret-0123456789abcdef';

let sim: SmppSimulator;
let gw: RunningGateway;
let upstreamMt: Server;

const adminCall = (method: string, path: string, json?: unknown) =>
  request(gw.base, method, `/admin/v1${path}`, {
    auth: admin,
    ...(json !== undefined && { json }),
  });

interface Inbound {
  text: string | null;
  binary: string | null;
  coding: number;
  from: string;
}

async function inboxOf(from: string): Promise<Inbound> {
  return waitFor(
    async () => {
      const list = await request(gw.base, 'GET', `/secure/inbound?from=${from}`, { auth: nina });
      return (list.body?.data?.messages as Inbound[] | undefined)?.[0];
    },
    15_000,
    `the message from ${from} in the inbox`,
  );
}

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: false });
  const { port } = await sim.start();
  // Where the upstream's connector would send MT messages; none are sent here.
  upstreamMt = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => upstreamMt.listen(0, '127.0.0.1', r));
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
    // The upstream's connector points at this host (its MT side is unused here).
    CONNECTOR_ALLOWED_HOSTS: '127.0.0.1',
  });
  expect(
    (await adminCall('POST', '/accounts', { username: 'nina', password: 'nina-password' })).status,
  ).toBe(201);
  const mtPort = (upstreamMt.address() as AddressInfo).port;
  expect(
    (
      await adminCall('POST', '/connectors', {
        name: 'nulup',
        url: `http://u:p@127.0.0.1:${mtPort}`,
      })
    ).status,
  ).toBe(201);
  expect(
    (await adminCall('PUT', '/connectors/nulup/inbound-secret', { secret: UPSTREAM_SECRET }))
      .status,
  ).toBe(200);
  for (const [name, position, connector] of [
    ['nul-smpp', 1, 'default'],
    ['nul-http', 2, 'nulup'],
  ] as const)
    expect(
      (await adminCall('PUT', `/mo-routes/${name}`, { position, connector, account: 'nina' }))
        .status,
    ).toBe(200);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
  upstreamMt?.closeAllConnections();
  await new Promise((r) => upstreamMt?.close(r));
});

describe('NUL in an inbound message', () => {
  it('over SMPP, UCS-2 U+0000: answered OK once, recorded with the bytes as received', async () => {
    // "\0Hi" in UCS-2.
    const statuses = await sim.originate({
      from: '41790001001',
      to: '4300',
      hex: '000000480069',
      dataCoding: 8,
    });
    expect(statuses).toEqual([0]);
    const m = await inboxOf('41790001001');
    expect(m).toMatchObject({ text: '\ufffdHi', binary: '000000480069', coding: 8 });
  });

  it('over SMPP, 0x00 in Latin-1 and in ASCII, and in a concatenated UCS-2 message', async () => {
    expect(
      await sim.originate({ from: '41790001002', to: '4300', hex: '41004200', dataCoding: 3 }),
    ).toEqual([0]);
    expect(
      await sim.originate({ from: '41790001003', to: '4300', hex: '00', dataCoding: 1 }),
    ).toEqual([0]);
    expect(
      await sim.originate({
        from: '41790001004',
        to: '4300',
        hex: '0041000000420000',
        dataCoding: 8,
        partBytes: 4,
      }),
    ).toEqual([0, 0]);
    expect(await inboxOf('41790001002')).toMatchObject({
      text: 'A\ufffdB\ufffd',
      binary: '41004200',
    });
    expect(await inboxOf('41790001003')).toMatchObject({ text: '\ufffd', binary: '00' });
    expect(await inboxOf('41790001004')).toMatchObject({
      text: 'A\ufffdB\ufffd',
      binary: '0041000000420000',
    });
  });

  it('over HTTP, in JSON and in a form: recorded, not a 500', async () => {
    const json = await request(gw.base, 'POST', '/inbound/v1/http/nulup', {
      auth: `Bearer ${UPSTREAM_SECRET}`,
      json: { from: '41790001005', to: '4300', text: 'STOP\u0000now' },
    });
    expect(json.status).toBe(200);
    expect(json.body.data.recorded).toBe(true);
    const form = await request(gw.base, 'POST', '/inbound/v1/http/nulup', {
      auth: `Bearer ${UPSTREAM_SECRET}`,
      body: 'from=41790001006&to=4300&text=%00',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(200);
    expect(await inboxOf('41790001005')).toMatchObject({
      text: 'STOP\ufffdnow',
      binary: Buffer.from('STOP\u0000now').toString('hex'),
    });
    expect(await inboxOf('41790001006')).toMatchObject({ text: '\ufffd', binary: '00' });
  });
});
