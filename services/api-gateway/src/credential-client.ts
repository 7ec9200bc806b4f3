import { hash } from 'node:crypto';
import {
  CLIENT_ADDRESS_HEADER,
  ErrorBodySchema,
  PrincipalSchema,
  type ErrorCode,
  type Principal,
  ERROR_STATUS,
} from '@smsgw/contracts';
import { addressKey, CredentialCache, HttpError, type ForgetsAccounts } from '@smsgw/kit';
import { gatewayDefaults } from './defaults';

/** What the gateway knows of the client beside its credentials. */
export interface ClientInfo {
  address?: string | undefined;
}

/** What the gateway needs from auth: who is calling. */
export interface CredentialVerifier {
  verify(authorization: string | undefined, client?: ClientInfo): Promise<Principal>;
}

/** Answers that say nothing against the credential: auth is away, or too busy to check it now. */
const KEEP_CACHED_ON = new Set<ErrorCode>(['SERVICE_UNAVAILABLE', 'RATE_LIMITED']);

interface CachedPrincipal {
  principal: Principal;
  /** After this (epoch ms) a request still gets the cached answer but starts one refresh. */
  refreshAt: number;
}

/**
 * Asks the auth service over HTTP. Successful answers are cached briefly (keyed by a digest of the
 * header and the client's address), so a busy client costs auth one call every few seconds, not one per request. A busy
 * client also never waits for that call: its answer is refreshed in the background before it
 * expires, and concurrent requests with the same credentials share one call (no burst of calls,
 * and of KDFs in auth, when an entry runs out). An operator's change of an account drops its
 * entries at once (followAccountChanges).
 */
export class HttpCredentialClient implements CredentialVerifier, ForgetsAccounts {
  private readonly cache: CredentialCache<CachedPrincipal>;
  private readonly inFlight = new Map<string, Promise<Principal>>();
  private readonly refreshAfterMs: number;

  constructor(
    private readonly authUrl: string,
    private readonly internalToken: string,
    cacheMs: number = gatewayDefaults.credentials.cacheMs,
    private readonly timeoutMs: number = gatewayDefaults.credentials.timeoutMs,
  ) {
    this.cache = new CredentialCache({
      max: gatewayDefaults.credentials.maxEntries,
      ttlMs: cacheMs,
    });
    this.refreshAfterMs = Math.floor(cacheMs * gatewayDefaults.credentials.refreshAfter);
  }

  async verify(authorization: string | undefined, client: ClientInfo = {}): Promise<Principal> {
    if (!authorization) throw HttpError.unauthorized();
    // One-shot: no Hash object per request. The client's address is part of the key, so a right
    // guess from elsewhere is not answered from here but by auth, behind its limits.
    const where = client.address === undefined ? '' : addressKey(client.address);
    const key = hash('sha256', `${where} ${authorization}`, 'base64');
    const cached = this.cache.get(key);
    if (!cached) return this.lookup(key, authorization, client);
    if (Date.now() >= cached.refreshAt && !this.inFlight.has(key)) {
      // Its outcome lands in the cache; a refused credential is evicted there.
      this.lookup(key, authorization, client).catch(() => undefined);
    }
    return cached.principal;
  }

  private lookup(key: string, authorization: string, client: ClientInfo): Promise<Principal> {
    let pending = this.inFlight.get(key);
    if (pending) return pending;
    const ticket = this.cache.ticket();
    pending = this.ask(authorization, client)
      .then(
        (principal) => {
          const entry = { principal, refreshAt: Date.now() + this.refreshAfterMs };
          this.cache.set(key, principal.accountId, entry, ticket);
          return principal;
        },
        (err: unknown) => {
          // Auth said no (revoked, password changed): stop answering from the cache at once. While
          // auth is unreachable or busy, a cached answer stays good until it expires.
          if (!(err instanceof HttpError) || !KEEP_CACHED_ON.has(err.code)) this.cache.delete(key);
          throw err;
        },
      )
      .finally(() => {
        if (this.inFlight.get(key) === pending) this.inFlight.delete(key);
      });
    this.inFlight.set(key, pending);
    return pending;
  }

  forgetAccount(accountId: string): void {
    this.cache.forgetAccount(accountId);
    // A call under way may carry the old answer: later requests ask again instead of joining it.
    this.inFlight.clear();
  }

  forgetAll(): void {
    this.cache.clear();
    this.inFlight.clear();
  }

  private async ask(authorization: string, client: ClientInfo): Promise<Principal> {
    let response: Response;
    const request: Record<string, string> = { authorization };
    if (client.address) request[CLIENT_ADDRESS_HEADER] = client.address;
    try {
      response = await fetch(new URL('/internal/v1/verify', this.authUrl), {
        method: 'POST',
        headers: { ...request, 'x-internal-token': this.internalToken },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch {
      throw new HttpError('SERVICE_UNAVAILABLE', 'Authentication service unavailable');
    }
    const body: unknown = await response.json().catch(() => undefined);
    // Auth refused this gateway, not the customer: a deployment fault, answered as auth being away.
    if (response.headers.has('x-internal-token-refused')) {
      const refused = new HttpError('SERVICE_UNAVAILABLE', 'Authentication service unavailable');
      refused.cause = new Error('auth refused INTERNAL_TOKEN: give auth and api-gateway the same');
      throw refused;
    }
    if (response.ok) return PrincipalSchema.parse(body);
    const error = ErrorBodySchema.safeParse(body);
    // A limit's Retry-After reaches the client as auth gave it.
    const retryAfter = response.headers.get('retry-after');
    const headers: Record<string, string> =
      retryAfter && /^\d{1,6}$/.test(retryAfter) ? { 'Retry-After': retryAfter } : {};
    if (error.success && error.data.detail.code in ERROR_STATUS) {
      const code = error.data.detail.code as ErrorCode;
      if (code === 'UNAUTHORIZED') throw HttpError.unauthorized(error.data.detail.message);
      if (response.status < 500 || code === 'SERVICE_UNAVAILABLE')
        throw new HttpError(code, error.data.detail.message, { headers });
    }
    throw new HttpError('SERVICE_UNAVAILABLE', 'Authentication service unavailable', { headers });
  }
}
