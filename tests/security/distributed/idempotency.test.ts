/**
 * Idempotency-Key across gateways: two api-gateway processes share one Postgres, and the same
 * request reaches both at once (a client retrying through a load balancer). The primary key of
 * idempotency_keys lets one of them run it; every answer is the same, one message is accepted and
 * one charge made.
 */
import { randomUUID } from 'node:crypto';
import { E2E_ADMIN_TOKEN, useDistributedRun } from '../../support/distributed';
import { basic, request, type Reply } from '../../support/http';

describe('Idempotency-Key with two gateways sharing Postgres', () => {
  const run = useDistributedRun();
  let gateways: string[];
  let auth: string;
  let accountId: string;

  beforeAll(async () => {
    const started = await run.gatewayWithAccount('idem-setup');
    const second = await run.start('api-gateway', { AUTH_URL: started.auth.url });
    gateways = [started.gateway.url, second.url];
    const created = await request(started.auth.url, 'POST', '/admin/v1/accounts', {
      auth: `Bearer ${E2E_ADMIN_TOKEN}`,
      json: { username: 'idem-two', password: 'idem-two-password', balance: '100', rate: '1' },
    });
    expect(created.status).toBe(201);
    accountId = created.body.id as string;
    auth = basic('idem-two', 'idem-two-password');
    // Each gateway checks the password once here, so the requests at once below find it cached.
    for (const base of gateways)
      expect((await request(base, 'GET', '/secure/balance', { auth })).status).toBe(200);
  }, 120_000);

  const send = (base: string, path: string, body: unknown, key: string): Promise<Reply> =>
    request(base, 'POST', path, { auth, json: body, headers: { 'idempotency-key': key } });

  const counts = async () => {
    const { rows } = await run.db.query<{ messages: string; debits: string; balance: string }>(
      `SELECT (SELECT count(*) FROM messages WHERE account_id = $1) AS messages,
              (SELECT count(*) FROM credit_ledger WHERE account_id = $1 AND reason = 'debit') AS debits,
              (SELECT balance::text FROM accounts WHERE id = $1) AS balance`,
      [accountId],
    );
    return rows[0];
  };

  it('the same send at both gateways at once: one message, one charge, one answer', async () => {
    const key = randomUUID();
    const body = { to: '41793330001', content: 'Your code is 654321' };
    const replies = await Promise.all(
      Array.from({ length: 16 }, (_, i) => send(gateways[i % 2], '/secure/send', body, key)),
    );
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
    expect(new Set(replies.map((r) => r.text)).size).toBe(1);
    expect(replies.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(await counts()).toEqual({ messages: '1', debits: '1', balance: '99.000000' });

    // Another body with the key, at either gateway: 409, nothing more.
    for (const base of gateways) {
      const other = await send(base, '/secure/send', { ...body, content: 'other' }, key);
      expect(other.status).toBe(409);
      expect(other.body.detail.code).toBe('IDEMPOTENCY_KEY_REUSED');
    }
    expect(await counts()).toEqual({ messages: '1', debits: '1', balance: '99.000000' });
  });

  it('the same batch at both gateways at once is accepted once', async () => {
    const key = randomUUID();
    const body = { messages: [{ to: ['41793340001', '41793340002'], content: 'batch' }] };
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) => send(gateways[i % 2], '/secure/sendbatch', body, key)),
    );
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
    expect(new Set(replies.map((r) => r.text)).size).toBe(1);
    const { rows } = await run.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM batches WHERE account_id = $1',
      [accountId],
    );
    expect(rows[0].n).toBe('1');
    expect((await counts()).balance).toBe('97.000000');
  });
});
