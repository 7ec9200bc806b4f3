import type { LRUCache } from 'lru-cache';
import {
  sameSender,
  senderMatches,
  type ErrorItem,
  type UnlistedSenderMode,
} from '@smsgw/contracts';
import { boundedCache, HttpError, type Db } from '@smsgw/kit';
import { findSenderRules, type SenderRulesRow } from '@smsgw/store';

/** What to do with one requested sender: keep it, or send from the account's default instead. */
export type SenderDecision = { ok: true; from: string | undefined } | { ok: false };

/**
 * Applies an account's sender rules: a sender on its list (or its default sender, or none, which
 * means the default) is kept; another is refused or, under the `replace` policy, swapped for the
 * default sender. An account without a list is governed by UNLISTED_SENDERS. The rules are read
 * from Postgres and kept for `cacheMs`, so an admin's change reaches every gateway within that.
 */
export class SenderGuard {
  private readonly cache: LRUCache<string, Promise<SenderRulesRow | undefined>>;

  constructor(
    private readonly db: Db,
    private readonly unlisted: UnlistedSenderMode,
    cacheMs = 2_000,
  ) {
    this.cache = boundedCache(50_000, cacheMs);
  }

  private rules(accountId: string): Promise<SenderRulesRow | undefined> {
    let pending = this.cache.get(accountId);
    if (!pending) {
      pending = findSenderRules(this.db, accountId);
      this.cache.set(accountId, pending);
      pending.catch(() => this.cache.delete(accountId));
    }
    return pending;
  }

  /** A decider for one request: one read of the rules, then a decision per sender. */
  async decider(accountId: string): Promise<(from: string | undefined) => SenderDecision> {
    const rules = await this.rules(accountId);
    if (!rules) throw HttpError.unauthorized('Account no longer exists');
    if (rules.policy === null && this.unlisted === 'any') return (from) => ({ ok: true, from });
    const defaultFrom = rules.default_from;
    return (from) => {
      if (from === undefined) return { ok: true, from };
      if (defaultFrom !== null && sameSender(defaultFrom, from)) return { ok: true, from };
      if (rules.patterns.some((pattern) => senderMatches(pattern, from))) return { ok: true, from };
      // Replacing needs a default sender to replace with; without one the sender is refused.
      if (rules.policy === 'replace' && defaultFrom !== null) return { ok: true, from: undefined };
      return { ok: false };
    };
  }

  /** The sender a single message goes out from (undefined: the default); throws SENDER_NOT_ALLOWED. */
  async senderFor(accountId: string, from: string | undefined): Promise<string | undefined> {
    const decision = (await this.decider(accountId))(from);
    if (!decision.ok) throw notAllowed(from ?? '', undefined);
    return decision.from;
  }
}

export function notAllowed(from: string, errors: ErrorItem[] | undefined): HttpError {
  return new HttpError(
    'SENDER_NOT_ALLOWED',
    errors
      ? `${errors.length} message${errors.length === 1 ? '' : 's'} of the batch use a sender this account may not use; nothing was sent`
      : `This account may not send from ${from}`,
    { field: 'from', ...(errors && { errors: errors.slice(0, 100) }) },
  );
}
