/**
 * POST /secure/send is answered ahead of express for plain requests (hot-send-route.ts). Whatever
 * answers, the client must not tell: each request here goes once to `/secure/send` (the hot route
 * takes it) and once to `/secure/send?via=express` (express answers it, the query string keeps it
 * off the hot route), and the two answers must be the same, headers included.
 */
import { request as httpRequest } from 'node:http';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';

let sim: SmppSimulator;
let gw: RunningGateway;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Exactly these headers and bytes: no Origin or Sec-Fetch-Site, which would send it to express. */
function post(path: string, headers: Record<string, string>, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${gw.base}${path}`,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const { date: _date, ...rest } = res.headers;
          resolve({
            status: res.statusCode ?? 0,
            headers: rest,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
      },
    );
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('timed out')));
    req.end(body);
  });
}

/** Message ids differ from one send to the next; everything else must not. */
const sameShape = (a: Answer): Answer => ({
  ...a,
  text: a.text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>'),
});

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0 });
  const { port } = await sim.start();
  gw = await startEmbedded({ SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`, MAX_BODY_BYTES: '4096' });
  for (const account of [
    { username: 'dana', password: 'dana-password', balance: '100', rate: '0.5' },
    { username: 'eve', password: 'eve-password', balance: '0.2', rate: '1' },
    { username: 'finn', password: 'finn-password', sms_count: 0, balance: null },
  ]) {
    const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
      auth: `Bearer ${ADMIN_TOKEN}`,
      json: account,
    });
    expect(created.status).toBe(201);
  }
});

afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
});

const json = { 'content-type': 'application/json' };
const dana = { ...json, authorization: basic('dana', 'dana-password') };
const message = JSON.stringify({ to: '+4917012345678', content: 'parity' });

it.each([
  ['an accepted message', dana, message, 200],
  ['an accepted message behind a byte order mark', dana, `\uFEFF${message}`, 200],
  ['no credentials', json, message, 401],
  ['a wrong password', { ...json, authorization: basic('dana', 'wrong-password') }, message, 401],
  [
    'a bearer token that is not one',
    { ...json, authorization: 'Bearer not-a-token' },
    message,
    401,
  ],
  ['malformed JSON', dana, '{"to": [', 400],
  ['an empty body', dana, '', 400],
  ['a body that is not an object', dana, '[1,2]', 400],
  ['a list of recipients', dana, JSON.stringify({ to: ['+4917012345678'], content: 'x' }), 400],
  ['no recipient', dana, JSON.stringify({ content: 'parity' }), 400],
  ['a recipient that is not a number', dana, JSON.stringify({ to: 'call me', content: 'x' }), 400],
  [
    'a text too long',
    dana,
    JSON.stringify({ to: '+4917012345678', content: 'x'.repeat(3000) }),
    400,
  ],
  ['an unknown field', dana, JSON.stringify({ to: '+4917012345678', content: 'x', cost: 0 }), 400],
  [
    'not enough credit',
    { ...json, authorization: basic('eve', 'eve-password') },
    JSON.stringify({ to: '+4917012345678', content: 'x'.repeat(200) }),
    402,
  ],
  ['no quota left', { ...json, authorization: basic('finn', 'finn-password') }, message, 402],
])('answers %s the same on both ways', async (_name, headers, body, status) => {
  const hot = await post('/secure/send', headers, body);
  const viaExpress = await post('/secure/send?via=express', headers, body);
  expect(sameShape(hot)).toEqual(sameShape(viaExpress));
  expect(hot.status).toBe(status);
});

it('charges each accepted message once, whichever way it came', async () => {
  const balance = async (): Promise<number> =>
    Number(
      (await request(gw.base, 'GET', '/secure/balance', { auth: dana.authorization })).body.data
        .balance,
    );
  const before = await balance();
  const first = await post('/secure/send', dana, message);
  expect(first.status).toBe(200);
  expect((await post('/secure/send?via=express', dana, message)).status).toBe(200);
  expect(before - (await balance())).toBeCloseTo(1, 6);
});
