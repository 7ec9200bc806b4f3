/**
 * The admin audit trail and scoped admin tokens, black-box against embedded mode: every kind of
 * admin change leaves an entry naming its actor, action, target and address, with no password or
 * secret in it; a named token may do what its scopes allow and nothing else; a revoked token is
 * refused; an account made without a balance cannot send.
 */
import { runSmsgw } from '../support/cli';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request, type Reply } from '../support/http';

const admin = `Bearer ${ADMIN_TOKEN}`;
let gw: RunningGateway;

const call = (method: string, path: string, auth: string, json?: unknown): Promise<Reply> =>
  request(gw.base, method, path, { auth, ...(json !== undefined && { json }) });

interface Entry {
  id: string;
  at: string;
  actor: string;
  action: string;
  target: string;
  summary: Record<string, unknown>;
  address: string;
  status: number;
  result: string;
}

async function trail(query = ''): Promise<{ data: Entry[]; next: string | null }> {
  const page = await call('GET', `/admin/v1/audit${query}`, admin);
  expect(page.status).toBe(200);
  return page.body;
}

/** A named token with these scopes, as the operator gets it (once). */
async function token(name: string, scopes: string[]): Promise<string> {
  const made = await call('POST', '/admin/v1/tokens', admin, { name, scopes });
  expect(made.status).toBe(201);
  expect(made.headers.get('cache-control')).toBe('no-store');
  expect(made.body.data).toMatchObject({
    name,
    scopes,
    created_by: 'ADMIN_TOKEN',
    revoked_at: null,
  });
  return made.body.data.token as string;
}

beforeAll(async () => {
  gw = await startEmbedded({});
}, 120_000);
afterAll(async () => {
  await gw?.stop();
});

describe('admin audit trail', () => {
  it('records each kind of admin change with actor, action, target and address, and no secret', async () => {
    const secrets: string[] = [];
    const ok = (reply: Reply, status = 200) => {
      expect(reply.status).toBe(status);
      return reply;
    };
    const password = 'audited-password-1';
    const newPassword = 'audited-password-2';
    secrets.push(password, newPassword);
    ok(
      await call('POST', '/admin/v1/accounts', admin, {
        username: 'audited',
        password,
        balance: '5',
      }),
      201,
    );
    ok(await call('POST', '/admin/v1/accounts/audited/credit', admin, { amount: '2.5' }));
    ok(await call('POST', '/admin/v1/accounts/audited/password', admin, { password: newPassword }));
    const app = ok(
      await call('POST', '/admin/v1/accounts/audited/applications', admin, { name: 'crm' }),
      201,
    ).body;
    secrets.push(app.client_secret);
    const rotated = ok(
      await call(
        'POST',
        `/admin/v1/accounts/audited/applications/${app.client_id}/secret`,
        admin,
        {},
      ),
    ).body;
    secrets.push(rotated.client_secret);
    const callback = ok(
      await call('POST', '/admin/v1/accounts/audited/callback-secret', admin, {}),
    ).body;
    secrets.push(callback.secret);
    ok(await call('GET', '/admin/v1/accounts/audited/callback-secret', admin));
    ok(await call('PUT', '/admin/v1/accounts/audited/senders', admin, { senders: ['Acme'] }));
    ok(await call('POST', '/admin/v1/accounts/audited/disable', admin));
    ok(await call('POST', '/admin/v1/accounts/audited/enable', admin));
    ok(
      await call('DELETE', `/admin/v1/accounts/audited/applications/${app.client_id}`, admin),
      204,
    );
    const connectorPassword = 'connector-pw-9';
    secrets.push(connectorPassword);
    ok(
      await call('POST', '/admin/v1/connectors', admin, {
        name: 'audited-op',
        url: `smpp://audited:${connectorPassword}@127.0.0.1:1`,
      }),
      201,
    );
    ok(await call('POST', '/admin/v1/connectors/audited-op/stop', admin));
    ok(
      await call('PUT', '/admin/v1/routes/audited-route', admin, {
        position: 9000,
        kind: 'static',
        connectors: [{ connector: 'audited-op' }],
        filters: { prefixes: ['999'] },
      }),
    );
    ok(await call('DELETE', '/admin/v1/routes/audited-route', admin));
    ok(
      await call('POST', '/admin/v1/accounts/audited/optouts', admin, { number: '41790000009' }),
      201,
    );
    secrets.push(await token('audited-token', ['accounts:read']));
    ok(await call('DELETE', '/admin/v1/tokens/audited-token', admin));
    // A change that failed is recorded too, as failed.
    expect(
      (await call('POST', '/admin/v1/accounts/nobody/credit', admin, { amount: '1' })).status,
    ).toBe(404);

    const { data } = await trail('?limit=500');
    const expected: Array<[string, string]> = [
      ['POST /accounts', '/accounts'],
      ['POST /accounts/:username/credit', '/accounts/audited/credit'],
      ['POST /accounts/:username/password', '/accounts/audited/password'],
      ['POST /accounts/:username/applications', '/accounts/audited/applications'],
      [
        'POST /accounts/:username/applications/:clientId/secret',
        `/accounts/audited/applications/${app.client_id}/secret`,
      ],
      ['POST /accounts/:username/callback-secret', '/accounts/audited/callback-secret'],
      ['GET /accounts/:username/callback-secret', '/accounts/audited/callback-secret'],
      ['PUT /accounts/:username/senders', '/accounts/audited/senders'],
      ['POST /accounts/:username/disable', '/accounts/audited/disable'],
      ['POST /accounts/:username/enable', '/accounts/audited/enable'],
      [
        'DELETE /accounts/:username/applications/:clientId',
        `/accounts/audited/applications/${app.client_id}`,
      ],
      ['POST /connectors', '/connectors'],
      ['POST /connectors/:name/stop', '/connectors/audited-op/stop'],
      ['PUT /routes/:name', '/routes/audited-route'],
      ['DELETE /routes/:name', '/routes/audited-route'],
      ['POST /accounts/:username/optouts', '/accounts/audited/optouts'],
      ['POST /tokens', '/tokens'],
      ['DELETE /tokens/:name', '/tokens/audited-token'],
    ];
    for (const [action, target] of expected) {
      const entry = data.find((e) => e.action === action && e.target === target);
      expect({ action, entry }).toEqual({
        action,
        entry: expect.objectContaining({
          actor: 'ADMIN_TOKEN',
          address: '127.0.0.1',
          result: 'ok',
          at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        }),
      });
    }
    const created = data.find((e) => e.action === 'POST /accounts')!;
    expect(created.summary).toEqual({
      body: { username: 'audited', password: '[redacted]', balance: '5' },
    });
    expect(data.find((e) => e.target === '/accounts/audited/credit')!.summary).toEqual({
      body: { amount: '2.5' },
    });
    expect(data.find((e) => e.target === '/accounts/nobody/credit')).toMatchObject({
      actor: 'ADMIN_TOKEN',
      status: 404,
      result: 'failed',
    });
    // Newest first.
    const ids = data.map((e) => BigInt(e.id));
    expect([...ids].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))).toEqual(ids);

    const written = JSON.stringify(data);
    for (const secret of secrets) expect(written).not.toContain(secret);
  });

  it('filters by actor, action and target, and pages with a cursor', async () => {
    for (const amount of ['1', '2', '3'])
      expect(
        (await call('POST', '/admin/v1/accounts/paged/credit', admin, { amount })).status,
      ).toBe(404);
    expect(
      (
        await call('POST', '/admin/v1/accounts', admin, {
          username: 'paged',
          password: 'paged-password',
        })
      ).status,
    ).toBe(201);
    for (const amount of ['1', '2', '3'])
      expect(
        (await call('POST', '/admin/v1/accounts/paged/credit', admin, { amount })).status,
      ).toBe(200);
    const filter = `?action=${encodeURIComponent('POST /accounts/:username/credit')}&target=/accounts/paged&result=ok`;
    const first = await trail(`${filter}&limit=2`);
    expect(first.data.map((e) => e.summary)).toEqual([
      { body: { amount: '3' } },
      { body: { amount: '2' } },
    ]);
    expect(first.next).not.toBeNull();
    const second = await trail(`${filter}&limit=2&cursor=${first.next}`);
    expect(second.data.map((e) => e.summary)).toEqual([{ body: { amount: '1' } }]);
    expect(second.next).toBeNull();
    expect((await trail('?actor=nobody-at-all')).data).toEqual([]);
    // Bad filters are a 400, not a 500.
    expect((await call('GET', '/admin/v1/audit?since=yesterday', admin)).status).toBe(400);
    expect((await call('GET', '/admin/v1/audit?cursor=abc', admin)).status).toBe(400);
    expect((await call('GET', '/admin/v1/audit?limit=0', admin)).status).toBe(400);
    expect((await call('GET', '/admin/v1/audit?bogus=1', admin)).status).toBe(400);
  });

  it('the CLI makes, lists and revokes tokens and reads the trail', async () => {
    const made = JSON.parse(
      await runSmsgw(gw.base, ['admin-tokens', 'create', 'cli-token', '--scope', 'audit:read']),
    );
    expect(made.data).toMatchObject({ name: 'cli-token', scopes: ['audit:read'] });
    const read = JSON.parse(
      await runSmsgw(
        gw.base,
        ['audit', '--actor', 'ADMIN_TOKEN', '--action', 'POST /tokens', '--limit', '1'],
        {
          SMSGW_ADMIN_TOKEN: made.data.token,
        },
      ),
    );
    expect(read.data).toEqual([
      expect.objectContaining({ actor: 'ADMIN_TOKEN', action: 'POST /tokens', target: '/tokens' }),
    ]);
    const listed = JSON.parse(await runSmsgw(gw.base, ['admin-tokens', 'list']));
    expect(listed.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'cli-token', revoked_at: null })]),
    );
    expect(JSON.stringify(listed)).not.toContain(made.data.token);
    await runSmsgw(gw.base, ['admin-tokens', 'revoke', 'cli-token']);
    await expect(
      runSmsgw(gw.base, ['audit'], { SMSGW_ADMIN_TOKEN: made.data.token }),
    ).rejects.toThrow(/401|Admin token required/);
  });
});

describe('scoped admin tokens', () => {
  it('a token is allowed inside its scopes and refused outside them with a 403 naming the scope', async () => {
    expect(
      (
        await call('POST', '/admin/v1/accounts', admin, {
          username: 'scoped',
          password: 'scoped-password',
          balance: '1',
        })
      ).status,
    ).toBe(201);
    const reader = `Bearer ${await token('reader', ['accounts:read'])}`;
    expect((await call('GET', '/admin/v1/accounts/scoped', reader)).status).toBe(200);
    expect((await call('GET', '/admin/v1/accounts/scoped/senders', reader)).status).toBe(200);

    const refused = await call('POST', '/admin/v1/accounts/scoped/credit', reader, {
      amount: '100',
    });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toEqual({
      code: 'FORBIDDEN',
      message: 'This admin token lacks the scope credit',
      field: 'scope',
    });
    for (const [method, path, body] of [
      ['POST', '/admin/v1/accounts', { username: 'sneaky', password: 'sneaky-password' }],
      ['GET', '/admin/v1/accounts/scoped/callback-secret', undefined],
      ['POST', '/admin/v1/accounts/scoped/disable', undefined],
      ['GET', '/admin/v1/connectors', undefined],
      ['GET', '/admin/v1/routes', undefined],
      ['GET', '/admin/v1/mo-routes', undefined],
      ['GET', '/admin/v1/audit', undefined],
      ['GET', '/admin/v1/tokens', undefined],
      ['POST', '/admin/v1/tokens', { name: 'wider', scopes: ['accounts:read'] }],
    ] as const)
      expect({ method, path, status: (await call(method, path, reader, body)).status }).toEqual({
        method,
        path,
        status: 403,
      });
    // Nothing changed: the account is as it was, no account or token was made.
    expect((await call('GET', '/admin/v1/accounts/scoped', admin)).body.balance).toBe('1');
    expect((await call('GET', '/admin/v1/accounts/sneaky', admin)).status).toBe(404);

    const denied = (await trail('?actor=reader&result=denied')).data;
    expect(denied.map((e) => e.action)).toEqual(
      expect.arrayContaining([
        'POST /accounts/:username/credit',
        'GET /connectors',
        'POST /tokens',
      ]),
    );
    expect(denied[0]).toMatchObject({ address: '127.0.0.1', status: 403 });
  });

  it('a writer without the credit scope makes accounts with no credit only', async () => {
    const writer = `Bearer ${await token('writer', ['accounts:write', 'accounts:read'])}`;
    const free = await call('POST', '/admin/v1/accounts', writer, {
      username: 'freebie',
      password: 'freebie-password',
      balance: null,
    });
    expect(free.status).toBe(403);
    expect(free.body.detail.message).toContain('credit');
    expect(
      (
        await call('POST', '/admin/v1/accounts', writer, {
          username: 'freebie',
          password: 'freebie-password',
          balance: '1000',
        })
      ).status,
    ).toBe(403);
    const plain = await call('POST', '/admin/v1/accounts', writer, {
      username: 'freebie',
      password: 'freebie-password',
    });
    expect(plain.status).toBe(201);
    expect(plain.body.balance).toBe('0');
    expect((await trail('?actor=writer&action=POST%20/accounts&result=ok')).data).toHaveLength(1);
  });

  it('a token cannot give another token scopes it does not hold itself', async () => {
    const keeper = `Bearer ${await token('keeper', ['tokens'])}`;
    const wider = await call('POST', '/admin/v1/tokens', keeper, {
      name: 'wider',
      scopes: ['tokens', 'credit'],
    });
    expect(wider.status).toBe(403);
    expect(wider.body.detail.message).toContain('credit');
    const same = await call('POST', '/admin/v1/tokens', keeper, {
      name: 'same',
      scopes: ['tokens'],
    });
    expect(same.status).toBe(201);
    expect(same.body.data.created_by).toBe('keeper');
    for (const body of [
      { name: 'ADMIN_TOKEN', scopes: ['tokens'] },
      { name: 'no-scopes', scopes: [] },
      { name: 'bad-scope', scopes: ['everything'] },
      { name: 'bad name!', scopes: ['tokens'] },
    ])
      expect((await call('POST', '/admin/v1/tokens', admin, body)).status).toBe(400);
    expect(
      (await call('POST', '/admin/v1/tokens', admin, { name: 'same', scopes: ['tokens'] })).status,
    ).toBe(409);
  });

  it('a revoked token is refused from the next request on', async () => {
    const raw = await token('short-lived', ['accounts:read']);
    const bearer = `Bearer ${raw}`;
    expect((await call('GET', '/admin/v1/accounts/scoped', bearer)).status).toBe(200);
    expect((await call('DELETE', '/admin/v1/tokens/short-lived', admin)).status).toBe(200);
    expect((await call('GET', '/admin/v1/accounts/scoped', bearer)).status).toBe(401);
    expect((await call('DELETE', '/admin/v1/tokens/short-lived', admin)).status).toBe(404);
    // Its name stays taken, so the trail never names two tokens alike.
    expect(
      (await call('POST', '/admin/v1/tokens', admin, { name: 'short-lived', scopes: ['tokens'] }))
        .status,
    ).toBe(409);
    // A made-up token of the right shape is refused too.
    expect(
      (await call('GET', '/admin/v1/accounts/scoped', `Bearer smsgw_admin_${'A'.repeat(43)}`))
        .status,
    ).toBe(401);
  });
});

describe('accounts are unlimited only when asked', () => {
  it('an account made without a balance has none and cannot send; null asks for unlimited', async () => {
    const made = await call('POST', '/admin/v1/accounts', admin, {
      username: 'nobalance',
      password: 'nobalance-password',
    });
    expect(made.status).toBe(201);
    expect(made.body.balance).toBe('0');
    const sent = await request(gw.base, 'POST', '/secure/send', {
      auth: basic('nobalance', 'nobalance-password'),
      json: { to: '41790000001', content: 'free?' },
    });
    expect(sent.status).toBe(402);

    const unlimited = await call('POST', '/admin/v1/accounts', admin, {
      username: 'unlimited',
      password: 'unlimited-password',
      balance: null,
    });
    expect(unlimited.status).toBe(201);
    expect(unlimited.body.balance).toBe('ND');
  });

  it('the CLI gives no credit without --balance, and unlimited only with --unlimited', async () => {
    const plain = JSON.parse(
      await runSmsgw(gw.base, ['accounts', 'create', 'cli-plain', '--password', 'cli-plain-pw']),
    );
    expect(plain.balance).toBe('0');
    const unlimited = JSON.parse(
      await runSmsgw(gw.base, [
        'accounts',
        'create',
        'cli-unlimited',
        '--password',
        'cli-unlimited-pw',
        '--unlimited',
      ]),
    );
    expect(unlimited.balance).toBe('ND');
    await expect(
      runSmsgw(gw.base, [
        'accounts',
        'create',
        'cli-both',
        '--password',
        'cli-both-password',
        '--unlimited',
        '--balance',
        '5',
      ]),
    ).rejects.toThrow(/--balance or --unlimited/);
  });
});
