import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIGRATIONS_DIR, PgliteDb, migrate } from '@smsgw/kit';
import { insertTestAccount, waitFor } from '@smsgw/kit/testing';
import {
  accountCallbackSecrets,
  claimIdempotencyKey,
  deleteExpiredIdempotencyKeys,
  findIdempotencyKey,
  rotateCallbackSecret,
} from '@smsgw/store';

const SECRETS_MIGRATION = '012_callback_secrets.sql';

describe('callback secrets', () => {
  let db: PgliteDb;
  let before: string;
  afterEach(async () => {
    await db?.close();
    if (before) rmSync(before, { recursive: true, force: true });
  });

  it('accounts that existed before the migration each get their own secret', async () => {
    // The migrations up to the one that adds the secrets, then accounts, then the rest.
    before = mkdtempSync(join(tmpdir(), 'smsgw-migrations-'));
    for (const file of readdirSync(MIGRATIONS_DIR).filter((f) => f < SECRETS_MIGRATION))
      copyFileSync(join(MIGRATIONS_DIR, file), join(before, file));
    db = await PgliteDb.open();
    await migrate(db, { dir: before });
    const old = [await insertTestAccount(db), await insertTestAccount(db)];
    expect(await migrate(db)).toContain(SECRETS_MIGRATION);

    const secrets = await Promise.all(old.map((id) => accountCallbackSecrets(db, id)));
    for (const s of secrets)
      expect(s).toEqual({
        secret: expect.stringMatching(/^[0-9a-f]{64}$/),
        previous: null,
        previous_until: null,
      });
    expect(secrets[0]!.secret).not.toBe(secrets[1]!.secret);
    // And an account made after it gets one at creation.
    const fresh = await accountCallbackSecrets(db, await insertTestAccount(db));
    expect(fresh?.secret).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a rotation keeps the previous secret for the grace period only', async () => {
    db = await PgliteDb.open();
    await migrate(db);
    const id = await insertTestAccount(db);
    const first = (await accountCallbackSecrets(db, id))!.secret;
    const rotated = await rotateCallbackSecret(db, id, 'a'.repeat(64), 3600);
    expect(rotated).toMatchObject({ secret: 'a'.repeat(64), previous: first });
    const ended = await rotateCallbackSecret(db, id, 'b'.repeat(64), 0);
    expect(ended).toEqual({ secret: 'b'.repeat(64), previous: null, previous_until: null });
  });
});

describe('idempotency keys', () => {
  let db: PgliteDb;
  afterEach(() => db?.close());

  it('one claim wins; an expired key is claimed again and swept', async () => {
    db = await PgliteDb.open();
    await migrate(db);
    const accountId = await insertTestAccount(db);
    const claim = { accountId, key: 'k1', fingerprint: 'f1', windowSeconds: 3600 };
    const claims = await Promise.all([1, 2, 3].map(() => claimIdempotencyKey(db, claim)));
    expect(claims.filter(Boolean)).toHaveLength(1);

    const short = { accountId, key: 'k2', fingerprint: 'f2', windowSeconds: 0.001 };
    /** Until the database clock is past the key's expiry (what every statement here compares). */
    const expired = () =>
      waitFor(
        async () => {
          const { rows } = await db.query<{ over: boolean }>(
            `SELECT expires_at <= now() AS over FROM idempotency_keys WHERE account_id = $1 AND key = 'k2'`,
            [accountId],
          );
          return rows[0].over;
        },
        5_000,
        'the key expired',
        1,
      );
    expect(await claimIdempotencyKey(db, short)).toBe(true);
    await expired();
    expect(await findIdempotencyKey(db, accountId, 'k2')).toBeUndefined();
    expect(await claimIdempotencyKey(db, { ...short, fingerprint: 'f3' })).toBe(true);
    await expired();
    expect(await deleteExpiredIdempotencyKeys(db, 100)).toBe(1);
    expect(await findIdempotencyKey(db, accountId, 'k1')).toMatchObject({
      fingerprint: 'f1',
      status: null,
    });
  });
});
