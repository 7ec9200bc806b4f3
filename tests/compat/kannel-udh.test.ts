import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator, type ReceivedSubmit } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { request } from '../support/http';

/**
 * Kannel's `udh` on /cgi-bin/sendsms, carried to the SMSC byte for byte: the submit_sm has UDHI set
 * in esm_class (SMPP 3.4 5.2.12: "UDHI Indicator (only relevant for MT short messages)", 0x40) and
 * its short_message is the header followed by the text, in one part. Kannel's user guide on
 * `udh`: "Optional User Data Header (UDH) part of the message. Must be URL encoded."; on `coding`:
 * "If unset, defaults to 7 bits unless a udh is defined, which sets coding to 8bits." smsbox.c
 * refuses a header whose first octet is not the length of the rest
 * (`octstr_len(udh) != octstr_get_char(udh, 0) + 1` → "UDH field misformed, rejected") and one
 * over 140 octets ("UDH field is too long, rejected").
 */

const PASSWORD = 'udh-password-01';
let sim: SmppSimulator;
let gw: RunningGateway;

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0 });
  const { port } = await sim.start();
  gw = await startEmbedded({ SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}` });
  const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
    auth: `Bearer ${ADMIN_TOKEN}`,
    json: { username: 'udh', password: PASSWORD, balance: '20' },
  });
  expect(created.status).toBe(201);
}, 60_000);
afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
});

/** A query string with some values given as raw octets, percent-encoded as Kannel's clients do. */
function query(text: Record<string, string>, octets: Record<string, Buffer>): string {
  const parts = Object.entries(text).map(([k, v]) => `${k}=${encodeURIComponent(v)}`);
  for (const [k, v] of Object.entries(octets))
    parts.push(`${k}=${[...v].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')}`);
  return parts.join('&');
}

const sendsms = (text: Record<string, string>, octets: Record<string, Buffer>) =>
  request(
    gw.base,
    'GET',
    `/cgi-bin/sendsms?${query({ username: 'udh', password: PASSWORD, ...text }, octets)}`,
  );

async function submitTo(to: string): Promise<ReceivedSubmit> {
  return waitFor(() => sim.received.find((r) => r.to === to), 15_000, `the submit_sm to ${to}`);
}

const balance = async (): Promise<string> =>
  (
    await request(gw.base, 'GET', '/secure/balance', {
      auth: `Basic ${Buffer.from(`udh:${PASSWORD}`).toString('base64')}`,
    })
  ).body.data.balance as string;

// An application port addressing header (IEI 05, 16-bit ports: destination 2948, WAP push, and
// source 9200), as WAP push and port-addressed applications send it.
const PORTS_UDH = Buffer.from('0605040b8423f0', 'hex');

it('sends binary text with a port-addressing UDH in one part, 8-bit by default, UDHI set', async () => {
  const body = Buffer.from([0x01, 0x06, 0x04, 0x03, 0xae, 0x81, 0xea, 0x00, 0xff]);
  const answer = await sendsms({ to: '41790000101' }, { udh: PORTS_UDH, text: body });
  expect({ status: answer.status, text: answer.text }).toEqual({
    status: 202,
    text: '0: Accepted for delivery',
  });
  const submit = await submitTo('41790000101');
  expect(submit.esmClass & 0x40).toBe(0x40);
  expect(submit.dataCoding).toBe(0x04);
  expect(submit.shortMessage.toString('hex')).toBe(
    Buffer.concat([PORTS_UDH, body]).toString('hex'),
  );
  expect(sim.received.filter((r) => r.to === '41790000101')).toHaveLength(1);
});

it('sends 7-bit text behind the UDH when coding=0 asks for it', async () => {
  const answer = await sendsms(
    { to: '41790000102', coding: '0', text: 'hello' },
    { udh: PORTS_UDH },
  );
  expect(answer.status).toBe(202);
  const submit = await submitTo('41790000102');
  expect(submit.esmClass & 0x40).toBe(0x40);
  expect(submit.dataCoding).toBe(0x00);
  expect(submit.shortMessage.toString('hex')).toBe(
    Buffer.concat([PORTS_UDH, Buffer.from('hello', 'ascii')]).toString('hex'),
  );
});

it("carries a client's own concatenation header as it is, without adding one", async () => {
  const concat = Buffer.from('050003a70201', 'hex');
  const answer = await sendsms(
    { to: '41790000103' },
    { udh: concat, text: Buffer.from('part one') },
  );
  expect(answer.status).toBe(202);
  const submit = await submitTo('41790000103');
  expect(submit.esmClass & 0x40).toBe(0x40);
  expect(submit.shortMessage.subarray(0, 6).toString('hex')).toBe('050003a70201');
  expect(submit.shortMessage.subarray(6).toString()).toBe('part one');
});

it('refuses a misformed or oversized UDH, or text that does not fit beside it, charging nothing', async () => {
  const before = await balance();
  const misformed = await sendsms(
    { to: '41790000104' },
    { udh: Buffer.from('050003a7', 'hex'), text: Buffer.from('x') },
  );
  expect({ status: misformed.status, text: misformed.text }).toEqual({
    status: 400,
    text: 'UDH field misformed, rejected',
  });
  const long = Buffer.alloc(141, 0x41);
  long[0] = 140;
  const tooLong = await sendsms({ to: '41790000104' }, { udh: long, text: Buffer.from('x') });
  expect({ status: tooLong.status, text: tooLong.text }).toEqual({
    status: 400,
    text: 'UDH field is too long, rejected',
  });
  // 7 octets of header leave 133 octets for 8-bit text in the one part.
  const overfull = await sendsms(
    { to: '41790000104' },
    { udh: PORTS_UDH, text: Buffer.alloc(134, 0x41) },
  );
  expect(overfull.status).toBe(400);
  expect(overfull.text).toMatch(/udh.*at most 133 octets/);
  expect(await balance()).toBe(before);
  expect(sim.received.some((r) => r.to === '41790000104')).toBe(false);
});
