/**
 * Idempotency-Key on the sending routes, black-box against embedded mode: a client that retries,
 * or sends the same request twice at once, gets one message, one charge and the same answer.
 */
import { randomUUID } from 'node:crypto';
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request, type Reply } from '../support/http';

const admin = { auth: `Bearer ${ADMIN_TOKEN}` };
let accounts = 0;

/** A simulator and an embedded gateway bound to it, for one describe block. */
function useGateway(env: Record<string, string> = {}): {
  sim: SmppSimulator;
  gw: RunningGateway;
  account(balance?: string): Promise<string>;
  balanceOf(auth: string): Promise<string>;
  send(auth: string, body: unknown, key?: string, path?: string): Promise<Reply>;
} {
  const run = {
    sim: undefined as unknown as SmppSimulator,
    gw: undefined as unknown as RunningGateway,
    async account(balance = '100') {
      const username = `idem${++accounts}`;
      const created = await request(run.gw.base, 'POST', '/admin/v1/accounts', {
        ...admin,
        json: { username, password: 'idem-password', balance, rate: '1' },
      });
      expect(created.status).toBe(201);
      const auth = basic(username, 'idem-password');
      // Checked once here, so the requests at once below find the credential cached: each first
      // check of a password costs a deliberately slow hash, which is not what these tests measure.
      expect((await request(run.gw.base, 'GET', '/secure/balance', { auth })).status).toBe(200);
      return auth;
    },
    async balanceOf(auth: string) {
      return (await request(run.gw.base, 'GET', '/secure/balance', { auth })).body.data
        .balance as string;
    },
    send(auth: string, body: unknown, key?: string, path = '/secure/send') {
      return request(run.gw.base, 'POST', path, {
        auth,
        json: body,
        ...(key !== undefined && { headers: { 'idempotency-key': key } }),
      });
    },
  };
  beforeAll(async () => {
    run.sim = new SmppSimulator({ host: '127.0.0.1', port: 0, latencyMs: [1, 3] });
    const { port } = await run.sim.start();
    run.gw = await startEmbedded({ SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`, ...env });
  }, 120_000);
  afterAll(async () => {
    await run.gw?.stop();
    await run.sim?.stop();
  });
  return run;
}

describe('Idempotency-Key, default window', () => {
  const run = useGateway();
  const sentTo = (to: string) => run.sim.received.filter((r) => r.to === to);

  it('20 identical requests at once with one key: one message, one charge, identical answers', async () => {
    const auth = await run.account();
    const key = randomUUID();
    const body = { to: '41791110001', content: 'Your code is 123456' };
    const replies = await Promise.all(Array.from({ length: 20 }, () => run.send(auth, body, key)));

    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
    expect(new Set(replies.map((r) => r.text)).size).toBe(1);
    expect(replies[0].body.data).toMatch(/^Success "[0-9a-f-]{36}$/);
    const replayed = replies.filter((r) => r.headers.get('idempotent-replayed') === 'true');
    expect(replayed).toHaveLength(19);
    expect(await run.balanceOf(auth)).toBe('99');

    const id = (replies[0].body.data as string).slice('Success "'.length);
    await waitFor(
      async () =>
        (await request(run.gw.base, 'GET', `/secure/messages/${id}`, { auth })).body.data.state ===
        'submitted',
      15_000,
      'the message submitted',
    );
    expect(sentTo('41791110001')).toHaveLength(1);

    // A retry long after (the client never saw the answer) gets it again, and nothing more is sent.
    const retry = await run.send(auth, body, key);
    expect(retry.status).toBe(200);
    expect(retry.text).toBe(replies[0].text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await run.balanceOf(auth)).toBe('99');
    expect(sentTo('41791110001')).toHaveLength(1);
  });

  it('the same key with another body is 409 IDEMPOTENCY_KEY_REUSED, and sends nothing', async () => {
    const auth = await run.account();
    const key = randomUUID();
    const first = await run.send(auth, { to: '41791110002', content: 'first' }, key);
    expect(first.status).toBe(200);

    const other = await run.send(auth, { to: '41791110002', content: 'second' }, key);
    expect(other.status).toBe(409);
    expect(other.body.detail).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      field: 'Idempotency-Key',
    });
    // The same key on the batch route is another request too.
    const batch = await run.send(
      auth,
      { messages: [{ to: '41791110002', content: 'first' }] },
      key,
      '/secure/sendbatch',
    );
    expect(batch.status).toBe(409);
    expect(batch.body.detail.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await run.balanceOf(auth)).toBe('99');
  });

  it('keys are per account: the same key from another account is its own request', async () => {
    const alice = await run.account();
    const bob = await run.account();
    const key = randomUUID();
    const body = { to: '41791110003', content: 'hello' };
    const [a, b] = await Promise.all([run.send(alice, body, key), run.send(bob, body, key)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.text).not.toBe(b.text);
    expect([await run.balanceOf(alice), await run.balanceOf(bob)]).toEqual(['99', '99']);
  });

  it('a key that is too long or has unsafe characters is a 400 and changes nothing', async () => {
    const auth = await run.account();
    const body = { to: '41791110004', content: 'hello' };
    for (const key of ['k'.repeat(256), 'has space', 'slash/key', 'quote"key', 'clé', 'a,b']) {
      const reply = await run.send(auth, body, key);
      expect({ key, status: reply.status, code: reply.body?.detail?.code }).toEqual({
        key,
        status: 400,
        code: 'INVALID_PARAMETER',
      });
      expect(reply.body.detail.field).toBe('Idempotency-Key');
    }
    expect((await run.send(auth, body, 'k'.repeat(255))).status).toBe(200);
    expect((await run.send(auth, body, 'Az09-_.:~')).status).toBe(200);
    expect(await run.balanceOf(auth)).toBe('98');
  });

  it('a batch sent twice at once with one key is accepted once and charged once', async () => {
    const auth = await run.account();
    const key = randomUUID();
    const body = {
      messages: [{ to: ['41791120001', '41791120002', '41791120003'], content: 'batch' }],
    };
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => run.send(auth, body, key, '/secure/sendbatch')),
    );
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(replies.map((r) => r.text)).size).toBe(1);
    expect(await run.balanceOf(auth)).toBe('97');
    await waitFor(
      () => run.sim.received.filter((r) => r.to.startsWith('4179112')).length >= 3,
      15_000,
      'the batch sent',
    );
    const status = await request(
      run.gw.base,
      'GET',
      `/secure/batches/${replies[0].body.data.batchId as string}`,
      { auth },
    );
    expect(status.status).toBe(200);
    expect(await run.balanceOf(auth)).toBe('97');
  });

  it('an answer that is an error below 500 is kept too; a request without a key is never deduplicated', async () => {
    const auth = await run.account('0.5');
    const key = randomUUID();
    const body = { to: '41791110005', content: 'hello' };
    const first = await run.send(auth, body, key);
    expect(first.status).toBe(402);
    const again = await run.send(auth, body, key);
    expect(again.status).toBe(402);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    const rich = await run.account();
    const plain = { to: '41791110006', content: 'no key' };
    const [a, b] = await Promise.all([run.send(rich, plain), run.send(rich, plain)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.text).not.toBe(b.text);
    expect(await run.balanceOf(rich)).toBe('98');
  });
});

describe('Idempotency-Key, short window (IDEMPOTENCY_WINDOW_SECONDS)', () => {
  const run = useGateway({ IDEMPOTENCY_WINDOW_SECONDS: '3' });

  it('after the window the key is free again', async () => {
    const auth = await run.account();
    const key = randomUUID();
    const body = { to: '41791130001', content: 'hello' };
    const first = await run.send(auth, body, key);
    const second = await run.send(auth, body, key);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.text).toBe(first.text);
    expect(await run.balanceOf(auth)).toBe('99');

    // Sent again until the key is free: inside the window each send is a replay, which charges
    // nothing (the balances below show it); the first one after it is a new message.
    const later = await waitFor(
      async () => {
        const reply = await run.send(auth, body, key);
        if (reply.headers.get('idempotent-replayed') === null) return reply;
        expect(reply.text).toBe(first.text);
        return undefined;
      },
      10_000,
      'the key free again',
      200,
    );
    expect(later.status).toBe(200);
    expect(later.text).not.toBe(first.text);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(await run.balanceOf(auth)).toBe('98');
    // And now the key holds the new answer.
    const replay = await run.send(auth, body, key);
    expect(replay.text).toBe(later.text);
    expect(await run.balanceOf(auth)).toBe('98');
  });
});
