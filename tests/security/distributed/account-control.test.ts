/**
 * An operator's change to an account reaches every process within a second, in distributed mode:
 * two auth replicas and two gateways (each gateway asks its own replica) hold a valid login in
 * their caches; a disable, a new password, a rotated secret or a revoked application made through
 * one replica makes every gateway refuse the old credential, and an enable restores access.
 */
import { waitFor } from '@smsgw/kit/testing';
import type { ServiceProcess } from '@smsgw/kit/testing';
import { E2E_ADMIN_TOKEN, E2E_JWT_SECRET, useDistributedRun } from '../../support/distributed';
import { basic, request } from '../../support/http';

/** How long a change may take to reach every process (the promise is a second). */
const PROPAGATION_MS = 2_000;

describe('account control across replicas', () => {
  const run = useDistributedRun();
  const admin = { auth: `Bearer ${E2E_ADMIN_TOKEN}` };
  let authA: ServiceProcess;
  let authB: ServiceProcess;
  let gateways: ServiceProcess[];

  beforeAll(async () => {
    const authEnv = { ADMIN_TOKEN: E2E_ADMIN_TOKEN, JWT_SECRET: E2E_JWT_SECRET };
    [authA, authB] = await Promise.all([run.start('auth', authEnv), run.start('auth', authEnv)]);
    gateways = await Promise.all([
      run.start('api-gateway', { AUTH_URL: authA.url }),
      run.start('api-gateway', { AUTH_URL: authB.url }),
    ]);
  }, 120_000);

  async function account(username: string, password: string): Promise<void> {
    const created = await request(authA.url, 'POST', '/admin/v1/accounts', {
      ...admin,
      json: { username, password },
    });
    expect(created.status).toBe(201);
  }

  async function application(username: string): Promise<{ id: string; secret: string }> {
    const created = await request(
      authA.url,
      'POST',
      `/admin/v1/accounts/${username}/applications`,
      { ...admin, json: {} },
    );
    expect(created.status).toBe(201);
    return { id: created.body.client_id, secret: created.body.client_secret };
  }

  /** Logs in at replica B, so A never saw the token before the change. */
  const login = (clientId: string, secret: string) =>
    request(authB.url, 'POST', '/auth/v1/login/application', {
      body: new URLSearchParams({ client_id: clientId, client_secret: secret }),
    });

  async function token(clientId: string, secret: string): Promise<string> {
    const reply = await login(clientId, secret);
    expect(reply.status).toBe(200);
    return `Bearer ${reply.body.access_token}`;
  }

  /** Each gateway's answer to the credential: status and error code. */
  const answers = (auth: string) =>
    Promise.all(
      gateways.map(async (gateway) => {
        const reply = await request(gateway.url, 'GET', '/secure/balance', { auth });
        return `${reply.status} ${reply.body?.detail?.code ?? ''}`.trim();
      }),
    );

  /** Puts the credential in every gateway's cache and every replica's (each gateway asks one). */
  async function warm(...credentials: string[]): Promise<void> {
    for (const auth of credentials) expect(await answers(auth)).toEqual(['200', '200']);
  }

  /** Every gateway answers `expected`, within PROPAGATION_MS of the change. */
  async function everyGateway(auth: string, expected: string, what: string): Promise<void> {
    let last: string[] = [];
    await waitFor(
      async () => {
        last = await answers(auth);
        return last.every((answer) => answer === expected);
      },
      PROPAGATION_MS,
      what,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; last answers ${JSON.stringify(last)}`);
    });
  }

  it('disable: every gateway refuses the account within a second; enable restores it', async () => {
    await account('far-disable', 'far-disable-password');
    const password = basic('far-disable', 'far-disable-password');
    const app = await application('far-disable');
    const bearer = await token(app.id, app.secret);
    await warm(password, bearer);

    const disabled = await request(
      authA.url,
      'POST',
      '/admin/v1/accounts/far-disable/disable',
      admin,
    );
    expect(disabled.status).toBe(200);
    await everyGateway(password, '403 ACCOUNT_DISABLED', 'password refused');
    await everyGateway(bearer, '403 ACCOUNT_DISABLED', 'token refused');
    expect((await login(app.id, app.secret)).status).toBe(403);

    const enabled = await request(
      authA.url,
      'POST',
      '/admin/v1/accounts/far-disable/enable',
      admin,
    );
    expect(enabled.status).toBe(200);
    await everyGateway(password, '200', 'password accepted again');
    // A token from before the disable stays retired; a new one works everywhere.
    await everyGateway(bearer, '401 UNAUTHORIZED', 'old token refused');
    await warm(await token(app.id, app.secret));
  });

  it('new password: every gateway refuses the old one and its tokens within a second', async () => {
    await account('far-password', 'far-password-old');
    const old = basic('far-password', 'far-password-old');
    const app = await application('far-password');
    const bearer = await token(app.id, app.secret);
    await warm(old, bearer);

    const changed = await request(authA.url, 'POST', '/admin/v1/accounts/far-password/password', {
      ...admin,
      json: { password: 'far-password-new' },
    });
    expect(changed.status).toBe(200);
    await everyGateway(old, '401 UNAUTHORIZED', 'old password refused');
    await everyGateway(bearer, '401 UNAUTHORIZED', 'token of the old password refused');
    await warm(basic('far-password', 'far-password-new'));
  });

  it('rotated secret: every gateway refuses the tokens of the old secret within a second', async () => {
    await account('far-secret', 'far-secret-password');
    const app = await application('far-secret');
    const bearer = await token(app.id, app.secret);
    await warm(bearer);

    const rotated = await request(
      authA.url,
      'POST',
      `/admin/v1/accounts/far-secret/applications/${app.id}/secret`,
      admin,
    );
    expect(rotated.status).toBe(200);
    await everyGateway(bearer, '401 UNAUTHORIZED', 'token of the old secret refused');
    expect((await login(app.id, app.secret)).status).toBe(401);
    await warm(await token(app.id, rotated.body.client_secret));
  });

  it('revoked application: every gateway refuses its tokens within a second', async () => {
    await account('far-revoke', 'far-revoke-password');
    const app = await application('far-revoke');
    const bearer = await token(app.id, app.secret);
    await warm(bearer);

    const revoked = await request(
      authA.url,
      'DELETE',
      `/admin/v1/accounts/far-revoke/applications/${app.id}`,
      admin,
    );
    expect(revoked.status).toBe(204);
    await everyGateway(bearer, '401 UNAUTHORIZED', 'token of the revoked application refused');
  });
});
