import { createHash } from 'node:crypto';
import { boundedCache } from '@smsgw/kit';

/** What failed logins are counted by: the name tried, and where the attempt came from. */
export type ThrottleScope = 'name' | 'address';

export interface ThrottleKey {
  scope: ThrottleScope;
  id: string;
  /** Failed attempts allowed in one window. */
  limit: number;
}

export type Admission =
  { admitted: true } | { admitted: false; scope: ThrottleScope; retryAfterSeconds: number };

/**
 * Counts login attempts in fixed windows. An attempt is counted before its password is checked
 * (so concurrent guesses cannot all slip under the limit) and forgiven when it succeeds, so only
 * failures remain counted.
 */
export interface LoginThrottle {
  /** Refuses when a key has reached its limit; otherwise counts one attempt against every key. */
  admit(keys: readonly ThrottleKey[]): Promise<Admission>;
  /** Takes back an attempt admit counted (it succeeded, or was never checked). */
  forgive(keys: readonly ThrottleKey[]): Promise<void>;
  close(): Promise<void>;
}

/** A fixed-length key, whatever a client sends as its name. */
export function throttleKeyId(key: ThrottleKey): string {
  return `${key.scope}:${createHash('sha256').update(key.id).digest('base64url')}`;
}

interface Window {
  count: number;
  resetAt: number;
}

/** One process's counters (embedded mode, and a fallback while Redis does not answer). */
export class MemoryLoginThrottle implements LoginThrottle {
  private readonly windows = boundedCache<string, Window>(100_000);

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  private current(id: string): Window | undefined {
    const window = this.windows.get(id);
    return window && window.resetAt > this.now() ? window : undefined;
  }

  admit(keys: readonly ThrottleKey[]): Promise<Admission> {
    for (const key of keys) {
      const window = this.current(throttleKeyId(key));
      if (window && window.count >= key.limit) {
        const retryAfterSeconds = Math.max(1, Math.ceil((window.resetAt - this.now()) / 1000));
        return Promise.resolve({ admitted: false, scope: key.scope, retryAfterSeconds });
      }
    }
    for (const key of keys) {
      const id = throttleKeyId(key);
      const window = this.current(id);
      if (window) window.count++;
      else this.windows.set(id, { count: 1, resetAt: this.now() + this.windowMs });
    }
    return Promise.resolve({ admitted: true });
  }

  forgive(keys: readonly ThrottleKey[]): Promise<void> {
    for (const key of keys) {
      const window = this.current(throttleKeyId(key));
      if (window && window.count > 0) window.count--;
    }
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
