/**
 * Revoking admin tokens, black-box against embedded mode: a token may revoke only tokens whose
 * scopes it holds itself, so `tokens` alone cannot take away a wider token; and revoking a token
 * revokes every token made by it, and by those, so nothing it handed out outlives it.
 */
import { waitFor } from '@smsgw/kit/testing';
import { runSmsgw } from '../support/cli';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { request, type Reply } from '../support/http';

const admin = `Bearer ${ADMIN_TOKEN}`;
let gw: RunningGateway;

const call = (method: string, path: string, auth: string, json?: unknown): Promise<Reply> =>
  request(gw.base, method, path, { auth, ...(json !== undefined && { json }) });

/** A named token made with `by`'s authority; its bearer header. */
async function token(name: string, scopes: string[], by = admin): Promise<string> {
  const made = await call('POST', '/admin/v1/tokens', by, { name, scopes });
  expect(made.status).toBe(201);
  return `Bearer ${made.body.data.token as string}`;
}

/** The status a token's own request gets: every token here may read the audit trail or tokens. */
async function works(bearer: string): Promise<number> {
  return (await call('GET', '/admin/v1/tokens', bearer)).status;
}

async function revokedAt(name: string): Promise<string | null> {
  const listed = await call('GET', '/admin/v1/tokens', admin);
  return (listed.body.data as Array<{ name: string; revoked_at: string | null }>).find(
    (t) => t.name === name,
  )!.revoked_at;
}

beforeAll(async () => {
  gw = await startEmbedded({});
}, 120_000);
afterAll(async () => {
  await gw?.stop();
});

describe('a token revokes only tokens within its scopes', () => {
  it('refuses a tokens-only token the revocation of a wider one, and changes nothing', async () => {
    const keeper = await token('rv-keeper', ['tokens']);
    const wide = await token('rv-wide', ['tokens', 'credit', 'accounts:write']);
    const refused = await call('DELETE', '/admin/v1/tokens/rv-wide', keeper);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toEqual({
      code: 'FORBIDDEN',
      message: 'This admin token lacks the scope credit',
      field: 'scope',
    });
    expect(await revokedAt('rv-wide')).toBeNull();
    expect(await works(wide)).toBe(200);
    const denied = await call('GET', '/admin/v1/audit?actor=rv-keeper&result=denied', admin);
    expect(denied.body.data).toEqual([
      expect.objectContaining({ action: 'DELETE /tokens/:name', target: '/tokens/rv-wide' }),
    ]);

    // The CLI is refused the same.
    await expect(
      runSmsgw(gw.base, ['admin-tokens', 'revoke', 'rv-wide'], {
        SMSGW_ADMIN_TOKEN: keeper.slice('Bearer '.length),
      }),
    ).rejects.toThrow(/lacks the scope credit/);
    expect(await revokedAt('rv-wide')).toBeNull();

    // A token within its scopes it may revoke, and an unknown name is a 404 as before.
    await token('rv-narrow', ['tokens']);
    expect((await call('DELETE', '/admin/v1/tokens/rv-narrow', keeper)).status).toBe(200);
    expect((await call('DELETE', '/admin/v1/tokens/rv-nobody', keeper)).status).toBe(404);
    // The wider token may revoke the narrower one.
    expect((await call('DELETE', '/admin/v1/tokens/rv-keeper', wide)).status).toBe(200);
    expect(await works(keeper)).toBe(401);
  });
});

describe('revoking a token revokes the tokens it made', () => {
  it('children and grandchildren stop working, others keep working', async () => {
    const parent = await token('rv-parent', ['tokens', 'audit:read']);
    const child = await token('rv-child', ['tokens', 'audit:read'], parent);
    const grandchild = await token('rv-grandchild', ['tokens'], child);
    const other = await token('rv-other', ['tokens']);
    for (const bearer of [parent, child, grandchild, other]) expect(await works(bearer)).toBe(200);

    const revoked = await call('DELETE', '/admin/v1/tokens/rv-parent', admin);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({
      name: 'rv-parent',
      revoked_at: expect.any(String),
      revoked_with: ['rv-child', 'rv-grandchild'],
    });
    await waitFor(
      async () => {
        const statuses = await Promise.all([parent, child, grandchild].map(works));
        return statuses.every((s) => s === 401) || undefined;
      },
      5_000,
      'the revoked token and every token it made refused',
      100,
    );
    for (const name of ['rv-child', 'rv-grandchild'])
      expect(await revokedAt(name)).toEqual(expect.any(String));
    expect(await works(other)).toBe(200);
  });

  it('a revocation takes the tokens below the revoked one, not the one above it', async () => {
    const elder = await token('rv-elder', ['tokens']);
    const middle = await token('rv-middle', ['tokens'], elder);
    const young = await token('rv-young', ['tokens'], middle);
    // Revoking the middle one takes the young one with it; then the elder takes nothing more.
    const middleGone = await call('DELETE', '/admin/v1/tokens/rv-middle', admin);
    expect(middleGone.body.data.revoked_with).toEqual(['rv-young']);
    await waitFor(
      async () => (await works(young)) === 401 || undefined,
      5_000,
      'the token made by the revoked one refused',
      100,
    );
    expect(await works(middle)).toBe(401);
    expect(await works(elder)).toBe(200);
    const elderGone = await call('DELETE', '/admin/v1/tokens/rv-elder', admin);
    expect(elderGone.status).toBe(200);
    expect(elderGone.body.data.revoked_with).toEqual([]);
    expect(await works(elder)).toBe(401);
  });
});
