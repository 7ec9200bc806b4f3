import { SPEC_MESSAGES, unusableCharacter, type Principal } from '@smsgw/contracts';
import { addressKey, CredentialCache, HttpError, type ForgetsAccounts } from '@smsgw/kit';
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

/** The refusal of right credentials of a disabled account. */
export function accountDisabled(): HttpError {
  return new HttpError('ACCOUNT_DISABLED', 'This account is disabled; ask the operator');
}

interface CheckedPassword {
  principal: Principal;
  disabled: boolean;
}

interface ApplicationState {
  live: boolean;
  accountId: string;
  username: string;
  disabled: boolean;
  accountVersion: number;
  secretVersion: number;
}

/**
 * Turns an Authorization header (Basic or Bearer) into the calling account, or a 401 (a 403
 * ACCOUNT_DISABLED for right credentials of a disabled account). What it remembers is dropped
 * per account when an operator changes the account (followAccountChanges).
 */
export class CredentialVerifier implements ForgetsAccounts {
  private readonly basicCache: CredentialCache<CheckedPassword>;
  private readonly applicationCache: CredentialCache<ApplicationState>;

  constructor(
    private readonly store: AccountStore,
    private readonly hasher: PasswordHasher,
    private readonly tokens: TokenIssuer,
    private readonly guard: LoginGuard,
    options: VerifierOptions = {},
  ) {
    this.basicCache = new CredentialCache({
      max: authDefaults.cacheEntries,
      ttlMs: options.basicCacheMs ?? authDefaults.basicCacheMs,
    });
    this.applicationCache = new CredentialCache({
      max: authDefaults.cacheEntries,
      ttlMs: options.applicationCacheMs ?? authDefaults.applicationCacheMs,
    });
  }

  async verify(authorization: string | undefined, client: ClientInfo = {}): Promise<Principal> {
    if (!authorization) throw HttpError.unauthorized();
    if (/^Bearer\s/i.test(authorization))
      return this.verifyBearer(authorization.replace(/^Bearer\s+/i, '').trim());
    const basic = parseBasic(authorization);
    if (!basic)
      throw HttpError.unauthorized('Authorization must be Basic credentials or a Bearer token');
    return this.verifyPassword(basic.username, basic.password, client);
  }

  /**
   * An account's username and password, as Basic credentials carry them or a console login gives
   * them: the same cache, limits and answers.
   */
  async verifyPassword(
    username: string,
    password: string,
    client: ClientInfo = {},
  ): Promise<Principal> {
    // Checked before any lookup: such a name cannot exist, and Postgres would refuse the query.
    // The password is only hashed, never stored, so whatever it holds is left to the hash.
    const unusable = unusableCharacter(username);
    if (unusable) throw HttpError.unauthorized(`User name: ${unusable}`);
    const checked = await this.verifyBasic(username, password, client.address);
    if (checked.disabled) throw accountDisabled();
    return checked.principal;
  }

  private async verifyBasic(
    username: string,
    password: string,
    address: string | undefined,
  ): Promise<CheckedPassword> {
    // Cached right credentials are answered before any limit or gate: a flood of guesses cannot
    // slow them. The key is a digest of name and password, so a wrong password never matches, and
    // of the client's address, so a guesser elsewhere cannot tell a right guess by it.
    const key = `${credentialDigest(username, password)} ${address === undefined ? '' : addressKey(address)}`;
    const cached = this.basicCache.get(key);
    if (cached) return cached;
    const ticket = this.basicCache.ticket();
    const checked = await this.guard.verify(
      { protocol: 'http', name: username, secret: password, address },
      async (): Promise<CheckedPassword | undefined> => {
        const account = await this.store.findForLogin(username);
        if (!account) {
          // Spend the same work as for a known user, so timing does not reveal which names exist.
          await this.hasher.verifyDummy(password);
          return undefined;
        }
        if (!(await this.hasher.verify(password, account.passwordHash))) return undefined;
        // Disabled is told only to whoever knows the password, so it reveals nothing to a guesser.
        return {
          principal: { accountId: account.id, username: account.username, via: 'basic' },
          disabled: account.disabled,
        };
      },
    );
    if (!checked) throw HttpError.unauthorized('Wrong username or password');
    this.basicCache.set(key, checked.principal.accountId, checked, ticket);
    return checked;
  }

  private async verifyBearer(token: string): Promise<Principal> {
    const check = this.tokens.check(token);
    if (!check.ok) {
      if (check.reason === 'expired')
        throw new HttpError('ACCESS_TOKEN_EXPIRED', SPEC_MESSAGES.ACCESS_TOKEN_EXPIRED);
      throw HttpError.unauthorized('Invalid access token');
    }
    const { claims } = check;
    const app = await this.application(claims.cid);
    if (!app.live || app.accountId !== claims.sub)
      throw HttpError.unauthorized('Access token has been revoked');
    // While disabled, say so; once enabled, tokens from before the disable stay retired.
    if (app.disabled) throw accountDisabled();
    if (app.accountVersion !== claims.ver || app.secretVersion !== claims.sv)
      throw HttpError.unauthorized('Access token has been revoked');
    return { accountId: app.accountId, username: app.username, via: 'bearer' };
  }

  private async application(clientId: string): Promise<ApplicationState> {
    const cached = this.applicationCache.get(clientId);
    if (cached) return cached;
    const ticket = this.applicationCache.ticket();
    const row = await this.store.findApplication(clientId);
    const entry: ApplicationState = row
      ? {
          live: row.revoked_at === null,
          accountId: row.account_id,
          username: row.username,
          disabled: row.disabled_at !== null,
          accountVersion: row.credential_version,
          secretVersion: row.secret_version,
        }
      : {
          live: false,
          accountId: '',
          username: '',
          disabled: false,
          accountVersion: 0,
          secretVersion: 0,
        };
    this.applicationCache.set(clientId, entry.accountId, entry, ticket);
    return entry;
  }

  forgetAccount(accountId: string): void {
    this.basicCache.forgetAccount(accountId);
    this.applicationCache.forgetAccount(accountId);
  }

  forgetAll(): void {
    this.basicCache.clear();
    this.applicationCache.clear();
  }
}
