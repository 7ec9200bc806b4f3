import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { request } from '../support/http';
import { CallbackReceiver, type ReceivedCall } from '../support/receiver';

/**
 * Jasmin's HTTP interface, driven as Jasmin's documentation and clients drive it: GET and POST
 * /send with credentials in the parameters, /balance and /rate. Each check quotes the line of
 * Jasmin's source (jasmin/protocols/http/endpoints/send.py, balance.py, rate.py, validation.py,
 * errors.py) it holds the gateway to.
 */

let sim: SmppSimulator;
let gw: RunningGateway;
let receiver: CallbackReceiver;

/**
 * A Jasmin client's report receiver whose answers are scripted per path: each call takes the next
 * answer, the last one repeating (`[200, 'OK']` is a receiver that never acknowledges).
 */
const scripts: Record<string, [number, string][]> = {
  '/ack-second': [
    [200, 'OK'],
    [200, 'ACK/Jasmin'],
  ],
  '/ack-second-too': [
    [200, 'OK'],
    [200, 'ACK/Jasmin'],
  ],
  '/never-ack': [[200, 'OK']],
  '/gone': [[404, 'Not Found']],
  '/ack-spaced': [[200, '  ACK/Jasmin\n']],
};
const scripted: { path: string; query: string; body: string; method: string }[] = [];
let scriptServer: Server;
let scriptBase = '';

beforeAll(async () => {
  receiver = new CallbackReceiver();
  await receiver.start();
  scriptServer = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://receiver');
      const seen = scripted.filter((c) => c.path === url.pathname).length;
      scripted.push({
        path: url.pathname,
        query: url.search.slice(1),
        body,
        method: req.method ?? '',
      });
      const script = scripts[url.pathname] ?? [[200, 'ACK/Jasmin']];
      const [status, text] = script[Math.min(seen, script.length - 1)];
      res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
    });
  });
  await new Promise<void>((resolve) => scriptServer.listen(0, '127.0.0.1', resolve));
  scriptBase = `http://127.0.0.1:${(scriptServer.address() as AddressInfo).port}`;
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: true });
  const { port } = await sim.start();
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
    CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
    CALLBACK_RETRY_BASE_MS: '100',
  });
  for (const [username, balance] of [
    ['jasmin', null],
    ['jasmin-poor', '0'],
  ] as const) {
    const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
      auth: `Bearer ${ADMIN_TOKEN}`,
      json: { username, password: 'jasmin-password', balance },
    });
    expect(created.status).toBe(201);
  }
}, 60_000);
afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
  await receiver?.stop();
  scriptServer?.closeAllConnections();
  await new Promise<void>((resolve) =>
    scriptServer ? scriptServer.close(() => resolve()) : resolve(),
  );
});

const qs = (params: Record<string, string>): string => new URLSearchParams(params).toString();
const creds = { username: 'jasmin', password: 'jasmin-password' };

describe('GET and POST /send', () => {
  it('answers Success "<id>" as text, GET as POST ("Allow GET /send for backward compatibility")', async () => {
    const get = await request(
      gw.base,
      'GET',
      `/send?${qs({ ...creds, to: '41790001001', content: 'hello world' })}`,
    );
    // send.py: _return = 'Success "%s"' % response['return']
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(get.text).toMatch(/^Success "[0-9a-f-]{36}"$/);

    const post = await request(gw.base, 'POST', '/send', {
      body: new URLSearchParams({ ...creds, to: '+41790001002', content: 'hello' }),
    });
    expect(post.status).toBe(200);
    expect(post.text).toMatch(/^Success "[0-9a-f-]{36}"$/);
    const id = post.text.slice('Success "'.length, -1);
    await waitFor(() => sim.received.some((m) => m.to === '41790001002'), 15_000);
    const status = await request(gw.base, 'GET', `/secure/messages/${id}`, {
      headers: {
        authorization: `Basic ${Buffer.from('jasmin:jasmin-password').toString('base64')}`,
      },
    });
    expect(status.status).toBe(200);
  });

  it("refuses with Jasmin's words and statuses", async () => {
    const cases: [Record<string, string>, number, string][] = [
      // send.py sets its defaults (coding 0, dlr no) before UrlArgsValidator runs, so an empty
      // /send lacks `to`: validation.py: b"Mandatory argument [%s] is not found." % field
      [{}, 400, 'Error "Mandatory argument [to] is not found."'],
      // validation.py: b"Argument [%s] is unknown." % arg
      [
        { colour: 'red', ...creds, to: '41790001003', content: 'x' },
        400,
        'Error "Argument [colour] is unknown."',
      ],
      // validation.py: b"Mandatory argument [%s] is not found." % field
      [{ ...creds, content: 'x' }, 400, 'Error "Mandatory argument [to] is not found."'],
      // send.py: b'to': {'optional': False, 'pattern': re.compile(rb'^\+{0,1}\d+$')}
      [
        { ...creds, to: '41-79', content: 'x' },
        400,
        'Error "Argument [to] has an invalid value: [41-79]."',
      ],
      // send.py: b'priority': {'optional': True, 'pattern': re.compile(rb'^[0-3]$')}
      [
        { ...creds, to: '41790001003', content: 'x', priority: '4' },
        400,
        'Error "Argument [priority] has an invalid value: [4]."',
      ],
      // send.py: raise UrlArgsValidationError("content or hex-content not present.")
      [{ ...creds, to: '41790001003' }, 400, 'Error "content or hex-content not present."'],
      // send.py: "content and hex-content cannot be used both in same request."
      [
        { ...creds, to: '41790001003', content: 'x', 'hex-content': '41' },
        400,
        'Error "content and hex-content cannot be used both in same request."',
      ],
      // endpoints/__init__.py: AuthenticationError('Authentication failure for username:%s' % username); errors.py: AuthenticationError ... 403
      [
        { username: 'jasmin', password: 'wrong-password', to: '41790001003', content: 'x' },
        403,
        'Error "Authentication failure for username:jasmin"',
      ],
    ];
    for (const [params, status, text] of cases) {
      const reply = await request(gw.base, 'GET', `/send?${qs(params)}`);
      expect({ params, status: reply.status, text: reply.text }).toEqual({ params, status, text });
    }
    // errors.py: ChargingError ... HttpApiError.__init__(self, 403, message)
    const poor = await request(
      gw.base,
      'GET',
      `/send?${qs({ username: 'jasmin-poor', password: 'jasmin-password', to: '41790001004', content: 'x' })}`,
    );
    expect(poor.status).toBe(403);
    expect(poor.text).toMatch(/^Error ".+"$/);
    expect(sim.received.some((m) => m.to === '41790001004')).toBe(false);
  });

  it('takes a JSON body as send.py does (json.loads, each key an argument)', async () => {
    const reply = await request(gw.base, 'POST', '/send', {
      json: { ...creds, to: '41790001005', content: 'json' },
    });
    expect(reply.status).toBe(200);
    expect(reply.text).toMatch(/^Success "[0-9a-f-]{36}"$/);
  });
});

describe('delivery reports', () => {
  const params = (call: ReceivedCall): Record<string, string> =>
    call.method === 'POST' ? Object.fromEntries(new URLSearchParams(call.body)) : call.query;

  it('a dlr-url alone asks for a report, POSTed at level 1 unless told (send.py defaults)', async () => {
    // send.py: if b'dlr-url' in updated_request.args or b'dlr-level' in updated_request.args:
    //              updated_request.args[b'dlr'] = [b'yes']
    // send.py: # If DLR is requested and no dlr-method were provided, assume default (POST)
    const reply = await request(
      gw.base,
      'GET',
      `/send?${qs({ ...creds, to: '41790001006', content: 'report', 'dlr-url': `${receiver.base}/jasmin-dlr` })}`,
    );
    expect(reply.status).toBe(200);
    const id = reply.text.slice('Success "'.length, -1);
    const call = await waitFor(
      () => receiver.calls.find((c) => params(c)['id'] === id),
      15_000,
      'the level 1 report',
    );
    expect(call.method).toBe('POST');
    expect(params(call)).toMatchObject({ id, level: '1', message_status: 'ESME_ROK' });
  });

  it("dlr-level 2 with dlr-method GET: the handset receipt with Jasmin's parameter names", async () => {
    const reply = await request(
      gw.base,
      'GET',
      `/send?${qs({ ...creds, to: '41790001007', content: 'report', 'dlr-url': `${receiver.base}/jasmin-dlr2`, 'dlr-level': '2', 'dlr-method': 'get' })}`,
    );
    expect(reply.status).toBe(200);
    const id = reply.text.slice('Success "'.length, -1);
    const call = await waitFor(
      () => receiver.calls.find((c) => params(c)['id'] === id),
      15_000,
      'the level 2 report',
    );
    expect(call.method).toBe('GET');
    const p = params(call);
    expect(p['level']).toBe('2');
    for (const name of [
      'id_smsc',
      'message_status',
      'connector',
      'sub',
      'dlvrd',
      'subdate',
      'donedate',
      'err',
      'text',
    ])
      expect(Object.keys(p)).toContain(name);
  });
});

describe("delivery reports as Jasmin's DLRThrower throws them", () => {
  const basic = {
    authorization: `Basic ${Buffer.from('jasmin:jasmin-password').toString('base64')}`,
  };
  const send = async (to: string, path: string, extra: Record<string, string> = {}) => {
    const reply = await request(
      gw.base,
      'GET',
      `/send?${qs({ ...creds, to, content: 'report me', 'dlr-url': `${scriptBase}${path}`, ...extra })}`,
    );
    expect(reply.status).toBe(200);
    return reply.text.slice('Success "'.length, -1);
  };
  const callsOf = (id: string) =>
    scripted.filter(
      (c) => new URLSearchParams(c.method === 'POST' ? c.body : c.query).get('id') === id,
    );
  const callbackError = async (id: string): Promise<string | null> => {
    const status = await request(gw.base, 'GET', `/secure/messages/${id}`, { headers: basic });
    return (status.body as { data: { callbackError: string | null } }).data.callbackError;
  };

  it('a report is taken only when the receiver answers ACK/Jasmin: anything else is thrown again', async () => {
    // throwers.py (DLRThrower.http_dlr_callback): if content.strip() != 'ACK/Jasmin':
    //     raise MessageAcknowledgementError('Destination end did not acknowledge receipt of the DLR message.')
    // and the message is requeued while try-count <= max_retries.
    const id = await send('41790001020', '/ack-second');
    const calls = await waitFor(
      () => (callsOf(id).length >= 2 ? callsOf(id) : undefined),
      15_000,
      'the report thrown again after an answer without ACK/Jasmin',
    );
    expect(calls[0].body).toBe(calls[1].body);
    expect(Object.fromEntries(new URLSearchParams(calls[1].body))).toEqual({
      id,
      level: '1',
      message_status: 'ESME_ROK',
      connector: expect.any(String) as unknown,
    });
  });

  it('ACK/Jasmin with white space around it is an acknowledgement (content.strip())', async () => {
    const id = await send('41790001021', '/ack-spaced');
    // Beside it, a report that is not acknowledged at first: once it was thrown again, a report
    // that needed it would have been too.
    const other = await send('41790001025', '/ack-second-too');
    await waitFor(() => callsOf(other)[1], 15_000, 'the other report thrown again');
    expect(callsOf(id)).toHaveLength(1);
    expect(await callbackError(id)).toBeNull();
  });

  it('a receiver that never acknowledges gets the report max_retries more times, then no more', async () => {
    // receiving-dlr.rst: [dlr-thrower] retry_delay = 30, max_retries = 3; throwers.py requeues
    // while getThrowingRetrials(message) <= self.config.max_retries: the first throw and 3 more.
    const id = await send('41790001022', '/never-ack');
    const error = await waitFor(
      async () => (await callbackError(id)) ?? undefined,
      30_000,
      'the report given up',
    );
    expect(error).toMatch(/given up after 4 attempts/);
    expect(callsOf(id)).toHaveLength(4);
  });

  it('a 404 is not thrown again', async () => {
    // throwers.py: noRetryErrors = ['404 Not Found'] ... 'Message is no more processed after receiving "%s" error'
    const id = await send('41790001023', '/gone');
    const error = await waitFor(
      async () => (await callbackError(id)) ?? undefined,
      15_000,
      'the report given up',
    );
    expect(error).toMatch(/given up after 1 attempts: HTTP status 404/);
    expect(callsOf(id)).toHaveLength(1);
  });

  it('level 3: the SMSC report at level 1 and the handset receipt at level 2, each acknowledged', async () => {
    // listeners.py: DLRContentForHttpapi(..., dlr_level=1, ...) with "The dlr_url in
    // DLRContentForHttpapi indicates the level of the actual delivery receipt (1) and not the
    // requested one (maybe 1 or 3)"; throwers.py adds id_smsc, sub, dlvrd, subdate, donedate,
    // err and text "if level in [2, 3]".
    const id = await send('41790001024', '/level3', { 'dlr-level': '3', 'dlr-method': 'GET' });
    const calls = await waitFor(
      () => (callsOf(id).length >= 2 ? callsOf(id) : undefined),
      15_000,
      'both reports',
    );
    const byLevel = Object.fromEntries(
      calls.map((c) => {
        const p = Object.fromEntries(new URLSearchParams(c.query));
        return [p['level'], { method: c.method, p }];
      }),
    );
    expect(byLevel['1']?.method).toBe('GET');
    expect(Object.keys(byLevel['1']?.p ?? {}).sort()).toEqual(
      ['connector', 'id', 'level', 'message_status'].sort(),
    );
    expect(byLevel['2']?.p).toMatchObject({ id, level: '2', message_status: 'DELIVRD' });
    expect(await callbackError(id)).toBeNull();
  });
});

describe('GET /balance and GET /rate', () => {
  it("balance.py: 'ND' for no limit, as JSON", async () => {
    const reply = await request(gw.base, 'GET', `/balance?${qs(creds)}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.body).toEqual({ balance: 'ND', sms_count: 'ND' });
    const poor = await request(
      gw.base,
      'GET',
      `/balance?${qs({ username: 'jasmin-poor', password: 'jasmin-password' })}`,
    );
    expect(poor.body).toEqual({ balance: 0, sms_count: 'ND' });
    const wrong = await request(
      gw.base,
      'GET',
      `/balance?${qs({ ...creds, password: 'nope-nope' })}`,
    );
    expect(wrong.status).toBe(403);
    expect(wrong.body).toBe('Authentication failure for username:jasmin');
  });

  it("rate.py: {'unit_rate': ..., 'submit_sm_count': ...}", async () => {
    const reply = await request(
      gw.base,
      'GET',
      `/rate?${qs({ ...creds, to: '41790001008', content: 'x'.repeat(200) })}`,
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ unit_rate: expect.any(Number), submit_sm_count: 2 });
  });
});
