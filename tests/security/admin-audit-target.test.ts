/**
 * The audit trail names a request's target as the route it matched, with its parameters decoded,
 * black-box against embedded mode: express matches paths whatever their case and decodes
 * percent-escapes, so every spelling of one request (`/ACCOUNTS/alice`, `/accounts/%61lice`, a
 * trailing slash) is recorded with the same target and found by an operator's search by target.
 */
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { request, type Reply } from '../support/http';

const admin = `Bearer ${ADMIN_TOKEN}`;
let gw: RunningGateway;

const call = (method: string, path: string, auth: string, json?: unknown): Promise<Reply> =>
  request(gw.base, method, path, { auth, ...(json !== undefined && { json }) });

interface Entry {
  action: string;
  target: string;
  status: number;
  result: string;
  summary: { body?: { amount?: string } };
}

async function entries(query: string): Promise<Entry[]> {
  const page = await call('GET', `/admin/v1/audit?limit=500&${query}`, admin);
  expect(page.status).toBe(200);
  return page.body.data;
}

beforeAll(async () => {
  gw = await startEmbedded({});
}, 120_000);
afterAll(async () => {
  await gw?.stop();
});

describe('the audit target is canonical', () => {
  it('every spelling of a credit is found under the same target', async () => {
    for (const username of ['spelled', 'a@spelled'])
      expect(
        (
          await call('POST', '/admin/v1/accounts', admin, {
            username,
            password: 'spelled-password',
          })
        ).status,
      ).toBe(201);
    const spellings = [
      '/admin/v1/accounts/spelled/credit',
      '/admin/v1/ACCOUNTS/spelled/credit',
      '/admin/v1/accounts/%73pelled/credit',
      '/ADMIN/V1/Accounts/%73%70%65lled/CREDIT/',
    ];
    for (const [i, path] of spellings.entries())
      expect((await call('POST', path, admin, { amount: String(i + 1) })).status).toBe(200);
    for (const path of [
      '/admin/v1/accounts/a@spelled/credit',
      '/admin/v1/accounts/a%40spelled/credit',
    ])
      expect((await call('POST', path, admin, { amount: '1' })).status).toBe(200);

    // Refused, failed and malformed requests are recorded after the route has answered: the same.
    const reader = await call('POST', '/admin/v1/tokens', admin, {
      name: 'spelling-reader',
      scopes: ['accounts:read'],
    });
    expect(reader.status).toBe(201);
    expect(
      (
        await call(
          'POST',
          '/admin/v1/ACCOUNTS/%73pelled/credit',
          `Bearer ${reader.body.data.token}`,
          {
            amount: '100',
          },
        )
      ).status,
    ).toBe(403);
    expect(
      (await call('POST', '/admin/v1/Accounts/%73pelled/credit', admin, { amount: 'lots' })).status,
    ).toBe(400);
    expect(
      (await call('POST', '/admin/v1/ACCOUNTS/n%6Fbody-spelled/credit', admin, { amount: '1' }))
        .status,
    ).toBe(404);

    const credits = await entries('target=/accounts/spelled/credit');
    expect(credits.map((e) => [e.target, e.action, e.status, e.result])).toEqual([
      ['/accounts/spelled/credit', 'POST /accounts/:username/credit', 400, 'failed'],
      ['/accounts/spelled/credit', 'POST /accounts/:username/credit', 403, 'denied'],
      ...[4, 3, 2, 1].map(() => [
        '/accounts/spelled/credit',
        'POST /accounts/:username/credit',
        200,
        'ok',
      ]),
    ]);
    expect(credits.slice(2).map((e) => e.summary.body?.amount)).toEqual(['4', '3', '2', '1']);
    expect((await entries('target=/accounts/a@spelled')).map((e) => e.target)).toEqual([
      '/accounts/a@spelled/credit',
      '/accounts/a@spelled/credit',
    ]);
    expect((await entries('target=/accounts/nobody-spelled')).map((e) => e.target)).toEqual([
      '/accounts/nobody-spelled/credit',
    ]);
    // No entry kept a spelling of its own.
    const all = await entries('action=' + encodeURIComponent('POST /accounts/:username/credit'));
    for (const e of all) expect(e.target).toMatch(/^\/accounts\/[a-z@-]+\/credit$/);
  });

  it('the target of other routes is canonical too', async () => {
    for (const name of ['spelled-token-1', 'spelled-token-2'])
      expect(
        (await call('POST', '/admin/v1/tokens', admin, { name, scopes: ['audit:read'] })).status,
      ).toBe(201);
    expect((await call('DELETE', '/admin/v1/TOKENS/%73pelled-token-1', admin)).status).toBe(200);
    expect((await call('DELETE', '/admin/v1/tokens/spelled-token-2/', admin)).status).toBe(200);
    expect((await entries('target=/tokens/spelled-token-')).map((e) => e.target)).toEqual([
      '/tokens/spelled-token-2',
      '/tokens/spelled-token-1',
    ]);
  });
});
