import { createHash } from 'node:crypto';
import type { LRUCache } from 'lru-cache';
import { boundedCache, HttpError } from '@smsgw/kit';
import { KdfBusyError, type KdfGate } from './kdf-gate';
import type { LoginThrottle, ThrottleKey } from './login-throttle';
import type { AuthMetrics, ThrottleReason } from './metrics';

export interface LoginLimits {
  failuresPerName: number;
  failuresPerAddress: number;
  windowSeconds: number;
}

export interface LoginAttempt {
  /** The username, or an application's client_id. */
  name: string;
  secret: string;
  /** The client's address, when known. */
  address?: string | undefined;
}

/** A digest of name and secret: what is remembered of a credential, never the secret itself. */
export function credentialDigest(name: string, secret: string): string {
  return createHash('sha256').update(name).update('\0').update(secret).digest('base64');
}

/**
 * Every password check of a login goes through here: failures are limited per name and per
 * address, and the key derivation runs behind the KDF gate, where names that failed lately wait
 * behind the others. A credential that verified recently is not held back by its name's limit,
 * so guessing a customer's password does not lock the customer out.
 */
export class LoginGuard {
  private readonly recentlyVerified = boundedCache<string, true>(100_000, 24 * 3600_000);
  private readonly recentlyFailed: LRUCache<string, true>;
  /** Checks in progress, by credential: the same credential arriving again waits for that one. */
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly throttle: LoginThrottle,
    private readonly gate: KdfGate,
    private readonly limits: LoginLimits,
    private readonly metrics: AuthMetrics,
  ) {
    this.recentlyFailed = boundedCache(100_000, limits.windowSeconds * 1000);
  }

  private refuse(reason: ThrottleReason, error: HttpError): never {
    this.metrics.loginThrottled.labels(reason).inc();
    throw error;
  }

  /**
   * Runs `check` (the KDF) unless the attempt is over a limit. `check` returns what the right
   * secret unlocks, or undefined for a wrong one, which stays counted as a failure.
   */
  verify<T>(attempt: LoginAttempt, check: () => Promise<T | undefined>): Promise<T | undefined> {
    // Many connections of one client whose cached login expired at once would each run the KDF
    // and count as attempts: one check answers them all (they ask the same question).
    const digest = credentialDigest(attempt.name, attempt.secret);
    const running = this.inFlight.get(digest) as Promise<T | undefined> | undefined;
    if (running) return running;
    const verified = this.verifyOnce(attempt, check, digest).finally(() =>
      this.inFlight.delete(digest),
    );
    this.inFlight.set(digest, verified);
    return verified;
  }

  private async verifyOnce<T>(
    attempt: LoginAttempt,
    check: () => Promise<T | undefined>,
    digest: string,
  ): Promise<T | undefined> {
    const keys: ThrottleKey[] = [];
    if (!this.recentlyVerified.has(digest))
      keys.push({ scope: 'name', id: attempt.name, limit: this.limits.failuresPerName });
    if (attempt.address !== undefined)
      keys.push({ scope: 'address', id: attempt.address, limit: this.limits.failuresPerAddress });

    const admission = await this.throttle.admit(keys);
    if (!admission.admitted)
      this.refuse(
        admission.scope,
        new HttpError('RATE_LIMITED', 'Too many failed logins; try again later', {
          headers: { 'Retry-After': String(admission.retryAfterSeconds) },
        }),
      );

    let result: T | undefined;
    try {
      result = await this.gate.run(check, () => this.recentlyFailed.has(attempt.name));
    } catch (err) {
      await this.throttle.forgive(keys);
      if (err instanceof KdfBusyError)
        this.refuse(
          'kdf_busy',
          new HttpError('SERVICE_UNAVAILABLE', 'Too many logins at once; try again shortly', {
            headers: { 'Retry-After': '1' },
          }),
        );
      throw err;
    }
    if (result !== undefined) {
      await this.throttle.forgive(keys);
      this.recentlyVerified.set(digest, true);
    } else this.recentlyFailed.set(attempt.name, true);
    return result;
  }
}
