import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { relativeSmppTime } from '../../services/api-gateway/src/edge/kannel-sendsms-routes';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { request } from '../support/http';
import { CallbackReceiver } from '../support/receiver';

/**
 * Kannel's sendsms, driven as Kannel's user guide and its clients drive it: GET (and POST) of
 * /cgi-bin/sendsms with username, password, to, from, text and the rest. Each check quotes the line
 * of Kannel's gw/smsbox.c it holds the gateway to.
 */

let sim: SmppSimulator;
let gw: RunningGateway;
let receiver: CallbackReceiver;

/** Receivers of the reports' tests: one the SMSC refuses, one whose handset never gets it. */
const REFUSED = '41790002098';
const UNDELIVERABLE = '41790002099';

beforeAll(async () => {
  receiver = new CallbackReceiver();
  await receiver.start();
  sim = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    deliveryReceipts: true,
    receiptStat: (to) => (to === UNDELIVERABLE ? 'UNDELIV' : undefined),
    rejectDestinations: new RegExp(`^${REFUSED}$`),
  });
  const { port } = await sim.start();
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
    CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
    CALLBACK_RETRY_BASE_MS: '100',
    // India's DLT ids, as an operator defines them in Kannel's smpp-tlv groups.
    KANNEL_SMPP_TLVS: 'PE_ID:0x1400:octetstring:30,TEMPLATE_ID:0x1401:octetstring:30',
  });
  const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
    auth: `Bearer ${ADMIN_TOKEN}`,
    json: { username: 'kannel', password: 'kannel-password', balance: null },
  });
  expect(created.status).toBe(201);
}, 60_000);
afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
  await receiver?.stop();
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

it('several receivers, some refused after others were sent: 202 naming the refused ones, never a 5xx that would have the sent ones sent again', async () => {
  // Credit for two messages: the third receiver is refused, after the first two were charged.
  const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
    auth: `Bearer ${ADMIN_TOKEN}`,
    json: { username: 'kpart', password: 'kpart-password', balance: '2.000000' },
  });
  expect(created.status).toBe(201);
  const partial = { username: 'kpart', password: 'kpart-password', text: 'partial' };
  const reply = await sendsms({ ...partial, to: '41790002101 41790002102 41790002103' });
  // smsbox.c, receivers it did not send to while it sent to the others: *status = HTTP_ACCEPTED;
  // returnerror = octstr_create("Sent."); octstr_format_append(returnerror, " Denied receivers
  // are:"); and " %s" for each. (Its 500 "Sending failed. Failed receivers are:" when bearerbox
  // refused one is not followed here once others were accepted: docs/compatibility.md.)
  expect(reply.status).toBe(202);
  expect(reply.text).toBe('0: Accepted for delivery. Denied receivers are: 41790002103');
  await waitFor(
    () =>
      ['41790002101', '41790002102'].every((to) => sim.received.some((m) => m.to === to))
        ? true
        : undefined,
    15_000,
    'the two accepted receivers at the SMSC',
  );
  const balance = await request(gw.base, 'GET', '/secure/balance', {
    auth: `Basic ${Buffer.from('kpart:kpart-password').toString('base64')}`,
  });
  expect(Number(balance.body.data.balance)).toBe(0);
  // None accepted: the answer one receiver gets, a refusal not to try again.
  const none = await sendsms({ ...partial, to: '41790002104 41790002105' });
  expect(none.status).toBe(403);
  expect(none.text).toMatch(/^Not routable\. Do not try again\./);
  expect(
    sim.received
      .filter((m) => m.to.startsWith('4179000210'))
      .map((m) => m.to)
      .sort(),
  ).toEqual(['41790002101', '41790002102']);
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
    // smsbox.c: if(octstr_case_compare(tmp, octstr_imm("https://")) != 0) {
    //     returnerror = octstr_create("DLR-URL field misformed, rejected");
    [
      { ...creds, to: '41790002005', text: 'x', 'dlr-url': 'ftp://127.0.0.1/x', 'dlr-mask': '1' },
      400,
      'DLR-URL field misformed, rejected',
    ],
    // smsbox.c: if ( dlr_mask < -1 || dlr_mask > 63 ) { /* 00111111 */
    //     returnerror = octstr_create("DLR-Mask field misformed, rejected");
    [
      { ...creds, to: '41790002005', text: 'x', 'dlr-url': 'http://127.0.0.1/x', 'dlr-mask': '64' },
      400,
      'DLR-Mask field misformed, rejected',
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

describe("dlr-url and dlr-mask: reports as Kannel's smsbox calls them", () => {
  // Every placeholder urltrans.c's urltrans_fill_escape_codes knows for a report.
  const template = (path: string) =>
    `${receiver.base}${path}?type=%d&id=%I&to=%p&from=%P&q=%q&ts=%T&t=%t&smsc=%i&fid=%F&text=%A&svc=%n&k=%k&pct=%%&odd=%z`;
  const reportsTo = (path: string) => receiver.on(path);

  it('8 and 1: the SMSC ack and the handset receipt, each a GET of the URL with its placeholders filled in', async () => {
    const before = Math.floor(Date.now() / 1000);
    const reply = await sendsms({
      ...creds,
      from: '0041790000000',
      to: '41790002010',
      text: 'report please',
      'dlr-mask': '31',
      'dlr-url': template('/kannel-dlr'),
    });
    expect(reply.status).toBe(202);
    const calls = await waitFor(
      () => (reportsTo('/kannel-dlr').length >= 2 ? reportsTo('/kannel-dlr') : undefined),
      15_000,
      'the SMSC report and the handset report',
    );
    const submitted = sim.received.find((m) => m.to === '41790002010');
    expect(submitted).toBeDefined();
    // smsbox.c: "Kannel calls dlr-url with GET": http_start_request(caller, pattern, ...) of the
    // filled pattern, no body.
    for (const call of calls) expect(call.method).toBe('GET');
    const byType = Object.fromEntries(calls.map((c) => [c.query['type'], c]));
    // dlr.h: DLR_SUCCESS 0x01, DLR_SMSC_SUCCESS 0x08; dlr.c dlr_find: msg->sms.dlr_mask = typ.
    expect(Object.keys(byType).sort()).toEqual(['1', '8']);
    const ack = byType['8'];
    const receipt = byType['1'];
    for (const call of [ack, receipt]) {
      // urltrans.c: case 'p': msg->sms.receiver (the handset); case 'P': msg->sms.sender;
      // dlr.c dlr_find: O_SET(msg->sms.receiver, dlr->destination); O_SET(msg->sms.sender, dlr->source).
      expect(call.query['to']).toBe('41790002010');
      expect(call.query['from']).toBe('0041790000000');
      // urltrans.c case 'q': a leading 00 written %2B (here the handset has none).
      expect(call.query['q']).toBe('41790002010');
      // urltrans.c case 'n': msg->sms.service, the sendsms-user's name (urltrans_name(t)).
      expect(call.query['svc']).toBe('kannel');
      // urltrans.c case 'F': msg->sms.foreign_id, the SMSC's id (dlr_add: foreign_id = ts), as
      // the gateway keeps it (normalised, as receipts are matched by it).
      expect(call.query['fid']).toBe(submitted?.smscId);
      expect(call.query['id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(call.query['smsc']).not.toBe('');
      // urltrans.c case 'T': octstr_format_append(result, "%ld", request->sms.time);
      expect(Number(call.query['ts'])).toBeGreaterThanOrEqual(before - 1);
      // case 't': "%04d-%02d-%02d+%02d:%02d:%02d" (the + is a space once decoded).
      expect(call.query['t']).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      // case '%': octstr_format_append(result, "%%"); default: "%%%c", the code kept as written.
      expect(call.rawQuery).toContain('pct=%&');
      expect(call.rawQuery).toMatch(/odd=%z$/);
    }
    expect(ack.query['id']).toBe(receipt.query['id']);
    // bb_smscconn.c: octstr_insert_data(reply, 0, "ACK/", 4); create_dlr_from_msg(..., reply, DLR_SMSC_SUCCESS)
    // urltrans.c case 'A': octstr_url_encode(msgdata), which writes '/' as %2F.
    expect(ack.query['text']).toBe('ACK/');
    expect(ack.rawQuery).toContain('text=ACK%2F&');
    // case 'k': the first word of the text: for a receipt, its `id:` field.
    expect(receipt.query['k']).toBe(`id:${submitted?.smscId}`);
    expect(receipt.query['text']).toMatch(/ stat:DELIVRD /);
    // octstr_url_encode: a space is '+', ':' is %3A.
    expect(receipt.rawQuery).toMatch(/text=id%3A[^&]*\+sub%3A/);
  });

  it('dlr-mask 2: only the failed handset receipt is reported, not the SMSC ack (dlr_find: typ & dlr->mask)', async () => {
    const reply = await sendsms({
      ...creds,
      to: UNDELIVERABLE,
      text: 'nobody home',
      'dlr-mask': '2',
      'dlr-url': template('/kannel-fail'),
    });
    expect(reply.status).toBe(202);
    const call = await waitFor(() => reportsTo('/kannel-fail')[0], 15_000, 'the failure report');
    // dlr.h: DLR_FAIL 0x02.
    expect(call.query['type']).toBe('2');
    expect(call.query['text']).toMatch(/ stat:UNDELIV /);
    // A message delivered with mask 2 is never reported; once its receipt was handled, the
    // failure report above, sent after its own receipt, has long been made too.
    const delivered = await sendsms({
      ...creds,
      to: '41790002011',
      text: 'delivered',
      'dlr-mask': '2',
      'dlr-url': template('/kannel-fail-delivered'),
    });
    expect(delivered.status).toBe(202);
    const other = await sendsms({
      ...creds,
      to: '41790002012',
      text: 'delivered too',
      'dlr-mask': '1',
      'dlr-url': template('/kannel-delivered'),
    });
    expect(other.status).toBe(202);
    await waitFor(() => reportsTo('/kannel-delivered')[0], 15_000, 'the later delivery report');
    expect(reportsTo('/kannel-fail')).toHaveLength(1);
    expect(reportsTo('/kannel-fail-delivered')).toHaveLength(0);
  });

  it('dlr-mask 16: the SMSC refusal, NACK/ and its reason', async () => {
    const reply = await sendsms({
      ...creds,
      to: REFUSED,
      text: 'refused',
      'dlr-mask': '24',
      'dlr-url': template('/kannel-nack'),
    });
    expect(reply.status).toBe(202);
    const call = await waitFor(() => reportsTo('/kannel-nack')[0], 15_000, 'the refusal report');
    // dlr.h: DLR_SMSC_FAIL 0x10; bb_smscconn.c bb_smscconn_send_failed: "NACK/" before the reason.
    expect(call.query['type']).toBe('16');
    expect(call.query['text']).toMatch(/^NACK\//);
  });

  it('dlr-mask without dlr-url, or dlr-url with a mask of no event, asks for no report', async () => {
    const masked = await sendsms({ ...creds, to: '41790002013', text: 'x', 'dlr-mask': '31' });
    expect(masked.status).toBe(202);
    const unmasked = await sendsms({
      ...creds,
      to: '41790002014',
      text: 'x',
      'dlr-url': template('/kannel-nomask'),
    });
    expect(unmasked.status).toBe(202);
    const later = await sendsms({
      ...creds,
      to: '41790002015',
      text: 'x',
      'dlr-mask': '1',
      'dlr-url': template('/kannel-later'),
    });
    expect(later.status).toBe(202);
    await waitFor(() => reportsTo('/kannel-later')[0], 15_000, 'the later report');
    expect(reportsTo('/kannel-nomask')).toHaveLength(0);
  });
});

it('passes meta-data to the SMSC as the optional parameters the operator defined, and refuses keys it did not', async () => {
  // Kannel's user guide, meta-data: "?smpp?key1=value1&key2=value2"; "only the parameters defined
  // on the configuration file are honored" (each by an smpp-tlv group: name, tag, type, length).
  const reply = await sendsms({
    ...creds,
    to: '41790002077',
    text: 'otp 1234',
    'meta-data': '?smpp?PE_ID=1101123456&TEMPLATE_ID=1107000001',
  });
  expect(reply.status).toBe(202);
  const submit = await waitFor(
    () => sim.received.find((m) => m.to === '41790002077'),
    15_000,
    'the submit with meta-data',
  );
  const tlvs = Object.fromEntries(submit.tlvs.map((t) => [t.tag, t.value.toString('latin1')]));
  expect(tlvs[0x1400]).toBe('1101123456');
  expect(tlvs[0x1401]).toBe('1107000001');

  const undefinedKey = await sendsms({
    ...creds,
    to: '41790002078',
    text: 'x',
    'meta-data': '?smpp?NOT_DEFINED=1',
  });
  expect(undefinedKey.status).toBe(400);
  expect(undefinedKey.text).toMatch(/Meta-data field misformed, rejected/);
});
