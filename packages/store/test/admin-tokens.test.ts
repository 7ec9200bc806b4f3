import type { Db } from '@smsgw/kit';
import { migratedDatabases, waitFor } from '@smsgw/kit/testing';
import {
  insertAdminToken,
  listAdminTokens,
  lockLiveAdminToken,
  revokeAdminTokenAndMade,
} from '@smsgw/store';

/** Resolves when `resolve` is called: one transaction holds its locks until the test lets it go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe.each(migratedDatabases())('admin token revocation on %s', (engine, open) => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeEach(async () => ({ db, drop } = await open()));
  afterEach(() => drop());

  /** As DELETE /admin/v1/tokens/:name revokes: the token locked first, then what it made. */
  const revoke = (name: string, locked?: () => void, proceed?: Promise<void>) =>
    db.transaction(async (tx) => {
      if (!(await lockLiveAdminToken(tx, name, 'update'))) return undefined;
      locked?.();
      await proceed;
      return (await revokeAdminTokenAndMade(tx, name)).map((r) => r.name);
    });

  it('revokes a token and one its descendant at once: both answer, each token revoked once', async () => {
    // a made b; b made c and d.
    for (const [name, by] of [
      ['a', 'ADMIN_TOKEN'],
      ['b', 'a'],
      ['c', 'b'],
      ['d', 'b'],
    ] as const)
      await insertAdminToken(db, {
        name,
        tokenHash: `hash-${name}`,
        scopes: ['tokens'],
        createdBy: by,
      });
    if (engine === 'Postgres')
      // b's row written again (as an update, VACUUM FULL or a restore may place it): a scan of the
      // table now meets c and d before b, the order in which an unordered UPDATE locks them.
      await db.query(`UPDATE admin_tokens SET scopes = scopes WHERE name = 'b'`);

    const bLocked = gate();
    const aWaits = gate();
    const ofB = revoke('b', bLocked.open, aWaits.promise);
    await bLocked.promise;
    const ofA = revoke('a');
    if (engine === 'Postgres')
      // a's revocation is blocked on a row b's holds; only then does b's go on to lock the rest.
      await waitFor(
        async () =>
          (
            await db.query<{ waiting: number }>(
              `SELECT count(*)::int AS waiting FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            )
          ).rows[0].waiting > 0,
        10_000,
        "a's revocation waiting for b's locks",
      );
    aWaits.open();

    const [b, a] = await Promise.allSettled([ofB, ofA]);
    expect(b).toEqual({ status: 'fulfilled', value: ['b', 'c', 'd'] });
    // PGlite runs one transaction at a time: a's comes after b's and finds a alone still live.
    expect(a).toEqual({ status: 'fulfilled', value: ['a'] });
    const tokens = await listAdminTokens(db);
    expect(tokens.map((t) => [t.name, t.revoked_at !== null])).toEqual([
      ['a', true],
      ['b', true],
      ['c', true],
      ['d', true],
    ]);
  });

  it('two revocations of the same token: one revokes it, the other finds no live token', async () => {
    await insertAdminToken(db, { name: 'x', tokenHash: 'hash-x', scopes: [], createdBy: 'y' });
    const results = await Promise.all([revoke('x'), revoke('x')]);
    expect(results.filter((r) => r !== undefined)).toEqual([['x']]);
    expect(results.filter((r) => r === undefined)).toHaveLength(1);
  });
});
