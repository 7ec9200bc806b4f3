/**
 * submit_sm as a customer's platform sends it, through the same acceptance as /secure/send: text,
 * binary and UCS-2 content kept byte for byte with its data_coding, the parts of a long message the
 * customer concatenated itself (UDH or SAR TLVs) passed on as they came, each its own message, a
 * long message given whole in message_payload, refusals with the SMPP status
 * of docs/smpp-server.md (nothing charged), the account's throughput answered with
 * ESME_RTHROTTLED, and query_sm answering from the message's state.
 */
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator, stripUdh } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { adminCaller, basic, request } from '../support/http';
import { openEsme, tlv, type Esme } from './support/esme-client';

let smsc: SmppSimulator;
let gw: RunningGateway;
let alice: Esme;
const admin = `Bearer ${ADMIN_TOKEN}`;
const adminCall = adminCaller(() => gw.base, admin);
const balance = async (user: string): Promise<string> =>
  (await request(gw.base, 'GET', '/secure/balance', { auth: basic(user, `${user}-http-password`) }))
    .body.data.balance as string;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const receivedBy = (to: string) => smsc.received.filter((r) => r.to === to);

async function account(username: string, balanceValue: string, smpp: Record<string, unknown>) {
  expect(
    (
      await adminCall('POST', '/accounts', {
        username,
        password: `${username}-http-password`,
        balance: balanceValue,
        rate: '0.1',
      })
    ).status,
  ).toBe(201);
  expect((await adminCall('PUT', `/accounts/${username}/smpp`, smpp)).status).toBe(200);
}

async function bound(username: string, password: string): Promise<Esme> {
  const client = await openEsme({ port: gw.gateway.smppPort });
  expect((await client.bind('bind_transceiver', username, password)).status).toBe(0);
  return client;
}

beforeAll(async () => {
  smsc = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: false });
  const { port } = await smsc.start();
  gw = await startEmbedded({ SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}` });
  await account('alice', '100', { password: 'al1ce-pw' });
  await account('poor', '0', { password: 'p00r-spw' });
  await account('slow', '100', { password: 'sl0w-spw', throughput: 2 });
  alice = await bound('alice', 'al1ce-pw');
}, 60_000);

afterAll(async () => {
  alice?.close();
  await gw?.stop();
  await smsc?.stop();
});

describe('submit_sm', () => {
  it('accepts text, binary and UCS-2 content and passes its bytes and data_coding on unchanged', async () => {
    const cases = [
      { to: '41790000101', dataCoding: 0, bytes: Buffer.from('Hello @ $ world', 'latin1') },
      {
        to: '41790000102',
        dataCoding: 4,
        bytes: Buffer.from([0x00, 0xff, 0x10, 0x80, 0x7f, 0x0a]),
      },
      { to: '41790000103', dataCoding: 8, bytes: Buffer.from('00480069d83dde00', 'hex') },
    ];
    for (const c of cases) {
      const { status, id } = await alice.submit({ from: '4000', ...c });
      expect(status).toBe(0);
      expect(id).toMatch(UUID);
      const [got] = await waitFor(
        () => (receivedBy(c.to).length > 0 ? receivedBy(c.to) : undefined),
        20_000,
      );
      expect(got.dataCoding).toBe(c.dataCoding);
      expect(got.shortMessage.equals(c.bytes)).toBe(true);
      expect(got.from).toBe('4000');
    }
  });

  it('passes each part of a long message concatenated by UDH on as it came: its own message, id and price', async () => {
    const before = Number(await balance('alice'));
    // 8-bit reference, GSM 03.38 septets; 16-bit reference, UCS-2.
    const gsm = ['x'.repeat(153), 'y'.repeat(153), 'z'.repeat(40)].map((body, i) => ({
      to: '41790000104',
      dataCoding: 0,
      bytes: Buffer.concat([
        Buffer.from([0x05, 0x00, 0x03, 0x2a, 3, i + 1]),
        Buffer.from(body, 'latin1'),
      ]),
    }));
    const ucs2 = ['00480069', '0021d83dde00'].map((body, i) => ({
      to: '41790000108',
      dataCoding: 8,
      bytes: Buffer.from(`060804123402${String(i + 1).padStart(2, '0')}${body}`, 'hex'),
    }));
    const parts = [...gsm, ...ucs2];
    const answers = await Promise.all(parts.map((p) => alice.submit({ ...p, esmClass: 0x40 })));
    expect(answers.map((a) => a.status)).toEqual([0, 0, 0, 0, 0]);
    for (const a of answers) expect(a.id).toMatch(UUID);
    expect(new Set(answers.map((a) => a.id)).size).toBe(5);
    for (const to of ['41790000104', '41790000108']) {
      const expected = parts.filter((p) => p.to === to);
      const got = await waitFor(
        () => (receivedBy(to).length === expected.length ? receivedBy(to) : undefined),
        20_000,
      );
      // Byte for byte: the customer's UDH and content, its data_coding, UDHI, no part re-cut.
      const sent = got.map((g) => g.shortMessage.toString('hex')).sort();
      expect(sent).toEqual(expected.map((p) => p.bytes.toString('hex')).sort());
      for (const g of got) {
        expect(g.esmClass & 0x40).toBe(0x40);
        expect(g.dataCoding).toBe(expected[0].dataCoding);
      }
    }
    // Each part is charged as one part at the account's rate.
    expect(before - Number(await balance('alice'))).toBeCloseTo(0.5, 6);
  });

  it('passes the SAR TLVs of a part on as they came, and refuses a SAR part that does not fit one part', async () => {
    const sar = (seq: number) => [
      tlv(0x020c, Buffer.from([0x12, 0x34])),
      tlv(0x020e, Buffer.from([2])),
      tlv(0x020f, Buffer.from([seq])),
    ];
    const bodies = ['a'.repeat(153), 'b'.repeat(20)].map((b) => Buffer.from(b, 'latin1'));
    const answers = await Promise.all(
      bodies.map((bytes, i) => alice.submit({ to: '41790000109', bytes, tlvs: sar(i + 1) })),
    );
    expect(answers.map((a) => a.status)).toEqual([0, 0]);
    expect(answers[0].id).not.toBe(answers[1].id);
    const got = await waitFor(
      () => (receivedBy('41790000109').length === 2 ? receivedBy('41790000109') : undefined),
      20_000,
    );
    for (const [i, bytes] of bodies.entries()) {
      const part = got.find((g) => g.shortMessage.equals(bytes));
      expect(part).toBeDefined();
      expect(part!.esmClass & 0x40).toBe(0);
      const tlvs = new Map(part!.tlvs.map((t) => [t.tag, t.value.toString('hex')]));
      expect(tlvs.get(0x020c)).toBe('1234');
      expect(tlvs.get(0x020e)).toBe('02');
      expect(tlvs.get(0x020f)).toBe(`0${i + 1}`);
    }
    const tooLong = await alice.submit({
      to: '41790000110',
      bytes: Buffer.from('c'.repeat(200), 'latin1'),
      tlvs: sar(1),
    });
    expect(tooLong.status).toBe(0x01);
  });

  it('accepts a whole long message in message_payload', async () => {
    const payload = Buffer.from('p'.repeat(300), 'latin1');
    const { status } = await alice.submit({ to: '41790000105', bytes: payload });
    expect(status).toBe(0);
    const parts = await waitFor(
      () => (receivedBy('41790000105').length === 2 ? receivedBy('41790000105') : undefined),
      20_000,
    );
    expect(
      Buffer.concat(parts.map((p) => stripUdh(p.shortMessage, p.esmClass).body)).equals(payload),
    ).toBe(true);
  });

  it('refuses with the status of the table, charging nothing', async () => {
    const before = await balance('alice');
    expect((await alice.submit({ to: 'not-a-number', bytes: Buffer.from('x') })).status).toBe(0x0b);
    expect(
      (
        await alice.submit({
          to: '41790000106',
          from: 'FAR-TOO-LONG-SENDER',
          bytes: Buffer.from('x'),
        })
      ).status,
    ).toBe(0x0a);
    expect((await alice.submit({ to: '41790000106', bytes: Buffer.alloc(0) })).status).toBe(0x01);
    expect(
      (await alice.submit({ to: '41790000106', bytes: Buffer.from('x'), validity: 'garbage' }))
        .status,
    ).toBe(0x62);
    expect(await balance('alice')).toBe(before);
    const poor = await bound('poor', 'p00r-spw');
    expect((await poor.submit({ to: '41790000106', bytes: Buffer.from('x') })).status).toBe(0x45);
    poor.close();
    expect(receivedBy('41790000106')).toEqual([]);
  });

  it("answers ESME_RTHROTTLED past the account's messages per second, across its sessions", async () => {
    const one = await bound('slow', 'sl0w-spw');
    const two = await bound('slow', 'sl0w-spw');
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? one : two).submit({ to: `4179000020${i}`, bytes: Buffer.from('x') }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 0x58).length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 0 || s === 0x58)).toBe(true);
    const accepted = statuses.filter((s) => s === 0).length;
    // At most two per second: the burst spans at most two seconds.
    expect(accepted).toBeLessThanOrEqual(4);
    one.close();
    two.close();
  });

  it('answers query_sm from the message state, and ESME_RINVMSGID for an id it does not know', async () => {
    const { id } = await alice.submit({ to: '41790000107', bytes: Buffer.from('q') });
    const answer = await waitFor(async () => {
      const q = await alice.query(id);
      return q.state === 1 || q.state === 2 ? q : undefined;
    }, 20_000);
    expect(answer.status).toBe(0);
    expect((await alice.query('00000000-0000-0000-0000-000000000000')).status).toBe(0x0c);
    expect((await alice.query('nonsense')).status).toBe(0x0c);
  });
});
