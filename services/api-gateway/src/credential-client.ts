import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { ErrorBodySchema, PrincipalSchema, type ErrorCode, type Principal, ERROR_STATUS } from '@smsgw/contracts';
import { HttpError } from '@smsgw/kit';

/** What the gateway needs from auth: who is calling. */
export interface CredentialVerifier {
  verify(authorization: string | undefined): Promise<Principal>;
}

/**
 * Asks the auth service over HTTP. Successful answers are cached briefly (keyed by a digest of the
 * header) so a busy client costs auth one call every few seconds, not one per request.
 */
export class HttpCredentialClient implements CredentialVerifier {
  private readonly cache: LRUCache<string, Principal>;

  constructor(
    private readonly authUrl: string,
    cacheMs = 5_000,
    private readonly timeoutMs = 5_000,
  ) {
    this.cache = new LRUCache({ max: 50_000, ttl: cacheMs });
  }

  async verify(authorization: string | undefined): Promise<Principal> {
    if (!authorization) throw HttpError.unauthorized();
    const key = createHash('sha256').update(authorization).digest('base64');
    const cached = this.cache.get(key);
    if (cached) return cached;
    let response: Response;
    try {
      response = await fetch(new URL('/internal/v1/verify', this.authUrl), {
        method: 'POST',
        headers: { authorization },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch {
      throw new HttpError('SERVICE_UNAVAILABLE', 'Authentication service unavailable');
    }
    const body: unknown = await response.json().catch(() => undefined);
    if (response.ok) {
      const principal = PrincipalSchema.parse(body);
      this.cache.set(key, principal);
      return principal;
    }
    const error = ErrorBodySchema.safeParse(body);
    if (response.status < 500 && error.success && error.data.detail.code in ERROR_STATUS) {
      const code = error.data.detail.code as ErrorCode;
      throw code === 'UNAUTHORIZED' ? HttpError.unauthorized(error.data.detail.message) : new HttpError(code, error.data.detail.message);
    }
    throw new HttpError('SERVICE_UNAVAILABLE', 'Authentication service unavailable');
  }
}
