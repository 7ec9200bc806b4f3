/**
 * Generated hostile input at every inbound entry point, in embedded mode: HTTP upstream requests
 * (bodies, content types, encodings, fields, with and without the connector's secret) and SMPP
 * deliver_sm and data_sm PDUs (addresses, data_coding, esm_class, UDH, message_payload, SAR,
 * odd lengths). No HTTP answer is a 5xx; every PDU is answered, and answered OK (anything an SMSC
 * delivers is recorded, so nothing is delivered again for ever); the gateway still takes and
 * routes an ordinary message after. The seed is fixed so a failure reproduces; FUZZ_SEED picks
 * another.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator, type RawMoPdu } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';

const SEED = Number(process.env['FUZZ_SEED'] ?? 20240917);
const HTTP_REQUESTS = 600;
const PDUS = 400;
const CONCURRENCY = 8;
const SECRET = 'fuzz-upstream-secret-0123456789abcdef';

const admin = `Bearer ${ADMIN_TOKEN}`;
const owner = basic('fuzzed', 'fuzzed-password');

let sim: SmppSimulator;
let gw: RunningGateway;
let upstreamMt: Server;

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: false });
  const { port } = await sim.start();
  upstreamMt = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => upstreamMt.listen(0, '127.0.0.1', r));
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
    CONNECTOR_ALLOWED_HOSTS: '127.0.0.1',
    MAX_BODY_BYTES: '65536',
    LOG_LEVEL: process.env['FUZZ_LOG'] ?? 'silent',
  });
  const call = (method: string, path: string, json: unknown) =>
    request(gw.base, method, `/admin/v1${path}`, { auth: admin, json });
  expect(
    (await call('POST', '/accounts', { username: 'fuzzed', password: 'fuzzed-password' })).status,
  ).toBe(201);
  const mtPort = (upstreamMt.address() as AddressInfo).port;
  expect(
    (await call('POST', '/connectors', { name: 'fuzzup', url: `http://u:p@127.0.0.1:${mtPort}` }))
      .status,
  ).toBe(201);
  expect((await call('PUT', '/connectors/fuzzup/inbound-secret', { secret: SECRET })).status).toBe(
    200,
  );
  // Everything either entry point brings goes to one account, STOP included.
  expect(
    (await call('PUT', '/mo-routes/fuzz', { position: 1, any_connector: true, account: 'fuzzed' }))
      .status,
  ).toBe(200);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
  upstreamMt?.closeAllConnections();
  await new Promise((r) => upstreamMt?.close(r));
});

/** Runs `work` over `items`, `CONCURRENCY` at a time. */
async function inParallel<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

const hostileChar = fc.constantFrom(
  '\u0000',
  '\u0001',
  '\u001b',
  '\u007f',
  '\ud800',
  '\udfff',
  '\ufeff',
  '\uffff',
  '\u202e',
  '%00',
  '%',
  '&',
  '=',
  '+',
  '\\',
  '"',
  '😀',
  '€',
);
const hostileString = fc
  .array(fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), hostileChar), { maxLength: 6 })
  .map((parts) => parts.join(''));
const value = fc.oneof(
  hostileString,
  fc.constantFrom('41790000001', '+41790000001', '4000', '00ff', 'STOP', 'START', '0', '8', '255'),
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map(String),
  fc.uint8Array({ maxLength: 20 }).map((b) => Buffer.from(b).toString('hex')),
);
const fieldName = fc.constantFrom(
  'from',
  'to',
  'text',
  'binary',
  'coding',
  'secret',
  '__proto__',
  'x',
);
const fields = fc.dictionary(fieldName, value, { maxKeys: 6 });
const jsonValue = fc.oneof(
  value,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(value, { maxLength: 3 }),
);

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=bogus',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=iso-8859-1',
  'application/x-www-form-urlencoded; charset=utf-16',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/xml',
  '',
);

/** A message the schema takes, with hostile text or bytes in it: recorded, or a repeat. */
const validMessage = fc.oneof(
  fc.record({
    from: fc.constantFrom('41790000001', '+41790000002', 'Acme'),
    to: fc.constantFrom('4000', '+4000'),
    text: hostileString,
  }),
  fc.record({
    from: fc.constantFrom('41790000003'),
    to: fc.constantFrom('4000'),
    binary: fc
      .uint8Array({ minLength: 1, maxLength: 200 })
      .map((b) => Buffer.from(b).toString('hex')),
    coding: fc.nat(255).map(String),
  }),
);

const body = fc.oneof(
  validMessage.map((m) => JSON.stringify(m)),
  validMessage.map((m) => new URLSearchParams(m as Record<string, string>).toString()),
  fields.map((f) => JSON.stringify(f)),
  fc.dictionary(fieldName, jsonValue, { maxKeys: 6 }).map((f) => JSON.stringify(f)),
  fields.map((f) => new URLSearchParams(f).toString()),
  hostileString,
  fc.constantFrom('{', '[]', 'null', '"x"', '1', '{"from":', 'from=&to=&text=', '%', 'a=%zz'),
  fc.string({ unit: 'binary', maxLength: 300 }),
);

interface HttpCase {
  auth: 'none' | 'right' | 'wrong' | 'basic';
  path: string;
  contentType: string;
  encoding: string | undefined;
  body: string;
}

const httpCase: fc.Arbitrary<HttpCase> = fc.record({
  auth: fc.constantFrom('none', 'right', 'right', 'right', 'wrong', 'basic'),
  path: fc.constantFrom('fuzzup', 'fuzzup', 'default', 'nosuch', '%00', '..%2Ffuzzup', 'fuzzup/x'),
  contentType,
  encoding: fc.constantFrom(undefined, undefined, 'gzip', 'deflate', 'br', 'bogus'),
  body,
});

const authHeader = (c: HttpCase): Record<string, string> => {
  switch (c.auth) {
    case 'right':
      return { authorization: `Bearer ${SECRET}` };
    case 'wrong':
      return { authorization: `Bearer ${SECRET.slice(1)}` };
    case 'basic':
      return { authorization: basic('fuzzup', SECRET) };
    default:
      return {};
  }
};

describe('inbound fuzz', () => {
  it('answers every generated HTTP upstream request without a 5xx', async () => {
    const cases = fc.sample(httpCase, { seed: SEED, numRuns: HTTP_REQUESTS });
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    await inParallel(cases, async (c) => {
      const headers: Record<string, string> = { ...authHeader(c) };
      if (c.contentType !== '') headers['content-type'] = c.contentType;
      if (c.encoding !== undefined) headers['content-encoding'] = c.encoding;
      const reply = await fetch(`${gw.base}/inbound/v1/http/${c.path}`, {
        method: 'POST',
        headers,
        body: c.body,
        signal: AbortSignal.timeout(20_000),
      });
      await reply.arrayBuffer();
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      if (reply.status >= 500) failures.push(`${reply.status} ${JSON.stringify(c)}`);
      // A path that names no connector endpoint at all is a 404; any other is refused unread.
      if (c.auth !== 'right' && c.auth !== 'basic' && ![401, 404].includes(reply.status))
        failures.push(`unauthenticated got ${reply.status}: ${JSON.stringify(c)}`);
    });
    expect(failures).toEqual([]);
    // The generator reaches past authentication and parsing, to recording.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
  }, 180_000);

  const address = fc.oneof(
    fc.constantFrom('41790000001', '4000', '', '+41790000001', 'Acme Bank', '00000000000000000000'),
    fc.string({
      unit: fc.integer({ min: 1, max: 0xff }).map((c) => String.fromCharCode(c)),
      maxLength: 30,
    }),
  );
  const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((b) => Buffer.from(b));
  const udh = fc.oneof(
    fc
      .tuple(fc.nat(255), fc.nat(255), fc.nat(255))
      .map(([ref, total, seq]) => Buffer.from([5, 0x00, 3, ref, total, seq])),
    fc
      .tuple(fc.nat(65535), fc.nat(255), fc.nat(255))
      .map(([ref, total, seq]) => Buffer.from([6, 0x08, 4, ref >> 8, ref & 0xff, total, seq])),
    bytes(12).map((b) => Buffer.concat([Buffer.from([b.length]), b])),
    bytes(6),
  );
  const pdu: fc.Arbitrary<RawMoPdu> = fc
    .record({
      command: fc.constantFrom('deliver_sm', 'deliver_sm', 'data_sm'),
      source_addr: address,
      destination_addr: address,
      source_addr_ton: fc.nat(255),
      source_addr_npi: fc.nat(255),
      esm_class: fc.oneof(fc.constantFrom(0, 0x40, 0x03, 0x43), fc.nat(255)),
      data_coding: fc.oneof(fc.constantFrom(0, 1, 3, 4, 8, 0xf0, 0xf5), fc.nat(255)),
      udh: fc.option(udh, { nil: undefined }),
      body: bytes(140),
      payload: fc.option(bytes(1200), { nil: undefined }),
      sar: fc.option(fc.tuple(fc.nat(65535), fc.nat(255), fc.nat(255)), { nil: undefined }),
    })
    .map((g): RawMoPdu => {
      const message = g.udh ? Buffer.concat([g.udh, g.body]) : g.body;
      const fields: RawMoPdu['fields'] = {
        source_addr: g.source_addr,
        destination_addr: g.destination_addr,
        source_addr_ton: g.source_addr_ton,
        source_addr_npi: g.source_addr_npi,
        esm_class: g.esm_class,
        data_coding: g.data_coding,
      };
      // data_sm has no short_message: its text is message_payload.
      if (g.command === 'deliver_sm') fields['short_message'] = message.subarray(0, 254);
      if (g.payload !== undefined || g.command === 'data_sm')
        fields['message_payload'] = g.payload ?? message;
      if (g.sar) {
        fields['sar_msg_ref_num'] = g.sar[0];
        fields['sar_total_segments'] = g.sar[1];
        fields['sar_segment_seqnum'] = g.sar[2];
      }
      return { command: g.command, fields };
    });

  it('answers every generated deliver_sm and data_sm, OK, and still routes an ordinary message', async () => {
    const pdus = fc.sample(pdu, { seed: SEED, numRuns: PDUS });
    const failures: string[] = [];
    await inParallel(pdus, async (p) => {
      const status = await sim.originatePdu(p, 20_000);
      // A receipt (esm_class 0x04) that names no message is answered too; anything else is an
      // inbound message, which must be recorded.
      if (status === undefined || status !== 0)
        failures.push(
          `${status === undefined ? 'unanswered' : `status 0x${status.toString(16)}`}: ${JSON.stringify(
            { ...p, fields: { ...p.fields } },
          )}`,
        );
    });
    expect(failures.slice(0, 5)).toEqual([]);

    expect(await sim.originate({ from: '41790009999', to: '4000', text: 'still here' })).toEqual([
      0,
    ]);
    await waitFor(
      async () => {
        const list = await request(gw.base, 'GET', '/secure/inbound?from=41790009999', {
          auth: owner,
        });
        return list.body.data.messages[0]?.text === 'still here' ? true : undefined;
      },
      20_000,
      'an ordinary message routed after the fuzz',
    );
    expect((await fetch(`${gw.base}/healthz`)).status).toBe(200);
  }, 240_000);
});
