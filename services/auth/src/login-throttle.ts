import { createHash } from 'node:crypto';
import { boundedCache } from '@smsgw/kit';

/** What failed logins are counted by: the name tried, and where the attempt came from. */
export type ThrottleScope = 'name' | 'address';

/**
 * Which logins a counter counts: HTTP's (REST, Jasmin, Kannel) or SMPP binds. Each has counters
 * of its own, so a flood of wrong binds does not lock a customer's HTTP logins out, nor the reverse.
 */
export type LoginProtocol = 'http' | 'smpp';

export interface ThrottleKey {
  protocol: LoginProtocol;
  scope: ThrottleScope;
  id: string;
  /** Failed attempts allowed in one window. */
  limit: number;
  /**
   * False when the attempt is exempt from this key's limit (its credential verified recently):
   * it is still counted, so that a failure is, but never refused by it.
   */
  enforced: boolean;
}

export type Admission =
  { admitted: true } | { admitted: false; scope: ThrottleScope; retryAfterSeconds: number };

/**
 * Counts login attempts in fixed windows. An attempt is counted before its password is checked
 * (so concurrent guesses cannot all slip under the limit) and forgiven when it succeeds, so only
 * failures remain counted. A refused attempt stays counted against every key: guesses refused
 * for their address still spend their name's budget, so a refusal cannot be told from a check.
 */
export interface LoginThrottle {
  /**
   * Counts one attempt against every key; refuses when an enforced key had reached its limit.
   * A refused attempt is not to be forgiven.
   */
  admit(keys: readonly ThrottleKey[]): Promise<Admission>;
  /** Takes back an attempt admit counted (it succeeded, or was never checked). */
  forgive(keys: readonly ThrottleKey[]): Promise<void>;
  close(): Promise<void>;
}

/** A fixed-length key, whatever a client sends as its name. */
export function throttleKeyId(key: ThrottleKey): string {
  // HTTP's counters keep the ids they had before binds were counted apart (Redis keeps them).
  const counter = key.protocol === 'http' ? key.scope : `${key.protocol}-${key.scope}`;
  return `${counter}:${createHash('sha256').update(key.id).digest('base64url')}`;
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
    let refusal: Admission = { admitted: true };
    for (const key of keys) {
      const id = throttleKeyId(key);
      let window = this.current(id);
      if (refusal.admitted && key.enforced && window && window.count >= key.limit) {
        const retryAfterSeconds = Math.max(1, Math.ceil((window.resetAt - this.now()) / 1000));
        refusal = { admitted: false, scope: key.scope, retryAfterSeconds };
      }
      if (!window) {
        window = { count: 0, resetAt: this.now() + this.windowMs };
        this.windows.set(id, window);
      }
      window.count++;
    }
    return Promise.resolve(refusal);
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
