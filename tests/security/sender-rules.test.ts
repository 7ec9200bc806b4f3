/**
 * Sender rules: an account sends only from the senders an operator gave it (exact values and
 * globs), others are refused with SENDER_NOT_ALLOWED or replaced by the default sender, and an
 * account without a list may use only its default sender unless UNLISTED_SENDERS=any. Checked on
 * single sends and on every message of a batch (globals and per-message `from`), and the SMSC sees
 * the type of number and numbering plan that fit each sender's form.
 */
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';

const admin = { auth: `Bearer ${ADMIN_TOKEN}` };
let sim: SmppSimulator;
let gw: RunningGateway;
let accounts = 0;

const call = (method: string, path: string, options: Parameters<typeof request>[3] = {}) =>
  request(gw.base, method, path, options);

async function account(defaultFrom?: string): Promise<{ username: string; auth: string }> {
  const username = `senders${++accounts}`;
  const created = await call('POST', '/admin/v1/accounts', {
    ...admin,
    json: {
      username,
      password: 'senders-password',
      balance: '100',
      rate: '1',
      ...(defaultFrom !== undefined && { default_from: defaultFrom }),
    },
  });
  expect(created.status).toBe(201);
  return { username, auth: basic(username, 'senders-password') };
}

const setRules = (username: string, senders: string[], policy: 'refuse' | 'replace') =>
  call('PUT', `/admin/v1/accounts/${username}/senders`, { ...admin, json: { senders, policy } });
const send = (auth: string, from: string | undefined, to = '41790000001') =>
  call('POST', '/secure/send', {
    auth,
    json: { to, content: 'code 123456', ...(from !== undefined && { from }) },
  });
const balanceOf = async (auth: string) =>
  (await call('GET', '/secure/balance', { auth })).body.data.balance as string;

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0, latencyMs: [1, 2] });
  const { port } = await sim.start();
  // The default a bank gets: accounts without a list are held to their default sender.
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}?window=20`,
    UNLISTED_SENDERS: 'refuse',
  });
}, 120_000);

afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
});

describe('sender rules', () => {
  it('refuses a sender that is not on the list, and sends from one that is (exact and glob)', async () => {
    const { username, auth } = await account();
    const set = await setRules(username, ['MyBrand', '4179*'], 'refuse');
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ configured: true, policy: 'refuse' });
    expect([...set.body.senders].sort()).toEqual(['4179*', 'MyBrand']);

    const refused = await send(auth, 'YourBank');
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatchObject({ code: 'SENDER_NOT_ALLOWED', field: 'from' });
    expect((await send(auth, 'mybrand')).status).toBe(403);
    expect((await send(auth, '41800000000')).status).toBe(403);
    expect(await balanceOf(auth)).toBe('100');

    expect((await send(auth, 'MyBrand')).status).toBe(200);
    expect((await send(auth, '+41791234567')).status).toBe(200);
    expect((await send(auth, '41791234567')).status).toBe(200);
  });

  it('replaces a sender not on the list by the default sender under the replace policy', async () => {
    const { username, auth } = await account('Bank');
    expect((await setRules(username, ['Alerts'], 'replace')).status).toBe(200);
    const sent = await send(auth, 'Phisher', '41790000777');
    expect(sent.status).toBe(200);
    await waitFor(() => sim.received.some((r) => r.to === '41790000777'), 15_000);
    expect(sim.received.find((r) => r.to === '41790000777')?.from).toBe('Bank');
  });

  it('holds an account without a list to its default sender (UNLISTED_SENDERS=refuse)', async () => {
    const { auth } = await account('Bank');
    expect((await send(auth, 'Anything')).status).toBe(403);
    expect((await send(auth, 'Bank')).status).toBe(200);
    expect((await send(auth, undefined)).status).toBe(200);
  });

  it('checks every message of a batch, with globals and per-message from, and sends nothing when one is refused', async () => {
    const { username, auth } = await account();
    expect((await setRules(username, ['MyBrand'], 'refuse')).status).toBe(200);
    const viaGlobals = await call('POST', '/secure/sendbatch', {
      auth,
      json: {
        globals: { from: 'Phisher' },
        messages: [
          { to: '41790001001', content: 'a' },
          { to: '41790001002', content: 'b' },
        ],
      },
    });
    expect(viaGlobals.status).toBe(403);
    expect(viaGlobals.body.detail.code).toBe('SENDER_NOT_ALLOWED');
    expect(viaGlobals.body.detail.errors.map((e: { index: number }) => e.index)).toEqual([0, 1]);

    const perMessage = await call('POST', '/secure/sendbatch', {
      auth,
      json: {
        globals: { from: 'MyBrand' },
        messages: [
          { to: '41790001003', content: 'a' },
          { to: '41790001004', content: 'b', from: 'Phisher' },
        ],
      },
    });
    expect(perMessage.status).toBe(403);
    expect(perMessage.body.detail.errors).toEqual([
      { index: 1, field: 'from', message: expect.stringContaining('Phisher') },
    ]);
    expect(await balanceOf(auth)).toBe('100');

    const allowed = await call('POST', '/secure/sendbatch', {
      auth,
      json: { globals: { from: 'MyBrand' }, messages: [{ to: '41790001005', content: 'a' }] },
    });
    expect(allowed.status).toBe(200);
  });

  it('is managed through the admin API: read, replace, remove; bad patterns are a 400', async () => {
    const { username } = await account('Bank');
    const before = await call('GET', `/admin/v1/accounts/${username}/senders`, admin);
    expect(before.body).toEqual({
      username,
      configured: false,
      senders: [],
      policy: null,
      default_from: 'Bank',
      from_group: null,
    });
    const bad = await setRules(username, ['(a|b)+$'], 'refuse');
    expect(bad.status).toBe(400);
    expect((await setRules(username, ['Bank*'], 'replace')).status).toBe(200);
    const removed = await call('DELETE', `/admin/v1/accounts/${username}/senders`, admin);
    expect(removed.body).toMatchObject({ configured: false, senders: [] });
    expect((await call('GET', '/admin/v1/accounts/nobody/senders', admin)).status).toBe(404);
    expect(
      (await call('PUT', `/admin/v1/accounts/${username}/senders`, { json: { senders: [] } }))
        .status,
    ).toBe(401);
  });

  it('gives the SMSC the type of number and numbering plan of each sender form', async () => {
    const { username, auth } = await account();
    expect((await setRules(username, ['*'], 'refuse')).status).toBe(200);
    const cases: [string, string, string, number, number][] = [
      ['MyBrand', '41790002001', 'MyBrand', 5, 0],
      ['+41791234567', '41790002002', '41791234567', 1, 1],
      ['41791234567', '41790002003', '41791234567', 1, 1],
      ['72345', '41790002004', '72345', 3, 0],
    ];
    for (const [from, to] of cases) expect((await send(auth, from, to)).status).toBe(200);
    await waitFor(() => cases.every(([, to]) => sim.received.some((r) => r.to === to)), 15_000);
    const seen = cases.map(([, to]) => {
      const r = sim.received.find((x) => x.to === to)!;
      return [r.from, r.sourceTon, r.sourceNpi];
    });
    expect(seen).toEqual(cases.map(([, , addr, ton, npi]) => [addr, ton, npi]));
  });
});
