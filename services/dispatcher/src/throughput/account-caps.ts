import { boundedCache, type Db } from '@smsgw/kit';
import { accountThroughput } from '@smsgw/store';
import type { RateCap } from './rate-limiter';

/** Accounts' own caps (accounts.throughput), read from Postgres and kept for a short while. */
export class AccountCaps {
  private readonly cache = boundedCache<string, { perSecond: number }>(100_000, 30_000);

  constructor(private readonly db: Db) {}

  async of(accountId: string | undefined): Promise<RateCap | undefined> {
    if (!accountId) return undefined;
    let entry = this.cache.get(accountId);
    if (!entry) {
      entry = { perSecond: (await accountThroughput(this.db, accountId)) ?? 0 };
      this.cache.set(accountId, entry);
    }
    return entry.perSecond > 0
      ? { key: `account:${accountId}`, perSecond: entry.perSecond }
      : undefined;
  }
}
