import { unusableCharacter, type SmppAccount } from '@smsgw/contracts';
import { compileProxyTrust, HttpError, type Db } from '@smsgw/kit';
import { findSmppAccessByUsername, smppCredentialOf } from '@smsgw/store';
import { accountDisabled } from './credential-verifier';
import type { LoginGuard } from './login-guard';
import type { PasswordHasher } from './password-hasher';

interface CheckedBind {
  account: SmppAccount;
  disabled: boolean;
}

/**
 * Checks an SMPP bind: `system_id` is the account's username, `password` its SMPP password. The
 * check runs behind login limits of its own (per name and per address, as HTTP's) and the KDF
 * gate: wrong binds lock binds out, never the customer's HTTP logins, and wrong HTTP logins never
 * block binds. Only whoever knows the password learns that the account is disabled or that the
 * address may not bind.
 */
export class SmppBinds {
  constructor(
    private readonly db: Db,
    private readonly hasher: PasswordHasher,
    private readonly guard: LoginGuard,
  ) {}

  async check(
    systemId: string,
    password: string,
    address: string | undefined,
  ): Promise<SmppAccount> {
    if (unusableCharacter(systemId)) throw HttpError.unauthorized();
    const checked = await this.guard.verify(
      { protocol: 'smpp', name: systemId, secret: password, address },
      async (): Promise<CheckedBind | undefined> => {
        const access = await findSmppAccessByUsername(this.db, systemId);
        if (!access) {
          await this.hasher.verifyDummy(password);
          return undefined;
        }
        if (!(await this.hasher.verify(password, access.password_hash))) return undefined;
        return {
          disabled: access.disabled,
          account: {
            accountId: access.account_id,
            username: access.username,
            maxSessions: access.max_sessions,
            throughput: access.throughput,
            allowedAddresses: access.allowed_addresses,
            credential: smppCredentialOf(access.password_hash),
          },
        };
      },
    );
    if (!checked) throw HttpError.unauthorized('Wrong system_id or password');
    if (checked.disabled) throw accountDisabled();
    const allowed = checked.account.allowedAddresses;
    if (allowed.length > 0 && (address === undefined || !compileProxyTrust(allowed)(address, 0)))
      throw new HttpError('FORBIDDEN', `This account may not bind from ${address ?? 'here'}`);
    return checked.account;
  }
}
