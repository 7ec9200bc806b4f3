import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';
import { CallbackReceiver, type ReceivedCall } from '../support/receiver';

/**
 * Jasmin's REST interface as its own documentation (misc/doc/sources/apis/rest/index.rst) and
 * source (jasmin/protocols/rest/api.py, jasmin/protocols/http/endpoints/send.py and rate.py) form
 * its requests and answers; each check quotes the line it holds the gateway to. The differences
 * the gateway keeps on purpose are in docs/compatibility.md.
 */

const auth = basic('jookies', 'jookies-password');
let receiver: CallbackReceiver;
let sim: SmppSimulator;
let gw: RunningGateway;

beforeAll(async () => {
  receiver = new CallbackReceiver();
  await receiver.start();
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: true });
  const { port } = await sim.start();
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
    CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
    CALLBACK_RETRY_BASE_MS: '100',
  });
  const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
    auth: `Bearer ${ADMIN_TOKEN}`,
    json: { username: 'jookies', password: 'jookies-password', balance: null },
  });
  expect(created.status).toBe(201);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
  await receiver?.stop();
});

const send = (json: Record<string, unknown>) =>
  request(gw.base, 'POST', '/secure/send', { auth, json });

function idOf(reply: { status: number; body: { data: string } }): string {
  expect(reply.status).toBe(200);
  // "Result Format: {"data": "Success \"c723d42a-c3ee-452c-940b-3d8e8b944868"}"
  expect(reply.body.data).toMatch(/^Success "[0-9a-f-]{36}$/);
  return reply.body.data.slice('Success "'.length);
}

const paramsOf = (call: ReceivedCall): Record<string, string> =>
  call.method === 'POST' ? Object.fromEntries(new URLSearchParams(call.body)) : call.query;
const reportsFor = (id: string) => receiver.calls.filter((c) => paramsOf(c)['id'] === id);

describe("Jasmin's REST interface", () => {
  it('sends the documented example and reports at level 3', async () => {
    // curl -X POST ... -d '{"to": 19012233451, "from": "Jookies", "content": "Hello",
    //   "dlr": "yes", "dlr-url": "http://192.168.202.54/dlr_receiver.php", "dlr-level": 3}'
    const id = idOf(
      await send({
        to: 19012233451,
        from: 'Jookies',
        content: 'Hello',
        dlr: 'yes',
        'dlr-url': `${receiver.base}/dlr_receiver.php`,
        'dlr-level': 3,
      }),
    );
    await waitFor(() => reportsFor(id).length >= 2, 15_000, 'both reports of the example');
    // send.py: "If DLR is requested and no dlr-method were provided, assume default (POST)"
    expect(reportsFor(id).map((c) => c.method)).toEqual(['POST', 'POST']);
  });

  it('takes dlr-url and dlr-level without dlr as a request for reports', async () => {
    // send.py: "if b'dlr-url' in updated_request.args or b'dlr-level' in updated_request.args:
    //   updated_request.args[b'dlr'] = [b'yes']"
    const id = idOf(
      await send({
        to: '33333331',
        content: 'hi',
        'dlr-url': `${receiver.base}/dlr`,
        'dlr-level': 2,
      }),
    );
    await waitFor(() => reportsFor(id).length >= 1, 15_000, 'the level 2 report');
    expect(paramsOf(reportsFor(id)[0])).toMatchObject({ level: '2', message_status: 'DELIVRD' });
  });

  it('accepts dlr yes without a dlr-url', async () => {
    // send.py: "if b'dlr-url' in updated_request.args: ... else: dlr_url = None"
    idOf(await send({ to: '33333332', content: 'hi', dlr: 'yes' }));
  });

  it('accepts tags as a comma-separated string and as a list', async () => {
    // send.py: "tags = updated_request.args[b'tags'][0].split(b',')"
    idOf(await send({ to: '33333333', content: 'hi', tags: '1,702,9901' }));
    idOf(await send({ to: '33333334', content: 'hi', tags: [1, 702, 9901] }));
  });

  it('accepts custom_tlvs in its shape and refuses a TLV the SMSC could not read', async () => {
    // tlv_encoder.py: "(tag, length, type, value) tuples", "COctetString: ... plus a terminating NUL"
    idOf(
      await send({
        to: '33333335',
        content: 'hi',
        custom_tlvs: [[0x1400, null, 'COctetString', '1101234567890123456']],
      }),
    );
    const refused = await send({
      to: '33333336',
      content: 'hi',
      custom_tlvs: [[0x1400, 3, 'OctetString', 'abcd']],
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('length 3');
  });

  it('accepts username and password repeated in the body', async () => {
    // api.py merges them with the Basic credentials: "'username': request.context['username']"
    idOf(await send({ to: '33333337', content: 'hi', username: 'jookies', password: 'x' }));
  });

  it('takes to from globals and answers a scheduled batch with data.scheduled', async () => {
    // api.py: "message_params.update(params.get('globals', {}))" and
    // "response.body['data']['scheduled'] = '%ss' % countdown"
    const reply = await request(gw.base, 'POST', '/secure/sendbatch', {
      auth,
      json: {
        globals: { to: ['55555551', '55555552'], from: 'Brand2' },
        messages: [{ content: 'Message 1 goes to 2 numbers' }, { to: '7777771', content: 'one' }],
        batch_config: { schedule_at: '3600s' },
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ messageCount: 3 });
    expect(reply.body.data.scheduled).toMatch(/^(3599|3600)s$/);
  });

  it('answers GET /secure/rate with submit_sm_count and unit_rate', async () => {
    // rate.py: "'return': {'unit_rate': bill.getTotalAmounts(), 'submit_sm_count': submit_sm_count}"
    const reply = await request(gw.base, 'GET', '/secure/rate?to=19012233451&content=Hello', {
      auth,
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ data: { submit_sm_count: 1, unit_rate: expect.any(Number) } });
    const long = await request(
      gw.base,
      'GET',
      `/secure/rate?to=19012233451&content=${'x'.repeat(200)}`,
      {
        auth,
      },
    );
    expect(long.body.data.submit_sm_count).toBe(2);
    // rate.py: "Content is optional, defaults to empty content string"
    const bare = await request(gw.base, 'GET', '/secure/rate?to=19012233451', { auth });
    expect(bare.body.data.submit_sm_count).toBe(1);
  });

  it('answers GET /ping, and GET /secure/ping for a client with credentials', async () => {
    // index.rst: "Result Format: {"data": "Jasmin/PONG"}"
    const ping = await request(gw.base, 'GET', '/ping');
    expect(ping.status).toBe(200);
    expect(ping.body).toEqual({ data: 'Jasmin/PONG' });
    expect((await request(gw.base, 'GET', '/secure/ping', { auth })).body).toEqual({
      data: 'Jasmin/PONG',
    });
    expect((await request(gw.base, 'GET', '/secure/ping')).status).toBe(401);
  });

  it('answers the balance with the documented types', async () => {
    // index.rst: "{"data": {"balance": "10.23", "sms_count": "ND"}}"
    const reply = await request(gw.base, 'GET', '/secure/balance', { auth });
    expect(reply.body).toEqual({ data: { balance: 'ND', sms_count: 'ND' } });
  });
});
