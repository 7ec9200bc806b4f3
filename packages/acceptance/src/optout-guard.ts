import type { LRUCache } from 'lru-cache';
import { boundedCache, HttpError, type Db } from '@smsgw/kit';
import { optedOutAmong, sendsHeldToOptOuts } from '@smsgw/store';

/**
 * Refuses sends to numbers on the account's opt-out list. Whether an account's sends are held to a
 * list at all (it has one and is not transactional) is kept for `cacheMs` (an account without
 * one, most of them, costs no lookup per send); an account with one is looked up per request, so
 * a STOP takes effect on every gateway within `cacheMs`.
 */
export class OptOutGuard {
  private readonly any: LRUCache<string, Promise<boolean>>;

  constructor(
    private readonly db: Db,
    cacheMs = 2_000,
  ) {
    this.any = boundedCache(50_000, cacheMs);
  }

  private hasList(accountId: string): Promise<boolean> {
    let pending = this.any.get(accountId);
    if (!pending) {
      pending = sendsHeldToOptOuts(this.db, accountId);
      this.any.set(accountId, pending);
      pending.catch(() => this.any.delete(accountId));
    }
    return pending;
  }

  /** The numbers among `numbers` the account may not send to (one statement for a batch). */
  async optedOut(accountId: string, numbers: readonly string[]): Promise<Set<string>> {
    if (!(await this.hasList(accountId))) return new Set();
    return optedOutAmong(this.db, accountId, numbers);
  }

  /** Throws RECIPIENT_OPTED_OUT when a single message's recipient opted out. */
  async check(accountId: string, to: string): Promise<void> {
    if ((await this.optedOut(accountId, [to])).size > 0)
      throw new HttpError(
        'RECIPIENT_OPTED_OUT',
        `${to} opted out of this account's messages (it is on the opt-out list); nothing was charged`,
        { field: 'to' },
      );
  }
}
