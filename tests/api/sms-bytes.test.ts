import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator, stripUdh } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';

/** What reaches the SMSC, byte for byte, for what a client sends (the simulator records the PDUs). */
let sim: SmppSimulator;
let gw: RunningGateway;
const auth = basic('byte', 'byte-password');

async function sendAndCapture(body: Record<string, unknown>) {
  const before = sim.received.length;
  const reply = await request(gw.base, 'POST', '/secure/send', {
    auth,
    json: { to: '41790000601', ...body },
  });
  expect(reply.status).toBe(200);
  const id = reply.body.data.slice('Success "'.length);
  const status = await waitFor(async () => {
    const m = (await request(gw.base, 'GET', `/secure/messages/${id}`, { auth })).body.data;
    return m.state !== 'accepted' && m.state !== 'queued' && m.state !== 'submitting'
      ? m
      : undefined;
  });
  return { id, status, pdus: sim.received.slice(before) };
}
const balance = async () =>
  (await request(gw.base, 'GET', '/secure/balance', { auth })).body.data.balance;

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0, rejectDestinations: /^41799/ });
  const { port } = await sim.start();
  gw = await startEmbedded({ SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}` });
  await request(gw.base, 'POST', '/admin/v1/accounts', {
    auth: `Bearer ${ADMIN_TOKEN}`,
    json: { username: 'byte', password: 'byte-password', balance: '100', rate: '0.1' },
  });
});
afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
});

describe('bytes at the SMSC', () => {
  it('"Hello @ £ €" goes out as GSM 03.38 with the escape for €', async () => {
    const { pdus } = await sendAndCapture({ content: 'Hello @ £ €' });
    expect(pdus).toHaveLength(1);
    expect(pdus[0].dataCoding).toBe(0);
    expect([...pdus[0].shortMessage]).toEqual([
      0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x20, 0x00, 0x20, 0x01, 0x20, 0x1b, 0x65,
    ]);
  });

  it('Cyrillic and an emoji go out as UCS-2 with data_coding 8', async () => {
    const { pdus } = await sendAndCapture({ content: 'Привет 👋' });
    expect(pdus[0].dataCoding).toBe(8);
    expect(pdus[0].shortMessage).toEqual(Buffer.from('Привет 👋', 'utf16le').swap16());
  });

  it('a 400-character GSM text arrives as 3 parts with one reference and sequence 1..3, billed as 3', async () => {
    const before = Number(await balance());
    const { pdus, status } = await sendAndCapture({ content: 'a'.repeat(400) });
    expect(pdus).toHaveLength(3);
    const udhs = pdus.map((p) => [...stripUdh(p.shortMessage, p.esmClass).udh!]);
    const ref = udhs[0][3];
    expect(udhs).toEqual([1, 2, 3].map((seq) => [5, 0, 3, ref, 3, seq]));
    expect(pdus.every((p) => p.esmClass === 0x40)).toBe(true);
    expect(status).toMatchObject({ segments: 3, cost: '0.3' });
    expect(Number(await balance())).toBeCloseTo(before - 0.3, 6);
  });

  it('a 200-character text with an emoji arrives as UCS-2 parts without a split surrogate pair', async () => {
    const text = `${'ж'.repeat(66)}😀${'ж'.repeat(132)}`;
    const { pdus } = await sendAndCapture({ content: text });
    expect(pdus.length).toBeGreaterThan(1);
    const bodies = pdus.map((p) => stripUdh(p.shortMessage, p.esmClass).body);
    for (const body of bodies) {
      const last = body.readUInt16BE(body.length - 2);
      expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
    }
    expect(Buffer.concat(bodies).swap16().toString('utf16le')).toBe(text);
  });

  it('hex_content arrives unchanged with its coding', async () => {
    const { pdus } = await sendAndCapture({ 'hex-content': '0048006900210020d83dde00', coding: 8 });
    expect(pdus[0].dataCoding).toBe(8);
    expect(pdus[0].shortMessage.toString('hex')).toBe('0048006900210020d83dde00');
  });

  it('a message the SMSC refuses for good fails and is refunded', async () => {
    const before = await balance();
    const { status, pdus } = await sendAndCapture({ to: '41799000001', content: 'x'.repeat(200) });
    expect(pdus).toEqual([]);
    expect(status).toMatchObject({ state: 'failed', error: 'ESME_RINVDSTADR', segments: 2 });
    expect(await balance()).toBe(before);
  });
});
