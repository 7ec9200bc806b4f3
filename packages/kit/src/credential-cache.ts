import type { LRUCache } from 'lru-cache';
import { boundedCache } from './bounded-cache';

export interface CredentialCacheOptions {
  max: number;
  ttlMs: number;
  /**
   * After an account changes, answers about it are not cached for this long: a process told of
   * the change may ask another one that has not heard of it yet, and must not keep its old answer.
   */
  settleMs?: number;
}

/**
 * Verified credentials, each remembered under the account it belongs to, so that a change of the
 * account (disabled, new password, rotated secret) drops all of them at once.
 *
 * A lookup takes a ticket before it reads, and stores its answer with it: an answer read before a
 * change that lands after the change was announced is not stored.
 */
export class CredentialCache<V> {
  private readonly entries: LRUCache<string, { accountId: string; value: V }>;
  private readonly settling: LRUCache<string, true>;
  private generation = 0;

  constructor(options: CredentialCacheOptions) {
    this.entries = boundedCache(options.max, options.ttlMs);
    this.settling = boundedCache(10_000, Math.max(1, options.settleMs ?? 1_000));
  }

  get(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Taken before a lookup starts; see set. */
  ticket(): number {
    return this.generation;
  }

  /** Stores the answer unless an account changed since the ticket, or this one changed just now. */
  set(key: string, accountId: string, value: V, ticket: number): void {
    if (ticket !== this.generation || this.settling.has(accountId)) return;
    this.entries.set(key, { accountId, value });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Drops every answer about the account. */
  forgetAccount(accountId: string): void {
    this.generation++;
    this.settling.set(accountId, true);
    for (const [key, entry] of this.entries.entries())
      if (entry.accountId === accountId) this.entries.delete(key);
  }

  /** Drops everything (changes may have been missed). */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
