import { createHash } from 'node:crypto';
import type { LRUCache } from 'lru-cache';
import { addressKey, boundedCache, HttpError } from '@smsgw/kit';
import { KdfBusyError, type KdfGate } from './kdf-gate';
import type { LoginProtocol, LoginThrottle, ThrottleKey } from './login-throttle';
import type { AuthMetrics, ThrottleReason } from './metrics';
import type { VerifiedCredentials } from './verified-credentials';

export interface LoginLimits {
  failuresPerName: number;
  failuresPerAddress: number;
  windowSeconds: number;
}

export interface LoginAttempt {
  /** An HTTP login or an SMPP bind: each is limited on its own. */
  protocol: LoginProtocol;
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
 * address, apart for HTTP logins and SMPP binds, and the key derivation runs behind the KDF gate,
 * where names that failed lately wait behind the others.
 *
 * A credential that verified recently is not held back by others' failures: not by its
 * address's limit (which others behind the same proxy or NAT fill), nor, from an address where
 * it verified, by its name's (which a guesser fills). From elsewhere its name's limit still
 * holds, so a guesser learns nothing from the limits: a right guess is refused like a wrong one.
 */
export class LoginGuard {
  private readonly recentlyFailed: LRUCache<string, true>;
  /** Checks in progress, by credential and address: the same arriving again waits for that one. */
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly throttle: LoginThrottle,
    private readonly verified: VerifiedCredentials,
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
    const where = attempt.address === undefined ? undefined : addressKey(attempt.address);
    // An HTTP login and a bind with the same name and secret check different passwords.
    const digest = `${attempt.protocol} ${credentialDigest(attempt.name, attempt.secret)} ${where ?? ''}`;
    const running = this.inFlight.get(digest) as Promise<T | undefined> | undefined;
    if (running) return running;
    const verified = this.verifyOnce(attempt, where, check).finally(() =>
      this.inFlight.delete(digest),
    );
    this.inFlight.set(digest, verified);
    return verified;
  }

  private async verifyOnce<T>(
    attempt: LoginAttempt,
    where: string | undefined,
    check: () => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const { protocol, name, secret } = attempt;
    const recall = await this.verified.recall(protocol, name, secret, where);
    const keys: ThrottleKey[] = [
      {
        protocol,
        scope: 'name',
        id: name,
        limit: this.limits.failuresPerName,
        enforced: !recall.here,
      },
    ];
    if (where !== undefined)
      keys.push({
        protocol,
        scope: 'address',
        id: where,
        limit: this.limits.failuresPerAddress,
        enforced: !recall.anywhere,
      });

    const admission = await this.throttle.admit(keys);
    if (!admission.admitted)
      this.refuse(
        admission.scope,
        new HttpError('RATE_LIMITED', 'Too many failed logins; try again later', {
          headers: { 'Retry-After': String(admission.retryAfterSeconds) },
        }),
      );

    // Wrong binds put only binds of that name back in the KDF queue, and wrong logins only logins.
    const failedKey = `${protocol} ${name}`;
    let result: T | undefined;
    try {
      result = await this.gate.run(check, () => this.recentlyFailed.has(failedKey));
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
      await this.verified.remember(protocol, name, secret, where);
    } else {
      this.recentlyFailed.set(failedKey, true);
      // A secret that verified before and fails now was changed: it is exempt no more.
      if (recall.anywhere) await this.verified.forget(protocol, name, secret, where);
    }
    return result;
  }
}
