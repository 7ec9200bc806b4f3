/**
 * TLVs and flash, end to end in embedded mode: what a client, a connector and a route ask for
 * reaches the SMSC (the simulator records each submit_sm's optional parameters and data_coding)
 * octet for octet, an invalid TLV is refused at acceptance with a 400 and nothing charged, and a
 * flash message costs and counts what the same message costs without the flag.
 *
 * The shapes are held to their sources:
 * - Jasmin's `custom_tlvs` is a list of `(tag, length, type, value)`; its encoder
 *   (jasmin/tools/tlv_encoder.py, encode_custom_tlvs) also takes `(tag, type, value)` and
 *   `(tag, value)`, and writes `Int1`/`Int2`/`Int4`/`Int8` as `struct.pack('>B'|'>H'|'>I'|'>Q')`,
 *   `OctetString` as `str(value).encode('utf-8')`, `COctetString` with a terminating NUL.
 * - Kannel sets the message class in the data coding as `dcs |= (0x10 | msg->sms.mclass)` with
 *   the alphabet as `dcs |= (msg->sms.coding << 2)` (gw/sms.c, fields_to_dcs): 0x10 | class for
 *   the GSM default alphabet, 0x18 | class for UCS-2.
 */
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator, type ReceivedSubmit } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { runSmsgw } from '../support/cli';
import { adminCaller, basic, request } from '../support/http';

let home: SmppSimulator;
let india: SmppSimulator;
let gw: RunningGateway;
const alice = basic('alice', 'alice-password');
const admin = `Bearer ${ADMIN_TOKEN}`;

// India's DLT ids as operators there define them: the principal entity id and the content
// template id, each a string of digits in a vendor tag.
const ENTITY_ID = '1201159100000000001';
const TEMPLATE_ID = '1207161900000000002';

const adminCall = adminCaller(() => gw.base, admin);
const send = (json: Record<string, unknown>) =>
  request(gw.base, 'POST', '/secure/send', { auth: alice, json: { content: 'hello', ...json } });
const balance = async (): Promise<number> =>
  Number((await request(gw.base, 'GET', '/secure/balance', { auth: alice })).body.data.balance);
const hex = (text: string) => Buffer.from(text).toString('hex');

/** The submit_sm the simulator took for `to`, once it has `parts` of them. */
async function received(sim: SmppSimulator, to: string, parts = 1): Promise<ReceivedSubmit[]> {
  await waitFor(
    () => sim.received.filter((r) => r.to === to).length >= parts,
    30_000,
    `${parts} submit_sm for ${to}`,
  );
  return sim.received.filter((r) => r.to === to);
}
const tlvsOf = (submit: ReceivedSubmit) =>
  submit.tlvs.map((t) => ({ tag: t.tag, value: t.value.toString('hex') }));

beforeAll(async () => {
  home = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: false });
  india = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: false });
  const homePort = (await home.start()).port;
  const indiaPort = (await india.start()).port;
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${homePort}`,
    // The suite waits for the gateway to route by the new routes, which only shown routes tell.
    SHOW_ROUTES_TO_CUSTOMERS: 'true',
  });
  const created = await adminCall('POST', '/accounts', {
    username: 'alice',
    password: 'alice-password',
    balance: '100',
    rate: '0.1',
  });
  expect(created.status).toBe(201);
  expect(
    (
      await adminCall('POST', '/connectors', {
        name: 'in-dlt',
        url: `smpp://dlt:pw@127.0.0.1:${indiaPort}`,
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await adminCall('PUT', '/routes/india', {
        position: 1,
        kind: 'static',
        connectors: [{ connector: 'in-dlt' }],
        filters: { prefixes: ['91'] },
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await adminCall('PUT', '/routes/rest', {
        position: 2,
        kind: 'static',
        connectors: [{ connector: 'default' }],
      })
    ).status,
  ).toBe(200);
  // The gateway reloads routes every few seconds: both must be in place before the first send.
  for (const [to, route] of [
    ['919800000000', 'india'],
    ['41790000000', 'rest'],
  ] as const) {
    await waitFor(
      async () => {
        const rate = await request(gw.base, 'POST', '/secure/rate', {
          auth: alice,
          json: { to, content: 'x' },
        });
        return rate.body.data?.route === route;
      },
      30_000,
      `route ${route} loaded`,
    );
  }
  // Both links bound before the first message, so no job is published before its queue exists.
  await waitFor(
    async () => {
      const list = (await adminCall('GET', '/connectors')).body.data as { state: string }[];
      return list.length === 2 && list.every((c) => c.state === 'up');
    },
    30_000,
    'both connectors up',
  );
  // Set before the first message, so the dispatcher's first read has them.
  const connectorTlvs = await adminCall('PUT', '/connectors/in-dlt/tlvs', {
    tlvs: [
      ['0x1400', null, 'OctetString', ENTITY_ID],
      [0x1401, 'OctetString', 'connector-template'],
    ],
  });
  expect(connectorTlvs.status).toBe(200);
  expect(connectorTlvs.body.data.tlvs).toEqual([
    { tag: '0x1400', length: ENTITY_ID.length, value_hex: hex(ENTITY_ID) },
    { tag: '0x1401', length: 18, value_hex: hex('connector-template') },
  ]);
  // The route's through the CLI, as an operator sets them.
  const cli = await runSmsgw(gw.base, [
    'routes',
    'set-tlvs',
    'india',
    '--tlv',
    `0x1401:OctetString:${TEMPLATE_ID}`,
  ]);
  expect(JSON.parse(cli).data.tlvs).toEqual([
    { tag: '0x1401', length: TEMPLATE_ID.length, value_hex: hex(TEMPLATE_ID) },
  ]);
  expect(JSON.parse(await runSmsgw(gw.base, ['routes', 'tlvs', 'india'])).data.tlvs).toEqual([
    { tag: '0x1401', length: TEMPLATE_ID.length, value_hex: hex(TEMPLATE_ID) },
  ]);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await home?.stop();
  await india?.stop();
});

describe('custom_tlvs', () => {
  it("reach the SMSC as Jasmin's encoder writes them, in each of its shapes", async () => {
    const reply = await send({
      to: '41790000001',
      custom_tlvs: [
        [0x1500, null, 'OctetString', 'abc'],
        ['0x1501', 4, 'COctetString', 'xyz'],
        [0x0204, 2, 'Int2', 258],
        [0x1502, 'Int4', '7'],
        [0x1503, 'Int8', '72057594037927937'],
        [0x1504, 'Int1', 255],
        [0x1505, 'héllo'],
      ],
    });
    expect(reply.status).toBe(200);
    const [submit] = await received(home, '41790000001');
    expect(tlvsOf(submit)).toEqual([
      { tag: 0x0204, value: '0102' },
      { tag: 0x1500, value: hex('abc') },
      { tag: 0x1501, value: `${hex('xyz')}00` },
      { tag: 0x1502, value: '00000007' },
      { tag: 0x1503, value: '0100000000000001' },
      { tag: 0x1504, value: 'ff' },
      { tag: 0x1505, value: hex('héllo') },
    ]);
    expect(submit.dataCoding).toBe(0);
    // The same through express's route (an Idempotency-Key takes a request off the hot path).
    const viaExpress = await request(gw.base, 'POST', '/secure/send', {
      auth: alice,
      headers: { 'idempotency-key': 'tlvs-express-1' },
      json: {
        to: '41790000006',
        content: 'hello',
        flash: true,
        custom_tlvs: [[0x1500, null, 'OctetString', 'abc']],
      },
    });
    expect(viaExpress.status).toBe(200);
    const [expressSubmit] = await received(home, '41790000006');
    expect(tlvsOf(expressSubmit)).toEqual([{ tag: 0x1500, value: hex('abc') }]);
    expect(expressSubmit.dataCoding).toBe(0x10);
  });

  it('take the connector defaults under them and the route overrides over them', async () => {
    const reply = await send({
      to: '919800000001',
      custom_tlvs: [
        [0x1401, null, 'OctetString', 'client-template'],
        [0x1402, null, 'OctetString', 'tm-1'],
      ],
    });
    expect(reply.status).toBe(200);
    const [submit] = await received(india, '919800000001');
    expect(tlvsOf(submit)).toEqual([
      { tag: 0x1400, value: hex(ENTITY_ID) },
      { tag: 0x1401, value: hex(TEMPLATE_ID) },
      { tag: 0x1402, value: hex('tm-1') },
    ]);
    // A message without TLVs of its own still carries the connector's and the route's.
    expect((await send({ to: '919800000002' })).status).toBe(200);
    const [plain] = await received(india, '919800000002');
    expect(tlvsOf(plain)).toEqual([
      { tag: 0x1400, value: hex(ENTITY_ID) },
      { tag: 0x1401, value: hex(TEMPLATE_ID) },
    ]);
    // Elsewhere none are added.
    expect((await send({ to: '41790000002' })).status).toBe(200);
    expect(tlvsOf((await received(home, '41790000002'))[0])).toEqual([]);
  });

  it('go with every part of a long message and with every message of a batch', async () => {
    const long = 'x'.repeat(200);
    expect(
      (await send({ to: '41790000003', content: long, custom_tlvs: [[0x1506, 'Int1', 1]] })).status,
    ).toBe(200);
    const parts = await received(home, '41790000003', 2);
    expect(parts.map(tlvsOf)).toEqual([
      [{ tag: 0x1506, value: '01' }],
      [{ tag: 0x1506, value: '01' }],
    ]);
    const batch = await request(gw.base, 'POST', '/secure/sendbatch', {
      auth: alice,
      json: {
        globals: { custom_tlvs: [[0x1507, 'OctetString', 'g']] },
        messages: [
          { to: '41790000004', content: 'one' },
          { to: '41790000005', content: 'two', custom_tlvs: [[0x1508, 'OctetString', 'm']] },
        ],
      },
    });
    expect(batch.status).toBe(200);
    expect(tlvsOf((await received(home, '41790000004'))[0])).toEqual([
      { tag: 0x1507, value: hex('g') },
    ]);
    // A message's own list replaces the globals' (as any field of a batch message does).
    expect(tlvsOf((await received(home, '41790000005'))[0])).toEqual([
      { tag: 0x1508, value: hex('m') },
    ]);
  });

  it('are refused with a 400 when a tag or a length is invalid, and nothing is sent or charged', async () => {
    const before = await balance();
    const refusedTo = ['41790000009', '41790000010'];
    const sentTo = () =>
      [...home.received, ...india.received].filter((r) => refusedTo.includes(r.to)).length;
    const invalid: unknown[] = [
      // Tags the gateway writes itself: message_payload and the sar_* of long messages.
      [[0x0424, 'OctetString', 'x']],
      [[0x020c, 'Int2', 1]],
      [[0x020e, 'Int1', 1]],
      [[0x020f, 'Int1', 1]],
      // Outside SMPP's 16-bit tags, or none.
      [[0x10000, 'Int1', 1]],
      [[0, 'Int1', 1]],
      [['0xZZ', 'Int1', 1]],
      // A length the value does not have.
      [[0x1400, 5, 'OctetString', 'abc']],
      [[0x1400, 1, 'Int2', 1]],
      // Values that do not fit their type.
      [[0x1400, 'Int1', 256]],
      [[0x1400, 'Int2', -1]],
      [[0x1400, 'Int4', 'seven']],
      [[0x1400, 'Float', 1]],
      // Too long, the same tag twice, too many.
      [[0x1400, 'OctetString', 'x'.repeat(256)]],
      [
        [0x1400, 'OctetString', 'a'],
        [0x1400, 'OctetString', 'b'],
      ],
      Array.from({ length: 17 }, (_, i) => [0x1400 + i, 'Int1', 1]),
      [[0x1400]],
      'not a list',
    ];
    for (const custom_tlvs of invalid) {
      const reply = await send({ to: '41790000009', custom_tlvs });
      expect({ custom_tlvs, status: reply.status }).toEqual({ custom_tlvs, status: 400 });
      expect(JSON.stringify(reply.body)).toContain('custom_tlvs');
    }
    const batch = await request(gw.base, 'POST', '/secure/sendbatch', {
      auth: alice,
      json: {
        messages: [
          { to: '41790000009', content: 'ok' },
          { to: '41790000010', content: 'bad', custom_tlvs: [[0x0424, 'OctetString', 'x']] },
        ],
      },
    });
    expect(batch.status).toBe(400);
    expect(await balance()).toBe(before);
    expect(sentTo()).toBe(0);
  });

  it('are checked the same way at the admin API, which names the connector or route it lacks', async () => {
    const bad = await adminCall('PUT', '/connectors/in-dlt/tlvs', {
      tlvs: [[0x0424, 'OctetString', 'x']],
    });
    expect(bad.status).toBe(400);
    const badLength = await adminCall('PUT', '/routes/india/tlvs', {
      tlvs: [[0x1401, 3, 'OctetString', 'four']],
    });
    expect(badLength.status).toBe(400);
    expect((await adminCall('PUT', '/connectors/nope/tlvs', { tlvs: [] })).status).toBe(404);
    expect((await adminCall('GET', '/routes/nope/tlvs')).status).toBe(404);
    expect((await adminCall('PUT', '/routes/india/tlvs', { tlvs: [], extra: 1 })).status).toBe(400);
    // Nothing changed.
    expect((await adminCall('GET', '/connectors/in-dlt/tlvs')).body.data.tlvs).toHaveLength(2);
    expect((await adminCall('GET', '/routes/india/tlvs')).body.data.tlvs).toHaveLength(1);
  });
});

describe('flash', () => {
  it('sets the message class in data_coding, GSM and UCS-2 alike, octets unchanged', async () => {
    expect((await send({ to: '41790000020', flash: true })).status).toBe(200);
    expect((await send({ to: '41790000021', content: 'привет', flash: true })).status).toBe(200);
    expect((await send({ to: '41790000022', message_class: 1 })).status).toBe(200);
    expect((await send({ to: '41790000023', content: 'привет' })).status).toBe(200);
    const [gsm] = await received(home, '41790000020');
    const [ucs2] = await received(home, '41790000021');
    const [class1] = await received(home, '41790000022');
    const [plainUcs2] = await received(home, '41790000023');
    expect(gsm.dataCoding).toBe(0x10);
    expect(gsm.shortMessage.toString('latin1')).toBe('hello');
    expect(ucs2.dataCoding).toBe(0x18);
    expect(ucs2.shortMessage).toEqual(plainUcs2.shortMessage);
    expect(plainUcs2.dataCoding).toBe(8);
    expect(class1.dataCoding).toBe(0x11);
  });

  it('is priced and counted as the same message without it', async () => {
    const long = 'y'.repeat(200);
    let before = await balance();
    expect((await send({ to: '41790000030', content: long })).status).toBe(200);
    const plainCost = before - (await balance());
    before = await balance();
    expect((await send({ to: '41790000031', content: long, flash: true })).status).toBe(200);
    const flashCost = before - (await balance());
    expect(flashCost).toBeCloseTo(plainCost, 10);
    expect(flashCost).toBeCloseTo(0.2, 10);
    const plain = await received(home, '41790000030', 2);
    const flash = await received(home, '41790000031', 2);
    expect(flash.map((p) => p.dataCoding)).toEqual([0x10, 0x10]);
    expect(flash.map((p) => p.shortMessage.subarray(6))).toEqual(
      plain.map((p) => p.shortMessage.subarray(6)),
    );
  });

  it('is refused with a coding that has no class form, or beside another class', async () => {
    const before = await balance();
    const bad = [
      { flash: true, coding: 3 },
      { flash: true, message_class: 2 },
      { message_class: 4 },
      { flash: 'yes' },
    ];
    for (const extra of bad) {
      const reply = await send({ to: '41790000039', ...extra });
      expect({ extra, status: reply.status }).toEqual({ extra, status: 400 });
    }
    expect(await balance()).toBe(before);
    expect(home.received.filter((r) => r.to === '41790000039')).toHaveLength(0);
  });
});
