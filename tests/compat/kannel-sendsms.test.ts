import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { relativeSmppTime } from '../../services/api-gateway/src/edge/kannel-sendsms-routes';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { request } from '../support/http';

/**
 * Kannel's sendsms, driven as Kannel's user guide and its clients drive it: GET (and POST) of
 * /cgi-bin/sendsms with username, password, to, from, text and the rest. Each check quotes the line
 * of Kannel's gw/smsbox.c it holds the gateway to.
 */

let sim: SmppSimulator;
let gw: RunningGateway;

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0 });
  const { port } = await sim.start();
  gw = await startEmbedded({ SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}` });
  const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
    auth: `Bearer ${ADMIN_TOKEN}`,
    json: { username: 'kannel', password: 'kannel-password', balance: null },
  });
  expect(created.status).toBe(201);
}, 60_000);
afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
});

const creds = { username: 'kannel', password: 'kannel-password' };
const sendsms = (params: Record<string, string>) =>
  request(gw.base, 'GET', `/cgi-bin/sendsms?${new URLSearchParams(params).toString()}`);

it('answers 0: Accepted for delivery with 202, to each receiver of a space-separated to', async () => {
  const reply = await sendsms({
    ...creds,
    from: 'Acme',
    to: '41790002001 41790002002',
    text: 'hi',
  });
  // smsbox.c delayed_http_reply: case ack_success: status = HTTP_ACCEPTED;
  //                              answer = octstr_create("0: Accepted for delivery");
  expect(reply.status).toBe(202);
  expect(reply.text).toBe('0: Accepted for delivery');
  await waitFor(
    () =>
      ['41790002001', '41790002002'].every((to) => sim.received.some((m) => m.to === to))
        ? true
        : undefined,
    15_000,
    'both receivers at the SMSC',
  );
});

it('takes username/password as user/pass too (default_authorise_user)', async () => {
  const reply = await sendsms({
    user: 'kannel',
    pass: 'kannel-password',
    to: '41790002003',
    text: 'x',
  });
  expect(reply.status).toBe(202);
});

it('decodes text by charset and coding, as charset_processing does', async () => {
  const reply = await request(
    gw.base,
    'GET',
    `/cgi-bin/sendsms?username=kannel&password=kannel-password&to=41790002004&charset=ISO-8859-1&text=caf%E9`,
  );
  expect(reply.status).toBe(202);
  const received = await waitFor(
    () => sim.received.find((m) => m.to === '41790002004'),
    15_000,
    'the message at the SMSC',
  );
  expect(received).toBeDefined();
});

it("refuses with Kannel's words and statuses", async () => {
  const cases: [Record<string, string>, number, string][] = [
    // smsbox.c: *status = HTTP_FORBIDDEN; return octstr_create("Authorization failed for sendsms");
    [
      { username: 'kannel', password: 'wrong-password', to: '41790002005', text: 'x' },
      403,
      'Authorization failed for sendsms',
    ],
    // smsbox.c: return octstr_create("Missing receiver number, rejected");
    [{ ...creds, text: 'x' }, 400, 'Missing receiver number, rejected'],
    // smsbox.c: return octstr_create("Empty receiver number not allowed, rejected");
    [{ ...creds, to: '', text: 'x' }, 400, 'Empty receiver number not allowed, rejected'],
    // smsbox.c: if ( coding < -1 || coding > 2 ) ... "Coding field misformed, rejected"
    [
      { ...creds, to: '41790002005', text: 'x', coding: '3' },
      400,
      'Coding field misformed, rejected',
    ],
    // smsbox.c: if ( mclass < -1 || mclass > 3 ) ... "MClass field misformed, rejected"
    [
      { ...creds, to: '41790002005', text: 'x', mclass: '4' },
      400,
      'MClass field misformed, rejected',
    ],
    // smsbox.c: if ( validity < -1 ) ... "Validity field misformed, rejected"
    [
      { ...creds, to: '41790002005', text: 'x', validity: '-2' },
      400,
      'Validity field misformed, rejected',
    ],
    // smsbox.c: if ( deferred < -1 ) ... "Deferred field misformed, rejected"
    [
      { ...creds, to: '41790002005', text: 'x', deferred: '-2' },
      400,
      'Deferred field misformed, rejected',
    ],
    // smsbox.c: if (priority != SMS_PARAM_UNDEFINED && (priority < 0 || priority > 3)) ... "Priority field misformed, rejected"
    [
      { ...creds, to: '41790002005', text: 'x', priority: '5' },
      400,
      'Priority field misformed, rejected',
    ],
    // smsbox.c: if (charset_processing(charset, ...) == -1) ... "Charset or body misformed, rejected"
    [
      { ...creds, to: '41790002005', text: 'x', charset: 'no-such-charset' },
      400,
      'Charset or body misformed, rejected',
    ],
  ];
  for (const [params, status, text] of cases) {
    const reply = await sendsms(params);
    expect({ params, status: reply.status, text: reply.text }).toEqual({ params, status, text });
  }
  expect(sim.received.some((m) => m.to === '41790002005')).toBe(false);
});

it('mclass 0 asks for a flash message (message class 0 in data_coding)', async () => {
  const reply = await sendsms({ ...creds, to: '41790002006', text: 'flash', mclass: '0' });
  expect(reply.status).toBe(202);
  const received = await waitFor(
    () => sim.received.find((m) => m.to === '41790002006'),
    15_000,
    'the flash message at the SMSC',
  );
  // 3GPP TS 23.038 general data coding: bit 4 says bits 1-0 are the class, 0 here.
  expect(received.dataCoding & 0x13).toBe(0x10);
});

it('deferred minutes become an SMPP relative schedule_delivery_time', () => {
  expect(relativeSmppTime(30)).toBe('000000003000000R');
  expect(relativeSmppTime(60 * 24 + 90)).toBe('000001013000000R');
});
