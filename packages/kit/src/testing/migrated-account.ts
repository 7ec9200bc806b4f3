import type { Db } from '../db/db';
import { insertTestAccount } from './embedded-database';
import type { OpenMigratedDatabase } from './migrated-databases';

/** The database and account of the running test; read them inside a test, not when declaring it. */
export interface MigratedAccount {
  readonly db: Db;
  readonly accountId: string;
}

/**
 * Registers, in the calling `describe`, a migrated database of its own with one test account
 * before each test and its drop after. Jest's hooks are touched only when this is called, so the
 * benchmarks, which import this package outside jest, can load it.
 */
export function useMigratedAccount(open: OpenMigratedDatabase): MigratedAccount {
  let opened: { db: Db; drop: () => Promise<void> } | undefined;
  let accountId: string | undefined;
  beforeEach(async () => {
    opened = await open();
    accountId = await insertTestAccount(opened.db);
  });
  afterEach(async () => {
    const closing = opened;
    opened = undefined;
    accountId = undefined;
    await closing?.drop();
  });
  const current = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useMigratedAccount: read inside a test only');
    return value;
  };
  return {
    get db() {
      return current(opened?.db);
    },
    get accountId() {
      return current(accountId);
    },
  };
}
