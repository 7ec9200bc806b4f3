import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { request } from '../support/http';

/**
 * MO routes in Kannel's sms-service form: the route's URL is a Kannel `get-url` template, filled
 * in for each inbound message and called with GET, and the service's answer goes back to the
 * subscriber as a reply, as Kannel's smsbox does by default. Each check quotes the line of
 * Kannel's gw/urltrans.c or gw/smsbox.c it holds the gateway to.
 */

let sim: SmppSimulator;
let gw: RunningGateway;
let service: Server;
let serviceBase = '';

interface ServiceCall {
  path: string;
  method: string;
  query: Record<string, string>;
  rawQuery: string;
}
const calls: ServiceCall[] = [];

/** The service's answer per path: status, media type and body. */
const answers: Record<string, [number, string, string]> = {
  '/balance': [200, 'text/plain', 'Your balance is 42'],
  '/long': [200, 'text/plain', `${'0123456789'.repeat(20)}END`],
  '/empty': [200, 'text/plain', ''],
  '/down': [500, 'text/plain', 'broken'],
  '/html': [200, 'text/html', '<html><body><p>Hello   <b>there</b></p></body></html>'],
  '/quiet': [200, 'text/plain', 'nobody reads this'],
};

const SERVICE_NUMBER = '4242';

const admin = (method: string, path: string, json?: unknown) =>
  request(gw.base, method, `/admin/v1${path}`, {
    auth: `Bearer ${ADMIN_TOKEN}`,
    ...(json !== undefined && { json }),
  });

const template = (path: string) =>
  `${serviceBase}${path}?from=%p&to=%P&kw=%k&next=%s&star=%S&rest=%r&all=%a&svc=%n&smsc=%i&time=%t&id=%I&d=%d`;

async function route(name: string, position: number, keyword: string, path: string, extra = {}) {
  const put = await admin('PUT', `/mo-routes/${name}`, {
    position,
    to: SERVICE_NUMBER,
    exact: true,
    keyword,
    account: 'svc',
    webhook_url: template(path),
    webhook_format: 'kannel',
    ...extra,
  });
  expect(put.status).toBe(200);
  return put;
}

const repliesTo = (to: string) => sim.messages().filter((m) => m.to === to);

beforeAll(async () => {
  service = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://service');
    calls.push({
      path: url.pathname,
      method: req.method ?? '',
      query: Object.fromEntries(url.searchParams),
      rawQuery: (req.url ?? '').split('?').slice(1).join('?'),
    });
    const [status, type, body] = answers[url.pathname] ?? [404, 'text/plain', 'no'];
    res.writeHead(status, { 'content-type': type }).end(body);
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  serviceBase = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: false });
  const { port } = await sim.start();
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
    CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
    CALLBACK_RETRY_BASE_MS: '100',
  });
  // The replies go out from the number the subscriber wrote to: the account's own sender.
  const created = await admin('POST', '/accounts', {
    username: 'svc',
    password: 'svc-password',
    balance: '10.000000',
    default_from: SERVICE_NUMBER,
  });
  expect(created.status).toBe(201);
  await route('svc-balance', 1, 'bal', '/balance');
  await route('svc-long', 2, 'long', '/long');
  await route('svc-empty', 3, 'empty', '/empty');
  await route('svc-down', 4, 'down', '/down');
  await route('svc-html', 5, 'html', '/html');
  await route('svc-quiet', 6, 'quiet', '/quiet', { kannel_reply: false });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
  service?.closeAllConnections();
  await new Promise<void>((resolve) => (service ? service.close(() => resolve()) : resolve()));
});

it("calls the template with GET, its placeholders filled in as urltrans.c fills them, and sends the answer back from the service's number", async () => {
  const basic = `Basic ${Buffer.from('svc:svc-password').toString('base64')}`;
  const before = Number(
    (await request(gw.base, 'GET', '/secure/balance', { auth: basic })).body.data.balance,
  );
  await sim.originate({ from: '41790003001', to: SERVICE_NUMBER, text: 'bal my account*1 now' });
  const call = await waitFor(
    () => calls.find((c) => c.path === '/balance'),
    15_000,
    'the service called',
  );
  // smsbox.c obey_request: case TRANSTYPE_GET_URL: http_start_request(caller, pattern, ...), no body.
  expect(call.method).toBe('GET');
  expect(call.query).toMatchObject({
    // urltrans.c: case 'p': msg->sms.receiver and case 'P': msg->sms.sender, after smsbox.c
    // swapped them for the reply ("we change the sender (receiver now 'cause we swap them later)").
    from: '41790003001',
    to: SERVICE_NUMBER,
    // case 'k': the first word; case 's': the next word; case 'S': the next, '*' written '~';
    // case 'r': the words after those taken; case 'a': all words joined by '+'.
    kw: 'bal',
    next: 'my',
    star: 'account~1',
    rest: 'now',
    all: 'bal my account*1 now',
    // case 'n': msg->sms.service, the service's name (here the route's); case 'i': the smsc-id.
    svc: 'svc-balance',
    smsc: 'default',
    // case 'd': the dlr-mask, which an inbound message does not have: msg.c msg_create_real,
    // "#define INTEGER(name) p->name = MSG_PARAM_UNDEFINED;" (-1).
    d: '-1',
  });
  // case 'a': octstr_url_encode of each word, '+' between them ('*' is a safe character).
  expect(call.rawQuery).toContain('all=bal+my+account*1+now');
  // case 't': "%04d-%02d-%02d+%02d:%02d:%02d"
  expect(call.rawQuery).toMatch(/time=\d{4}-\d{2}-\d{2}\+\d{2}:\d{2}:\d{2}&/);
  expect(call.query['id']).toMatch(/^[0-9a-f-]{36}$/);

  // smsbox.c url_result_thread: a text/plain answer of status HTTP_OK is the reply's text.
  const reply = await waitFor(() => repliesTo('41790003001')[0], 15_000, 'the reply at the SMSC');
  expect(reply).toMatchObject({ from: SERVICE_NUMBER, text: 'Your balance is 42' });
  // Charged to the route's account as any message of it.
  await waitFor(
    async () =>
      Number(
        (await request(gw.base, 'GET', '/secure/balance', { auth: basic })).body.data.balance,
      ) < before || undefined,
    15_000,
    'the reply charged',
  );
});

it("Kannel's defaults: one SMS at most, an empty answer as its empty message, a failed call as could-not-fetch, HTML as its text", async () => {
  await sim.originate({ from: '41790003002', to: SERVICE_NUMBER, text: 'long please' });
  await sim.originate({ from: '41790003003', to: SERVICE_NUMBER, text: 'empty' });
  await sim.originate({ from: '41790003004', to: SERVICE_NUMBER, text: 'down' });
  await sim.originate({ from: '41790003005', to: SERVICE_NUMBER, text: 'html' });
  const long = await waitFor(() => repliesTo('41790003002')[0], 15_000, 'the long reply');
  // urltrans.c: ot->max_messages = 1 unless max-messages is set; smsbox.c send_message:
  // "truncated reply" when it does not fit and max_msgs == 1.
  expect(long.parts).toBe(1);
  expect(long.text).toBe('0123456789'.repeat(16));
  const empty = await waitFor(() => repliesTo('41790003003')[0], 15_000, 'the empty reply');
  // smsbox.c: static char *empty = "<Empty reply from service provider>"; omit-empty is off
  // unless configured (cfg_get_bool(&ot->omit_empty, ...)).
  expect(empty.text).toBe('<Empty reply from service provider>');
  const down = await waitFor(
    () => repliesTo('41790003004')[0],
    15_000,
    'the could-not-fetch reply',
  );
  // smsbox.c: reply_couldnotfetch = octstr_create("Could not fetch content, sorry.");
  expect(down.text).toBe('Could not fetch content, sorry.');
  // One call only: Kannel does not fetch a failed service again.
  expect(calls.filter((c) => c.path === '/down')).toHaveLength(1);
  const html = await waitFor(() => repliesTo('41790003005')[0], 15_000, 'the HTML reply');
  // smsbox.c: text/html: replytext = html_to_sms(reply_body); octstr_strip_blanks(replytext);
  expect(html.text).toBe('Hello there');
});

it('kannel_reply false: the service is called and nothing is sent back', async () => {
  await sim.originate({ from: '41790003006', to: SERVICE_NUMBER, text: 'quiet' });
  await waitFor(() => calls.find((c) => c.path === '/quiet'), 15_000, 'the quiet service called');
  // A later message's reply: by then a reply to the first would have been sent too.
  await sim.originate({ from: '41790003007', to: SERVICE_NUMBER, text: 'bal again' });
  await waitFor(() => repliesTo('41790003007')[0], 15_000, 'the later reply');
  expect(repliesTo('41790003006')).toHaveLength(0);
});

it('a kannel route without a URL is refused, and the route shows its reply setting', async () => {
  const refused = await admin('PUT', '/mo-routes/svc-nourl', {
    position: 9,
    account: 'svc',
    webhook_format: 'kannel',
  });
  expect(refused.status).toBe(400);
  const listed = await admin('GET', '/mo-routes/svc-quiet');
  expect(listed.status).toBe(200);
  expect(listed.body.data).toMatchObject({ webhook_format: 'kannel', kannel_reply: false });
});
