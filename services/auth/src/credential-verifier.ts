import { LRUCache } from 'lru-cache';
import { SPEC_MESSAGES, unusableCharacter, type Principal } from '@smsgw/contracts';
import { HttpError } from '@smsgw/kit';
import type { AccountStore } from './account-store';
import { credentialDigest, type LoginGuard } from './login-guard';
import type { PasswordHasher } from './password-hasher';
import type { TokenIssuer } from './token-issuer';
import { authDefaults } from './defaults';

/** Parses `Basic base64(user:pass)`; undefined when the header is not Basic or not well-formed. */
export function parseBasic(header: string): { username: string; password: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export interface VerifierOptions {
  /** How long a successful Basic check is remembered, so each request does not pay the KDF. */
  basicCacheMs?: number;
  /** How long an application's liveness is remembered; bounds how late a revocation takes effect. */
  applicationCacheMs?: number;
}

/** What the caller knows of the client beside its credentials. */
export interface ClientInfo {
  /** The client's address, for the limit on failed logins per address. */
  address?: string | undefined;
}

/** Turns an Authorization header (Basic or Bearer) into the calling account, or a 401. */
export class CredentialVerifier {
  private readonly basicCache: LRUCache<string, Principal>;
  private readonly applicationCache: LRUCache<
    string,
    { live: boolean; accountId: string; username: string }
  >;

  constructor(
    private readonly store: AccountStore,
    private readonly hasher: PasswordHasher,
    private readonly tokens: TokenIssuer,
    private readonly guard: LoginGuard,
    options: VerifierOptions = {},
  ) {
    this.basicCache = new LRUCache({
      max: authDefaults.cacheEntries,
      ttl: options.basicCacheMs ?? authDefaults.basicCacheMs,
    });
    this.applicationCache = new LRUCache({
      max: authDefaults.cacheEntries,
      ttl: options.applicationCacheMs ?? authDefaults.applicationCacheMs,
    });
  }

  async verify(authorization: string | undefined, client: ClientInfo = {}): Promise<Principal> {
    if (!authorization) throw HttpError.unauthorized();
    if (/^Bearer\s/i.test(authorization))
      return this.verifyBearer(authorization.replace(/^Bearer\s+/i, '').trim());
    const basic = parseBasic(authorization);
    if (!basic)
      throw HttpError.unauthorized('Authorization must be Basic credentials or a Bearer token');
    // Checked before any lookup: such a name cannot exist, and Postgres would refuse the query.
    // The password is only hashed, never stored, so whatever it holds is left to the hash.
    const unusable = unusableCharacter(basic.username);
    if (unusable) throw HttpError.unauthorized(`User name: ${unusable}`);
    return this.verifyBasic(basic.username, basic.password, client.address);
  }

  private async verifyBasic(
    username: string,
    password: string,
    address: string | undefined,
  ): Promise<Principal> {
    // Cached right credentials are answered before any limit or gate: a flood of guesses cannot
    // slow them. The key is a digest of name and password, so a wrong password never matches.
    const key = credentialDigest(username, password);
    const cached = this.basicCache.get(key);
    if (cached) return cached;
    const principal = await this.guard.verify(
      { name: username, secret: password, address },
      async (): Promise<Principal | undefined> => {
        const account = await this.store.findForLogin(username);
        if (!account) {
          // Spend the same work as for a known user, so timing does not reveal which names exist.
          await this.hasher.verifyDummy(password);
          return undefined;
        }
        if (!(await this.hasher.verify(password, account.passwordHash))) return undefined;
        return { accountId: account.id, username: account.username, via: 'basic' };
      },
    );
    if (!principal) throw HttpError.unauthorized('Wrong username or password');
    this.basicCache.set(key, principal);
    return principal;
  }

  private async verifyBearer(token: string): Promise<Principal> {
    const check = this.tokens.check(token);
    if (!check.ok) {
      if (check.reason === 'expired')
        throw new HttpError('ACCESS_TOKEN_EXPIRED', SPEC_MESSAGES.ACCESS_TOKEN_EXPIRED);
      throw HttpError.unauthorized('Invalid access token');
    }
    const app = await this.application(check.claims.cid);
    if (!app.live || app.accountId !== check.claims.sub)
      throw HttpError.unauthorized('Access token has been revoked');
    return { accountId: app.accountId, username: app.username, via: 'bearer' };
  }

  private async application(
    clientId: string,
  ): Promise<{ live: boolean; accountId: string; username: string }> {
    const cached = this.applicationCache.get(clientId);
    if (cached) return cached;
    const row = await this.store.findApplication(clientId);
    const entry = row
      ? { live: row.revoked_at === null, accountId: row.account_id, username: row.username }
      : { live: false, accountId: '', username: '' };
    this.applicationCache.set(clientId, entry);
    return entry;
  }

  /** Forget what was cached for an application at once (this process only; others expire in applicationCacheMs). */
  forgetApplication(clientId: string): void {
    this.applicationCache.delete(clientId);
  }
}
