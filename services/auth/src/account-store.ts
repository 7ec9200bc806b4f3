import { randomBytes } from 'node:crypto';
import type { AccountView, CallbackSecretView, CreateAccount, Credit } from '@smsgw/contracts';
import { UNLIMITED, formatDecimal } from '@smsgw/contracts';
import type { Db, Queryable } from '@smsgw/kit';
import {
  accountCallbackSecrets,
  addAccountCredit,
  findAccountByUsername,
  findApplication,
  findLoginByUsername,
  insertAccount,
  insertApplication,
  lockAccountByUsername,
  recordCredit,
  recordOpeningCredit,
  revokeApplication,
  rotateCallbackSecret,
  rotateApplicationSecret,
  setAccountDisabled,
  setAccountPassword,
  type AccountRow,
  type CallbackSecrets,
  type ApplicationWithAccount,
} from '@smsgw/store';
import type { AuditHook } from './admin-audit';

export type { ApplicationRow, ApplicationWithAccount } from '@smsgw/store';

export interface StoredAccount {
  id: string;
  username: string;
  passwordHash: string;
  disabled: boolean;
}

export function accountView(row: AccountRow): AccountView {
  return {
    id: row.id,
    username: row.username,
    balance: row.balance === null ? UNLIMITED : formatDecimal(row.balance),
    sms_count: row.sms_count === null ? UNLIMITED : row.sms_count,
    rate: formatDecimal(row.rate),
    default_from: row.default_from,
    throughput: row.throughput,
    created_at: row.created_at.toISOString(),
    disabled_at: row.disabled_at?.toISOString() ?? null,
  };
}

function toSecretView(secrets: CallbackSecrets): CallbackSecretView {
  return {
    secret: secrets.secret,
    previous_secret: secrets.previous,
    previous_secret_expires_at: secrets.previous_until?.toISOString() ?? null,
  };
}

/** Accounts, applications and credits, as the auth service sees them (the SQL is in @smsgw/store). */
export class AccountStore {
  constructor(private readonly db: Db) {}

  /**
   * Runs a change, and with an audit hook writes its trail entry in the same transaction when the
   * change found its row (undefined: nothing changed, nothing recorded).
   */
  private change<T>(
    audit: AuditHook | undefined,
    fn: (q: Queryable) => Promise<T | undefined>,
  ): Promise<T | undefined> {
    if (!audit) return fn(this.db);
    return this.db.transaction(async (tx) => {
      const result = await fn(tx);
      if (result !== undefined) await audit(tx);
      return result;
    });
  }

  /** Returns undefined when the username is taken. */
  async createAccount(
    input: CreateAccount,
    passwordHash: string,
    audit?: AuditHook,
  ): Promise<AccountView | undefined> {
    return this.db.transaction(async (tx) => {
      const row = await insertAccount(tx, {
        username: input.username,
        passwordHash,
        balance: input.balance ?? null,
        smsCount: input.sms_count ?? null,
        rate: input.rate ?? null,
        defaultFrom: input.default_from ?? null,
        throughput: input.throughput ?? 0,
      });
      if (!row) return undefined;
      if (row.balance !== null || row.sms_count !== null)
        await recordOpeningCredit(tx, row.id, row.balance, row.sms_count);
      await audit?.(tx);
      return accountView(row);
    });
  }

  async getAccount(username: string): Promise<AccountView | undefined> {
    const row = await findAccountByUsername(this.db, username);
    return row ? accountView(row) : undefined;
  }

  async findForLogin(username: string): Promise<StoredAccount | undefined> {
    const row = await findLoginByUsername(this.db, username);
    return row
      ? {
          id: row.id,
          username: row.username,
          passwordHash: row.password_hash,
          disabled: row.disabled_at !== null,
        }
      : undefined;
  }

  /** Disables or enables the account; undefined when it does not exist. */
  async setDisabled(
    username: string,
    disabled: boolean,
    audit?: AuditHook,
  ): Promise<AccountView | undefined> {
    const row = await this.change(audit, (q) => setAccountDisabled(q, username, disabled));
    return row ? accountView(row) : undefined;
  }

  /** Replaces the password; undefined when the account does not exist. */
  async setPassword(
    username: string,
    passwordHash: string,
    audit?: AuditHook,
  ): Promise<AccountView | undefined> {
    const row = await this.change(audit, (q) => setAccountPassword(q, username, passwordHash));
    return row ? accountView(row) : undefined;
  }

  /** Replaces a live application's secret; undefined when there is no such application. */
  async rotateSecret(
    accountId: string,
    clientId: string,
    secretHash: string,
    audit?: AuditHook,
  ): Promise<{ client_id: string; name: string | null } | undefined> {
    const row = await this.change(audit, (q) =>
      rotateApplicationSecret(q, accountId, clientId, secretHash),
    );
    return row ? { client_id: row.client_id, name: row.name } : undefined;
  }

  /**
   * Adds credit (or, with a negative amount, takes it back) on a limited balance; an unlimited
   * balance or quota stays unlimited. Undefined when the account does not exist; throws
   * RangeError when it would go below zero or past what the columns hold (the sums are checked in
   * numeric, so they cannot overflow before they are compared).
   */
  async credit(
    username: string,
    credit: Credit,
    audit?: AuditHook,
  ): Promise<AccountView | undefined> {
    return this.db.transaction(async (tx) => {
      const account = await lockAccountByUsername(tx, username);
      if (!account) return undefined;
      const smsCount = credit.sms_count ?? 0;
      const row = await addAccountCredit(tx, account.id, credit.amount, smsCount);
      if (!row)
        throw new RangeError(
          'the credit would take the balance below minus its credit limit (zero for a prepaid account), the quota below zero, or either past what an account can hold',
        );
      await recordCredit(tx, account.id, credit.amount, smsCount);
      await audit?.(tx);
      return accountView(row);
    });
  }

  async createApplication(
    accountId: string,
    clientId: string,
    secretHash: string,
    name: string | null,
    audit?: AuditHook,
  ): Promise<void> {
    await this.change(audit, async (q) => {
      await insertApplication(q, { accountId, clientId, secretHash, name });
      return true;
    });
  }

  findApplication(clientId: string): Promise<ApplicationWithAccount | undefined> {
    return findApplication(this.db, clientId);
  }

  /** False when there was no such live application of that account. */
  async revokeApplication(
    accountId: string,
    clientId: string,
    audit?: AuditHook,
  ): Promise<boolean> {
    const revoked = await this.change(audit, async (q) =>
      (await revokeApplication(q, accountId, clientId)) ? true : undefined,
    );
    return revoked === true;
  }

  /** The secret that signs the account's callbacks (and the previous one during its grace). */
  async callbackSecret(username: string): Promise<CallbackSecretView | undefined> {
    const account = await findLoginByUsername(this.db, username);
    if (!account) return undefined;
    const secrets = await accountCallbackSecrets(this.db, account.id);
    return secrets ? toSecretView(secrets) : undefined;
  }

  /** A new callback secret of 256 random bits; the previous one signs for `graceSeconds` more. */
  async rotateCallbackSecret(
    username: string,
    graceSeconds: number,
    audit?: AuditHook,
  ): Promise<CallbackSecretView | undefined> {
    const account = await findLoginByUsername(this.db, username);
    if (!account) return undefined;
    const secrets = await this.change(audit, (q) =>
      rotateCallbackSecret(q, account.id, randomBytes(32).toString('hex'), graceSeconds),
    );
    return secrets ? toSecretView(secrets) : undefined;
  }
}
