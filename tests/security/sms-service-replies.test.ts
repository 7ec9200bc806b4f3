import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, openDb } from '@smsgw/kit';
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';
import { CallbackReceiver } from '../support/receiver';

/**
 * What an MO route's webhook and sms-service reply may cost an account that did not ask for it: a
 * disabled account's routes call nobody and send nothing, a delivery of one inbound message that
 * runs again after a crash sends one reply and charges it once, two services of this gateway
 * answering each other stop instead of sending (and charging) replies for ever, and an answer the
 * database cannot store calls the service once, not again at every lease.
 */

let sim: SmppSimulator;
let gw: RunningGateway;
let service: Server;
let receiver: CallbackReceiver;
const dataDir = mkdtempSync(join(tmpdir(), 'smsgw-sms-service-'));
let env: Record<string, string>;

/** Each call the sms-services received: the path and the inbound message's id (%I). */
const calls: { path: string; id: string; from: string }[] = [];
/** The services' answers (text/plain), by path. */
const answers: Record<string, string> = {
  '/off': 'you should not see this',
  '/on': 'in service',
  '/crash': 'one reply only',
  '/pong': 'pong',
  '/ping': 'ping',
  '/rate': 'limited',
  // A character Postgres text cannot store (NUL) and another no message may hold (BEL), beside a
  // line break, which a message may hold.
  '/nul': 'bal\u0000ance\u0007 is\n5',
  '/refused': 'a reply the database refuses',
};

/** The service numbers of the loop's two accounts: the SMSC delivers what goes to them back here. */
const LOOP_A = '4401';
const LOOP_B = '4402';
const REPLIES_PER_MINUTE = 3;

const admin = (method: string, path: string, json?: unknown) =>
  request(gw.base, method, `/admin/v1${path}`, {
    auth: `Bearer ${ADMIN_TOKEN}`,
    ...(json !== undefined && { json }),
  });

async function account(username: string, number: string, balance = '10.000000') {
  const created = await admin('POST', '/accounts', {
    username,
    password: `${username}-password`,
    balance,
    default_from: number,
  });
  expect(created.status).toBe(201);
}

let position = 0;
async function route(name: string, username: string, to: string, extra: Record<string, unknown>) {
  const put = await admin('PUT', `/mo-routes/${name}`, {
    position: ++position,
    to,
    exact: true,
    account: username,
    ...extra,
  });
  expect(put.status).toBe(200);
}

let serviceBase = '';
/** A Kannel sms-service route's fields: its template names the inbound message and its sender. */
const smsService = (path: string) => ({
  webhook_url: `${serviceBase}${path}?id=%I&from=%p`,
  webhook_format: 'kannel',
});

const auth = (username: string) => basic(username, `${username}-password`);
const balance = async (username: string) =>
  Number(
    (await request(gw.base, 'GET', '/secure/balance', { auth: auth(username) })).body.data.balance,
  );
const inbound = async (username: string, id: string) =>
  (await request(gw.base, 'GET', `/secure/inbound/${id}`, { auth: auth(username) })).body?.data as
    { id: string; state: string; from: string } | undefined;
const repliesTo = (to: string) => sim.messages().filter((m) => m.to === to);
const repliesFrom = (from: string) => sim.messages().filter((m) => m.from === from);

/** The value of a counter series whose labels include all of `labels` (0 when absent). */
async function counter(name: string, labels: Record<string, string>): Promise<number> {
  const text = (await request(gw.base, 'GET', '/metrics')).text;
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

beforeAll(async () => {
  service = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://service');
    calls.push({
      path: url.pathname,
      id: url.searchParams.get('id') ?? '',
      from: url.searchParams.get('from') ?? '',
    });
    const text = answers[url.pathname];
    res.writeHead(text === undefined ? 404 : 200, { 'content-type': 'text/plain' }).end(text ?? '');
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  serviceBase = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  receiver = new CallbackReceiver();
  await receiver.start();
  sim = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    deliveryReceipts: false,
    // An SMSC that serves the loop's numbers delivers what is sent to them back here, as MO.
    onReceived: (submit, text) => {
      if (submit.to === LOOP_A || submit.to === LOOP_B)
        void sim.originate({ from: submit.from, to: submit.to, text }).catch(() => undefined);
    },
  });
  const { port } = await sim.start();
  env = {
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
    CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
    // Long enough that the account is disabled before a failed webhook's first retry.
    CALLBACK_RETRY_BASE_MS: '1000',
    KANNEL_REPLIES_PER_MINUTE: String(REPLIES_PER_MINUTE),
  };
  gw = await startEmbedded(env, dataDir);
  await account('off', '4300');
  await account('on', '4310');
  await account('crash', '4600');
  await account('rate', '4500');
  await account('nul', '4700');
  await account('refused', '4800');
  // Little credit: on a gateway that loops, the loop ends when it runs out.
  await account('loop-a', LOOP_A, '5.000000');
  await account('loop-b', LOOP_B, '5.000000');
  await route('off-svc', 'off', '4300', smsService('/off'));
  await route('off-hook', 'off', '4301', { webhook_url: `${receiver.base}/off-hook` });
  await route('off-late', 'off', '4302', { webhook_url: `${receiver.base}/off-late` });
  await route('on-svc', 'on', '4310', smsService('/on'));
  await route('crash-svc', 'crash', '4600', smsService('/crash'));
  await route('rate-svc', 'rate', '4500', smsService('/rate'));
  await route('nul-svc', 'nul', '4700', smsService('/nul'));
  await route('refused-svc', 'refused', '4800', smsService('/refused'));
  await route('loop-a', 'loop-a', LOOP_A, smsService('/pong'));
  await route('loop-b', 'loop-b', LOOP_B, smsService('/ping'));
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
  await receiver?.stop();
  service?.closeAllConnections();
  await new Promise<void>((resolve) => (service ? service.close(() => resolve()) : resolve()));
});

describe('a disabled account', () => {
  it('has no sms-service called, no webhook called and no reply sent or charged; its messages are kept in its inbox', async () => {
    expect((await admin('POST', '/accounts/off/disable')).status).toBe(200);
    await sim.originate({ from: '41790005001', to: '4300', text: 'bal' });
    await sim.originate({ from: '41790005002', to: '4301', text: 'hook' });
    // A later message of an account in service: by its reply, the first two were routed long ago.
    await sim.originate({ from: '41790005003', to: '4310', text: 'bal' });
    await waitFor(() => repliesTo('41790005003')[0], 15_000, 'the reply of the account in service');
    expect(calls.filter((c) => c.path === '/off')).toEqual([]);
    expect(receiver.on('/off-hook')).toEqual([]);
    expect(repliesTo('41790005001')).toEqual([]);

    expect((await admin('POST', '/accounts/off/enable')).status).toBe(200);
    expect(await balance('off')).toBe(10);
    const kept = await request(gw.base, 'GET', '/secure/inbound', { auth: auth('off') });
    expect(kept.status).toBe(200);
    const mine = (kept.body.data.messages as { from: string; to: string; state: string }[]).filter(
      (m) => ['41790005001', '41790005002'].includes(m.from),
    );
    expect(mine.map((m) => [m.from, m.to, m.state]).sort()).toEqual([
      ['41790005001', '4300', 'routed'],
      ['41790005002', '4301', 'routed'],
    ]);
    // Enabled again, its routes serve the messages that come from then on.
    await sim.originate({ from: '41790005004', to: '4300', text: 'bal' });
    await waitFor(() => repliesTo('41790005004')[0], 15_000, 'the reply once enabled');
  });

  it('has a webhook queued before it was disabled not called after', async () => {
    receiver.down('/off-late');
    await sim.originate({ from: '41790005005', to: '4302', text: 'late' });
    await waitFor(() => receiver.on('/off-late')[0], 15_000, 'the first, failed webhook call');
    expect((await admin('POST', '/accounts/off/disable')).status).toBe(200);
    receiver.up('/off-late');
    await waitFor(
      async () =>
        (await counter('smsgw_callbacks_given_up_total', {
          kind: 'mo',
          reason: 'account_disabled',
        })) >= 1,
      15_000,
      'the webhook given up for the disabled account',
    );
    expect(receiver.on('/off-late').map((c) => c.status)).toEqual([503]);
    expect((await admin('POST', '/accounts/off/enable')).status).toBe(200);
    const id = JSON.parse(receiver.on('/off-late')[0].body).id as string;
    expect((await inbound('off', id))?.state).toBe('failed');
  });
});

describe('replies that loop', () => {
  it('answers no message that is one of its own replies: two services answering each other stop after one reply', async () => {
    // B's number writes to A's service (forged, or B's own message): A answers B's number, the
    // SMSC delivers that answer to B's service, which must not answer back.
    await sim.originate({ from: LOOP_B, to: LOOP_A, text: 'ping' });
    await waitFor(() => calls.find((c) => c.path === '/ping'), 15_000, "B's service called");
    await waitFor(
      async () =>
        (await counter('smsgw_kannel_replies_suppressed_total', { reason: 'own_reply' })) >= 1,
      15_000,
      'the reply to our own reply suppressed',
    );
    expect(repliesFrom(LOOP_A).map((m) => [m.to, m.text])).toEqual([[LOOP_B, 'pong']]);
    expect(repliesFrom(LOOP_B)).toEqual([]);
    expect(await balance('loop-b')).toBe(5);
    expect(await balance('loop-a')).toBe(4);
  });

  it(`sends one number at most ${REPLIES_PER_MINUTE} replies a minute from one route`, async () => {
    for (let i = 0; i <= REPLIES_PER_MINUTE; i++)
      await sim.originate({ from: '41790007001', to: '4500', text: `rate ${i}` });
    await waitFor(
      () => calls.filter((c) => c.from === '41790007001').length > REPLIES_PER_MINUTE,
      15_000,
      'every message given to the service',
    );
    await waitFor(
      async () => (await counter('smsgw_kannel_replies_suppressed_total', { reason: 'rate' })) >= 1,
      15_000,
      'the reply over the limit suppressed',
    );
    // Another number is answered: the limit is per number.
    await sim.originate({ from: '41790007002', to: '4500', text: 'rate other' });
    await waitFor(() => repliesTo('41790007002')[0], 15_000, "the other number's reply");
    expect(repliesTo('41790007001')).toHaveLength(REPLIES_PER_MINUTE);
    expect(await balance('rate')).toBe(10 - REPLIES_PER_MINUTE - 1);
  });
});

describe('a delivery that runs again after a crash', () => {
  it('sends the reply once and charges it once', async () => {
    await sim.originate({ from: '41790006001', to: '4600', text: 'once' });
    const reply = await waitFor(() => repliesTo('41790006001')[0], 15_000, 'the first reply');
    expect(reply.text).toBe('one reply only');
    const id = calls.find((c) => c.path === '/crash')!.id;
    await waitFor(
      async () => (await inbound('crash', id))?.state === 'delivered',
      15_000,
      'the delivery recorded',
    );
    expect(await balance('crash')).toBe(9);

    // What a notifier that died after the reply, before it recorded the attempt, leaves behind:
    // the attempt still pending (its lease run out) and the message not yet delivered.
    await gw.stop();
    await waitFor(() => sim.receivingCount === 0, 15_000, 'the gateway unbound');
    const db = await openDb({ dataDir, logger: createLogger('test', 'silent') });
    await db.query(
      `UPDATE callback_attempts SET state = 'pending', attempts = 0, next_attempt_at = now()
        WHERE message_id = $1 AND kind = 'mo'`,
      [id],
    );
    await db.query(`UPDATE inbound_messages SET state = 'routed' WHERE id = $1`, [id]);
    await db.close();
    gw = await startEmbedded(env, dataDir);

    await waitFor(
      async () => (await inbound('crash', id))?.state === 'delivered',
      30_000,
      'the attempt taken again and recorded',
    );
    // A later message's reply: a second reply to the first would have been sent before it.
    await waitFor(() => sim.receivingCount > 0, 15_000, 'the gateway bound again');
    await sim.originate({ from: '41790006002', to: '4600', text: 'later' });
    await waitFor(() => repliesTo('41790006002')[0], 30_000, 'the later reply');
    expect(repliesTo('41790006001')).toHaveLength(1);
    expect(calls.filter((c) => c.id === id)).toHaveLength(1);
    expect(await balance('crash')).toBe(8);
  });
});

describe('an answer that cannot be stored as it came', () => {
  it('calls the service once and sends its answer without the characters no message can hold', async () => {
    await sim.originate({ from: '41790008001', to: '4700', text: 'bal' });
    const reply = await waitFor(() => repliesTo('41790008001')[0], 30_000, 'the cleaned reply');
    expect(reply.text).toBe('balance is\n5');
    const id = calls.find((c) => c.path === '/nul')!.id;
    await waitFor(
      async () => (await inbound('nul', id))?.state === 'delivered',
      15_000,
      'the delivery recorded',
    );
    // Recorded: the attempt is not taken again, so the service is not called again.
    expect(calls.filter((c) => c.id === id)).toHaveLength(1);
    expect(repliesTo('41790008001')).toHaveLength(1);
    expect(await balance('nul')).toBe(9);
  });

  it('gives the attempt up when the reply cannot be tied to its message: one call, no reply, nothing charged', async () => {
    // A database that refuses this reply's row, as Postgres refused a NUL in it: before, the
    // attempt was left to its lease and the service called again at each one, for ever.
    await gw.stop();
    await waitFor(() => sim.receivingCount === 0, 15_000, 'the gateway unbound');
    const db = await openDb({ dataDir, logger: createLogger('test', 'silent') });
    await db.query(
      `ALTER TABLE sms_service_replies ADD CONSTRAINT test_refuses_reply CHECK (to_addr <> '41790008002')`,
    );
    await db.close();
    gw = await startEmbedded(env, dataDir);
    await waitFor(() => sim.receivingCount > 0, 15_000, 'the gateway bound again');

    await sim.originate({ from: '41790008002', to: '4800', text: 'bal' });
    const call = await waitFor(
      () => calls.find((c) => c.path === '/refused'),
      15_000,
      'the service called',
    );
    await waitFor(
      async () => (await inbound('refused', call.id))?.state === 'failed',
      30_000,
      'the attempt given up',
    );
    expect(
      await counter('smsgw_callbacks_given_up_total', { kind: 'mo', reason: 'reply_unrecorded' }),
    ).toBe(1);
    // Given up, the attempt is taken no more: one call, no reply, no charge.
    expect(calls.filter((c) => c.id === call.id)).toHaveLength(1);
    expect(repliesTo('41790008002')).toEqual([]);
    expect(await balance('refused')).toBe(10);
  });
});
