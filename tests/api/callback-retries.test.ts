/**
 * Promise 4 at the receiver's end: a receiver that always fails is given up after
 * CALLBACK_MAX_ATTEMPTS and the give-up is counted on /metrics; one that answers too late
 * (after CALLBACK_TIMEOUT_MS) is retried and its later, prompt answer ends it. Every attempt of one
 * callback names it with the same X-Smsgw-Callback-Id.
 */
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';
import { CallbackReceiver } from '../support/receiver';
import { batchCallbacksSettled, metricValue } from '../support/scrape';
import { SlowReceiver } from '../support/slow-receiver';

const MAX_ATTEMPTS = 3;
// Short, yet long enough that a prompt answer from this same busy process never misses it.
const TIMEOUT_MS = 1000;

let sim: SmppSimulator;
let gw: RunningGateway;
let failing: CallbackReceiver;
let slow: SlowReceiver;
const alice = basic('alice', 'alice-password');

const givenUp = () =>
  metricValue(gw.base, 'smsgw_callbacks_given_up_total', { kind: 'callback', reason: 'attempts' });
const requests = (outcome: string) =>
  metricValue(gw.base, 'smsgw_callback_requests_total', { kind: 'callback', outcome });
/** The message id a success callback names: statusText is `Success "<id>"`. */
const idOf = (statusText: string | undefined) =>
  /^Success "([0-9a-f-]{36})"$/.exec(statusText ?? '')![1];

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: false });
  const { port } = await sim.start();
  failing = new CallbackReceiver();
  await failing.start();
  // Several times the timeout, so the first answer surely comes after the notifier stopped waiting.
  slow = new SlowReceiver(TIMEOUT_MS * 3);
  await slow.start();
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
    CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
    CALLBACK_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
    CALLBACK_RETRY_BASE_MS: '100',
    CALLBACK_TIMEOUT_MS: String(TIMEOUT_MS),
  });
  const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
    auth: `Bearer ${ADMIN_TOKEN}`,
    json: { username: 'alice', password: 'alice-password', balance: null },
  });
  expect(created.status).toBe(201);
});

afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
  await failing?.stop();
  await slow?.stop();
});

describe('callback receivers that fail', () => {
  it(`gives up an always-failing receiver after ${MAX_ATTEMPTS} attempts and counts it on /metrics`, async () => {
    const before = await givenUp();
    const recipients = ['41790031001', '41790031002'];
    const batch = await request(gw.base, 'POST', '/secure/sendbatch', {
      auth: alice,
      json: {
        messages: [{ to: recipients, content: 'nobody listens' }],
        batch_config: { callback_url: `${failing.base}/down` },
      },
    });
    expect(batch.status).toBe(200);
    const batchId = batch.body.data.batchId as string;
    const callsTo = (to: string) =>
      failing.on('/down').filter((c) => c.query['batchId'] === batchId && c.query['to'] === to);

    await waitFor(
      async () => ((await givenUp()) >= before + recipients.length ? true : undefined),
      15_000,
      'the callbacks given up',
      100,
    );
    await batchCallbacksSettled(gw.base);
    // Given up means no further attempt, and each message counted once.
    for (const to of recipients) expect(callsTo(to)).toHaveLength(MAX_ATTEMPTS);
    // Every attempt of one callback carries the same id, and each callback its own: a receiver
    // that keeps the ids it handled acts once even on a request made again.
    const ids = recipients.map((to) => [
      ...new Set(callsTo(to).map((c) => c.headers['x-smsgw-callback-id'])),
    ]);
    for (const own of ids)
      expect(own).toEqual([expect.stringMatching(/^[0-9a-f-]{36}\.callback$/)]);
    expect(ids[0][0]).not.toBe(ids[1][0]);
    expect(await givenUp()).toBe(before + recipients.length);
    for (const to of recipients) {
      const id = idOf(callsTo(to)[0].query['statusText']);
      const message = (await request(gw.base, 'GET', `/secure/messages/${id}`, { auth: alice }))
        .body.data;
      expect(message.callbackError).toMatch(
        new RegExp(`given up after ${MAX_ATTEMPTS} attempts: HTTP status 500`),
      );
    }
  });

  it(`retries a receiver that answers after CALLBACK_TIMEOUT_MS (${TIMEOUT_MS} ms); a later attempt succeeds`, async () => {
    const [givenUpBefore, okBefore, retriesBefore] = [
      await givenUp(),
      await requests('ok'),
      await requests('retry'),
    ];
    const recipients = ['41790032001', '41790032002'];
    const batch = await request(gw.base, 'POST', '/secure/sendbatch', {
      auth: alice,
      json: {
        messages: [{ to: recipients, content: 'slow receiver' }],
        batch_config: { callback_url: `${slow.base}/slow` },
      },
    });
    expect(batch.status).toBe(200);

    await waitFor(
      () => (recipients.every((to) => slow.to(to).some((c) => c.answered)) ? true : undefined),
      15_000,
      'every slow callback answered',
      100,
    );
    await waitFor(
      async () => ((await requests('ok')) >= okBefore + recipients.length ? true : undefined),
      5_000,
      'the callbacks to the healthy receiver',
      100,
    );
    await batchCallbacksSettled(gw.base);
    for (const to of recipients) {
      const calls = slow.to(to);
      // First attempt: the notifier stopped waiting before the answer; second: answered, and no more.
      expect(calls.map((c) => ({ abandoned: c.abandoned, answered: c.answered }))).toEqual([
        { abandoned: true, answered: false },
        { abandoned: false, answered: true },
      ]);
      expect(calls[1].query).toMatchObject({ batchId: batch.body.data.batchId, to, status: '1' });
      const message = (
        await request(gw.base, 'GET', `/secure/messages/${idOf(calls[1].query['statusText'])}`, {
          auth: alice,
        })
      ).body.data;
      expect(message.callbackError ?? null).toBeNull();
    }
    expect(await requests('retry')).toBe(retriesBefore + recipients.length);
    expect(await requests('ok')).toBe(okBefore + recipients.length);
    expect(await givenUp()).toBe(givenUpBefore);
  });
});
