/**
 * Accounts under an operator's control, in embedded mode: disable and enable an account, set its
 * password, rotate an application's secret, through the admin API and the CLI. A disabled account
 * is refused at once on /secure/* and at login, and its scheduled batches are held until it is
 * enabled again; a new password or secret retires the old one and the access tokens issued under it.
 */
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { runSmsgw } from '../support/cli';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request, type Reply } from '../support/http';

const admin = { auth: `Bearer ${ADMIN_TOKEN}` };
let sim: SmppSimulator;
let gw: RunningGateway;
let accounts = 0;

const call = (method: string, path: string, options: Parameters<typeof request>[3] = {}) =>
  request(gw.base, method, path, options);

/** A fresh account per test; its username. */
async function account(password = 'control-password'): Promise<string> {
  const username = `control${++accounts}`;
  const created = await call('POST', '/admin/v1/accounts', {
    ...admin,
    json: { username, password, balance: null },
  });
  expect(created.status).toBe(201);
  expect(created.body.disabled_at).toBeNull();
  return username;
}

async function application(username: string): Promise<{ id: string; secret: string }> {
  const created = await call('POST', `/admin/v1/accounts/${username}/applications`, {
    ...admin,
    json: {},
  });
  expect(created.status).toBe(201);
  return { id: created.body.client_id, secret: created.body.client_secret };
}

const login = (clientId: string, secret: string) =>
  call('POST', '/auth/v1/login/application', {
    body: new URLSearchParams({ client_id: clientId, client_secret: secret }),
  });

async function token(clientId: string, secret: string): Promise<string> {
  const reply = await login(clientId, secret);
  expect(reply.status).toBe(200);
  return `Bearer ${reply.body.access_token}`;
}

const balance = (auth: string) => call('GET', '/secure/balance', { auth });
const code = (reply: Reply) => ({ status: reply.status, code: reply.body?.detail?.code });

const smsgw = (args: string[]) => runSmsgw(gw.base, args);

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: false });
  const { port } = await sim.start();
  gw = await startEmbedded({ SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}` });
});
afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
});

describe('disable and enable', () => {
  it('refuses a disabled account at once with 403 ACCOUNT_DISABLED, and serves it again once enabled', async () => {
    const username = await account();
    const auth = basic(username, 'control-password');
    const app = await application(username);
    const bearer = await token(app.id, app.secret);
    // Warm every cache: the refusal must not wait for one to expire.
    expect((await balance(auth)).status).toBe(200);
    expect((await balance(bearer)).status).toBe(200);

    const disabled = await call('POST', `/admin/v1/accounts/${username}/disable`, admin);
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ username, disabled_at: expect.any(String) });

    expect(code(await balance(auth))).toEqual({ status: 403, code: 'ACCOUNT_DISABLED' });
    expect(code(await balance(bearer))).toEqual({ status: 403, code: 'ACCOUNT_DISABLED' });
    const send = await call('POST', '/secure/send', {
      auth,
      json: { to: '41790009001', content: 'refused' },
    });
    expect(code(send)).toEqual({ status: 403, code: 'ACCOUNT_DISABLED' });
    expect(code(await login(app.id, app.secret))).toEqual({
      status: 403,
      code: 'ACCOUNT_DISABLED',
    });
    // Only whoever knows the password learns that the account is disabled.
    expect(code(await balance(basic(username, 'not-the-password')))).toEqual({
      status: 401,
      code: 'UNAUTHORIZED',
    });
    expect(
      (await call('GET', `/admin/v1/accounts/${username}`, admin)).body.disabled_at,
    ).not.toBeNull();

    const enabled = await call('POST', `/admin/v1/accounts/${username}/enable`, admin);
    expect(enabled.status).toBe(200);
    expect(enabled.body.disabled_at).toBeNull();
    expect((await balance(auth)).status).toBe(200);
    // A token issued before the disable stays retired; a new login works.
    expect(code(await balance(bearer))).toEqual({ status: 401, code: 'UNAUTHORIZED' });
    expect((await balance(await token(app.id, app.secret))).status).toBe(200);
  });

  it('holds a disabled account’s scheduled batch and starts it once enabled', async () => {
    const held = basic(await account(), 'control-password');
    const other = basic(await account(), 'control-password');
    const batch = (auth: string, to: string[]) =>
      call('POST', '/secure/sendbatch', {
        auth,
        json: { messages: [{ to, content: 'scheduled' }], batch_config: { schedule_at: '2s' } },
      });
    const heldBatch = await batch(held, ['41791110001', '41791110002']);
    expect(heldBatch.status).toBe(200);
    const heldUser = Buffer.from(held.slice(6), 'base64').toString().split(':')[0];
    expect((await call('POST', `/admin/v1/accounts/${heldUser}/disable`, admin)).status).toBe(200);
    // A batch of another account, due a moment later: once it has gone out, the scheduler has
    // passed the held batch's time.
    const otherBatch = await batch(other, ['41792220001']);
    expect(otherBatch.status).toBe(200);
    await waitFor(
      async () =>
        (await call('GET', `/secure/batches/${otherBatch.body.data.batchId}`, { auth: other })).body
          .data.state === 'completed',
      20_000,
      'the other account’s scheduled batch completes',
    );
    expect(sim.received.filter((r) => r.to.startsWith('41791110'))).toHaveLength(0);

    expect((await call('POST', `/admin/v1/accounts/${heldUser}/enable`, admin)).status).toBe(200);
    await waitFor(
      async () =>
        (await call('GET', `/secure/batches/${heldBatch.body.data.batchId}`, { auth: held })).body
          .data.state === 'completed',
      20_000,
      'the held batch completes once its account is enabled',
    );
    expect(sim.received.filter((r) => r.to.startsWith('41791110'))).toHaveLength(2);
  });
});

describe('new password', () => {
  it('retires the old password and the account’s access tokens at once', async () => {
    const username = await account('first-password');
    const old = basic(username, 'first-password');
    const app = await application(username);
    const bearer = await token(app.id, app.secret);
    expect((await balance(old)).status).toBe(200);
    expect((await balance(bearer)).status).toBe(200);

    const changed = await call('POST', `/admin/v1/accounts/${username}/password`, {
      ...admin,
      json: { password: 'second-password' },
    });
    expect(changed.status).toBe(200);

    expect(code(await balance(old))).toEqual({ status: 401, code: 'UNAUTHORIZED' });
    expect((await balance(basic(username, 'second-password'))).status).toBe(200);
    expect(code(await balance(bearer))).toEqual({ status: 401, code: 'UNAUTHORIZED' });
    // The application's secret is not the password: it still logs in.
    expect((await balance(await token(app.id, app.secret))).status).toBe(200);
  });

  it('refuses bad input with a 4xx and changes nothing', async () => {
    const username = await account('kept-password');
    for (const json of [
      {},
      { password: 'short' },
      { password: 'x'.repeat(257) },
      { password: 'long-enough', extra: 1 },
      { password: 12345678 },
    ]) {
      const reply = await call('POST', `/admin/v1/accounts/${username}/password`, {
        ...admin,
        json,
      });
      expect({ json, status: reply.status }).toEqual({ json, status: 400 });
    }
    const unknown = await call('POST', '/admin/v1/accounts/nobody-here/password', {
      ...admin,
      json: { password: 'long-enough' },
    });
    expect(unknown.status).toBe(404);
    const noToken = await call('POST', `/admin/v1/accounts/${username}/password`, {
      json: { password: 'long-enough' },
    });
    expect(noToken.status).toBe(401);
    for (const verb of ['disable', 'enable']) {
      expect((await call('POST', `/admin/v1/accounts/${username}/${verb}`)).status).toBe(401);
      expect((await call('POST', `/admin/v1/accounts/nobody-here/${verb}`, admin)).status).toBe(
        404,
      );
    }
    expect((await balance(basic(username, 'kept-password'))).status).toBe(200);
  });
});

describe('secret rotation', () => {
  it('answers the new secret once and retires the old secret and its tokens', async () => {
    const username = await account();
    const app = await application(username);
    const other = await application(username);
    const bearer = await token(app.id, app.secret);
    const otherBearer = await token(other.id, other.secret);
    expect((await balance(bearer)).status).toBe(200);

    const rotated = await call(
      'POST',
      `/admin/v1/accounts/${username}/applications/${app.id}/secret`,
      admin,
    );
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(rotated.body).toEqual({
      client_id: app.id,
      client_secret: expect.any(String),
      name: null,
    });
    expect(rotated.body.client_secret).not.toBe(app.secret);

    expect(code(await balance(bearer))).toEqual({ status: 401, code: 'UNAUTHORIZED' });
    expect((await login(app.id, app.secret)).status).toBe(401);
    expect((await balance(await token(app.id, rotated.body.client_secret))).status).toBe(200);
    // The account's other application is not touched.
    expect((await balance(otherBearer)).status).toBe(200);

    const unknown = await call(
      'POST',
      `/admin/v1/accounts/${username}/applications/0123456789abcdef/secret`,
      admin,
    );
    expect(unknown.status).toBe(404);
    const noToken = await call(
      'POST',
      `/admin/v1/accounts/${username}/applications/${app.id}/secret`,
    );
    expect(noToken.status).toBe(401);
    expect(
      (await call('DELETE', `/admin/v1/accounts/${username}/applications/${app.id}`, admin)).status,
    ).toBe(204);
    const revoked = await call(
      'POST',
      `/admin/v1/accounts/${username}/applications/${app.id}/secret`,
      admin,
    );
    expect(revoked.status).toBe(404);
  });
});

describe('smsgw accounts and apps', () => {
  it('disables, enables, sets a password and rotates a secret', async () => {
    const username = await account('cli-password-1');
    expect(JSON.parse(await smsgw(['accounts', 'disable', username]))).toMatchObject({
      username,
      disabled_at: expect.any(String),
    });
    expect(code(await balance(basic(username, 'cli-password-1')))).toEqual({
      status: 403,
      code: 'ACCOUNT_DISABLED',
    });
    expect(JSON.parse(await smsgw(['accounts', 'enable', username]))).toMatchObject({
      username,
      disabled_at: null,
    });
    await smsgw(['accounts', 'password', username, '--password', 'cli-password-2']);
    expect((await balance(basic(username, 'cli-password-1'))).status).toBe(401);
    expect((await balance(basic(username, 'cli-password-2'))).status).toBe(200);

    const app = JSON.parse(await smsgw(['apps', 'create', username]));
    const rotated = JSON.parse(await smsgw(['apps', 'rotate-secret', username, app.client_id]));
    expect(rotated).toMatchObject({ client_id: app.client_id, client_secret: expect.any(String) });
    expect((await login(app.client_id, app.client_secret)).status).toBe(401);
    expect((await login(app.client_id, rotated.client_secret)).status).toBe(200);
  });
});
