/**
 * Signed callbacks, black-box against embedded mode: real delivery reports and batch callbacks,
 * as the customer's server receives them, verified with the Node.js function docs/security.md
 * shows (taken from the document itself, so the documented code is the tested code).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { runSmsgw } from '../support/cli';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';
import { CallbackReceiver, type ReceivedCall } from '../support/receiver';

/** What the documented verifier takes of a request, as the receiver got it. */
interface Received {
  method: string;
  target: string;
  callbackId: string;
  body: string;
}
type Verify = (secret: string, header: string, request: Received) => boolean;

/** The first js block of the `## Signed callbacks` section of docs/security.md, run as written. */
function documentedVerifier(): Verify {
  const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'security.md'), 'utf8');
  const section = doc.split(/^## Signed callbacks$/m)[1]?.split(/^## /m)[0] ?? '';
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('docs/security.md: no js block under ## Signed callbacks');
  return runInNewContext(`${code}\nverifySignature;`, { require, Buffer }) as Verify;
}
const verifySignature = documentedVerifier();

const admin = { auth: `Bearer ${ADMIN_TOKEN}` };
let sim: SmppSimulator;
let gw: RunningGateway;
let receiver: CallbackReceiver;
let accounts = 0;

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0, latencyMs: [1, 3] });
  const { port } = await sim.start();
  receiver = new CallbackReceiver();
  await receiver.start();
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
    CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
    CALLBACK_RETRY_BASE_MS: '100',
  });
}, 120_000);
afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
  await receiver?.stop();
});

async function account(): Promise<{ username: string; auth: string }> {
  const username = `signed${++accounts}`;
  const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
    ...admin,
    json: { username, password: 'signed-password', balance: null },
  });
  expect(created.status).toBe(201);
  return { username, auth: basic(username, 'signed-password') };
}

const secretOf = async (auth: string) =>
  (await request(gw.base, 'GET', '/secure/callback-secret', { auth })).body.data;

/** Sends with a level-1 report to a receiver path of its own; the one report it gets. */
async function reportOf(auth: string, path: string, method: 'GET' | 'POST'): Promise<ReceivedCall> {
  const sent = await request(gw.base, 'POST', '/secure/send', {
    auth,
    json: {
      to: '41792220001',
      content: 'hello',
      dlr: 'yes',
      'dlr-url': `${receiver.base}${path}?tag=kept`,
      'dlr-level': 1,
      'dlr-method': method,
    },
  });
  expect(sent.status).toBe(200);
  return waitFor(() => receiver.on(path)[0], 15_000, `a report on ${path}`);
}

const signatureOf = (call: ReceivedCall): string => {
  const header = call.headers['x-smsgw-signature'];
  expect(typeof header).toBe('string');
  return header as string;
};
const requestOf = (call: ReceivedCall): Received => ({
  method: call.method,
  target: call.rawQuery === '' ? call.path : `${call.path}?${call.rawQuery}`,
  callbackId: String(call.headers['x-smsgw-callback-id'] ?? ''),
  body: call.method === 'POST' ? call.body : '',
});

describe('signed callbacks', () => {
  it('every account has its own secret, read with its own credentials and by the admin', async () => {
    const a = await account();
    const b = await account();
    const secretA = await secretOf(a.auth);
    expect(secretA).toEqual({
      secret: expect.stringMatching(/^[0-9a-f]{64}$/),
      previous_secret: null,
      previous_secret_expires_at: null,
    });
    expect((await secretOf(b.auth)).secret).not.toBe(secretA.secret);
    const byAdmin = await request(
      gw.base,
      'GET',
      `/admin/v1/accounts/${a.username}/callback-secret`,
      admin,
    );
    expect(byAdmin.body).toEqual(secretA);
    expect((await request(gw.base, 'GET', '/secure/callback-secret')).status).toBe(401);
  });

  it.each(['GET', 'POST'] as const)(
    'a %s delivery report carries a signature that verifies, and fails when body or timestamp is altered',
    async (method) => {
      const { auth } = await account();
      const { secret } = await secretOf(auth);
      const call = await reportOf(auth, `/dlr-${method}`, method);
      const header = signatureOf(call);
      expect(header).toMatch(/^t=\d+,v2=[0-9a-f]{64}$/);
      const received = requestOf(call);
      expect(method === 'POST' ? received.body : received.target).toContain(
        'message_status=ESME_ROK',
      );
      expect(received.callbackId).toMatch(/\.dlr\d*$/);

      expect(verifySignature(secret, header, received)).toBe(true);
      // The body (or query) changed in transit.
      const altered = (r: Received): Received =>
        method === 'POST'
          ? { ...r, body: r.body.replace('ESME_ROK', 'ESME_RX') }
          : { ...r, target: r.target.replace('ESME_ROK', 'ESME_RX') };
      expect(verifySignature(secret, header, altered(received))).toBe(false);
      expect(verifySignature(secret, header, { ...received, body: `${received.body}&x=1` })).toBe(
        false,
      );
      // The timestamp changed (a replay made to look fresh), or is old.
      const t = Number(/t=(\d+)/.exec(header)![1]);
      expect(verifySignature(secret, header.replace(`t=${t}`, `t=${t + 1}`), received)).toBe(false);
      expect(verifySignature(secret, header.replace(`t=${t}`, `t=${t - 3600}`), received)).toBe(
        false,
      );
      // Another account's secret.
      expect(verifySignature('0'.repeat(64), header, received)).toBe(false);
    },
  );

  it.each(['GET', 'POST'] as const)(
    'a captured %s report replayed to another path, method or callback id fails verification',
    async (method) => {
      const { auth } = await account();
      const { secret } = await secretOf(auth);
      const call = await reportOf(auth, `/replay-${method}`, method);
      const header = signatureOf(call);
      const received = requestOf(call);
      expect(verifySignature(secret, header, received)).toBe(true);
      // The same bytes sent by whoever captured them to another endpoint of the receiver.
      const elsewhere = received.target.replace(`/replay-${method}`, '/payments/confirm');
      expect(verifySignature(secret, header, { ...received, target: elsewhere })).toBe(false);
      expect(
        verifySignature(secret, header, { ...received, target: `${received.target}&again=1` }),
      ).toBe(false);
      expect(
        verifySignature(secret, header, {
          ...received,
          method: method === 'GET' ? 'POST' : 'GET',
        }),
      ).toBe(false);
      expect(
        verifySignature(secret, header, {
          ...received,
          callbackId: `${received.callbackId}0`,
        }),
      ).toBe(false);
    },
  );

  it('batch callbacks are signed', async () => {
    const { auth } = await account();
    const { secret } = await secretOf(auth);
    const sent = await request(gw.base, 'POST', '/secure/sendbatch', {
      auth,
      json: {
        messages: [{ to: ['41792230001', '41792230002'], content: 'batch' }],
        batch_config: { callback_url: `${receiver.base}/batch-signed` },
      },
    });
    expect(sent.status).toBe(200);
    const calls = await waitFor(
      () => receiver.on('/batch-signed').length >= 2 && receiver.on('/batch-signed'),
      15_000,
      'two batch callbacks',
    );
    for (const call of calls)
      expect(verifySignature(secret, signatureOf(call), requestOf(call))).toBe(true);
  });

  it('rotation: the previous secret signs too during its grace period, and not after', async () => {
    const { username, auth } = await account();
    const old = (await secretOf(auth)).secret as string;

    const rotated = await request(gw.base, 'POST', '/secure/callback-secret', { auth });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data.secret as string;
    expect(fresh).toMatch(/^[0-9a-f]{64}$/);
    expect(fresh).not.toBe(old);
    expect(rotated.body.data.previous_secret).toBe(old);
    const until = Date.parse(rotated.body.data.previous_secret_expires_at as string);
    expect(until - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(await secretOf(auth)).toEqual(rotated.body.data);

    const during = await reportOf(auth, '/rotating', 'GET');
    expect(signatureOf(during)).toMatch(/^t=\d+,v2=[0-9a-f]{64},v2=[0-9a-f]{64}$/);
    expect(verifySignature(fresh, signatureOf(during), requestOf(during))).toBe(true);
    expect(verifySignature(old, signatureOf(during), requestOf(during))).toBe(true);

    // A leaked secret: rotate with no grace, by the admin this time.
    const now = await request(gw.base, 'POST', `/admin/v1/accounts/${username}/callback-secret`, {
      ...admin,
      json: { grace_seconds: 0 },
    });
    expect(now.status).toBe(200);
    expect(now.body).toMatchObject({ previous_secret: null, previous_secret_expires_at: null });
    const newest = now.body.secret as string;
    const after = await reportOf(auth, '/rotated', 'POST');
    expect(signatureOf(after)).toMatch(/^t=\d+,v2=[0-9a-f]{64}$/);
    expect(verifySignature(newest, signatureOf(after), requestOf(after))).toBe(true);
    expect(verifySignature(fresh, signatureOf(after), requestOf(after))).toBe(false);
    expect(verifySignature(old, signatureOf(after), requestOf(after))).toBe(false);
  });

  it("the CLI reads and rotates an account's secret", async () => {
    const { username, auth } = await account();
    const smsgw = async (args: string[]): Promise<unknown> =>
      JSON.parse(await runSmsgw(gw.base, args));
    const before = await secretOf(auth);
    expect(await smsgw(['callback-secret', 'get', username])).toEqual(before);
    const rotated = (await smsgw([
      'callback-secret',
      'rotate',
      username,
      '--grace-seconds',
      '60',
    ])) as { secret: string; previous_secret: string };
    expect(rotated.previous_secret).toBe(before.secret);
    expect(rotated.secret).not.toBe(before.secret);
    expect((await secretOf(auth)).secret).toBe(rotated.secret);
  });

  it('a bad rotation request is a 400 and changes nothing', async () => {
    const { auth } = await account();
    const before = await secretOf(auth);
    for (const json of [{ grace_seconds: -1 }, { grace_seconds: 604_801 }, { grace: 1 }, []]) {
      const reply = await request(gw.base, 'POST', '/secure/callback-secret', { auth, json });
      expect({ json, status: reply.status }).toEqual({ json, status: 400 });
    }
    expect(await secretOf(auth)).toEqual(before);
  });
});
