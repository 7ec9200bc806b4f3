import type { AccountView, CreateAccount, Credit } from '@smsgw/contracts';
import { MAX_SMS_COUNT, UNLIMITED, formatDecimal } from '@smsgw/contracts';

/** The largest value of numeric(20, 6), the type of a balance. */
const MAX_BALANCE = '99999999999999.999999';
import type { Db } from '@smsgw/kit';

interface AccountRow {
  id: string;
  username: string;
  password_hash: string;
  balance: string | null;
  sms_count: string | null;
  rate: string;
  default_from: string | null;
  throughput: number;
  created_at: Date;
}

export interface ApplicationRow {
  id: string;
  account_id: string;
  client_id: string;
  secret_hash: string;
  name: string | null;
  revoked_at: Date | null;
}

export interface StoredAccount {
  id: string;
  username: string;
  passwordHash: string;
}

function toView(row: AccountRow): AccountView {
  return {
    id: row.id,
    username: row.username,
    balance: row.balance === null ? UNLIMITED : formatDecimal(row.balance),
    sms_count: row.sms_count === null ? UNLIMITED : row.sms_count,
    rate: formatDecimal(row.rate),
    default_from: row.default_from,
    throughput: row.throughput,
    created_at: row.created_at.toISOString(),
  };
}

/** Accounts, applications and credits: the auth service's SQL, in one place. */
export class AccountStore {
  constructor(private readonly db: Db) {}

  /** Returns undefined when the username is taken. */
  async createAccount(
    input: CreateAccount,
    passwordHash: string,
  ): Promise<AccountView | undefined> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<AccountRow>(
        `INSERT INTO accounts (username, password_hash, balance, sms_count, rate, default_from, throughput)
         VALUES ($1, $2, $3, $4, COALESCE($5::numeric, 1), $6, $7)
         ON CONFLICT (username) DO NOTHING
         RETURNING *`,
        [
          input.username,
          passwordHash,
          input.balance ?? null,
          input.sms_count ?? null,
          input.rate ?? null,
          input.default_from ?? null,
          input.throughput ?? 0,
        ],
      );
      const row = rows[0];
      if (!row) return undefined;
      if (row.balance !== null || row.sms_count !== null) {
        await tx.query(
          `INSERT INTO credit_ledger (account_id, amount, sms_count, reason) VALUES ($1, COALESCE($2::numeric, 0), COALESCE($3::bigint, 0), 'credit')`,
          [row.id, row.balance, row.sms_count],
        );
      }
      return toView(row);
    });
  }

  async getAccount(username: string): Promise<AccountView | undefined> {
    const { rows } = await this.db.query<AccountRow>('SELECT * FROM accounts WHERE username = $1', [
      username,
    ]);
    return rows[0] ? toView(rows[0]) : undefined;
  }

  async findForLogin(username: string): Promise<StoredAccount | undefined> {
    const { rows } = await this.db.query<AccountRow>(
      'SELECT id, username, password_hash FROM accounts WHERE username = $1',
      [username],
    );
    const row = rows[0];
    return row
      ? { id: row.id, username: row.username, passwordHash: row.password_hash }
      : undefined;
  }

  /**
   * Adds credit (or, with a negative amount, takes it back) on a limited balance; an unlimited
   * balance or quota stays unlimited. Undefined when the account does not exist; throws
   * RangeError when it would go below zero or past what the columns hold (the sums are checked in
   * numeric, so they cannot overflow before they are compared).
   */
  async credit(username: string, credit: Credit): Promise<AccountView | undefined> {
    return this.db.transaction(async (tx) => {
      const { rows: found } = await tx.query<AccountRow>(
        'SELECT * FROM accounts WHERE username = $1 FOR UPDATE',
        [username],
      );
      const account = found[0];
      if (!account) return undefined;
      const smsCount = credit.sms_count ?? 0;
      const { rows } = await tx.query<AccountRow>(
        `UPDATE accounts
            SET balance = balance + $2::numeric,
                sms_count = sms_count + $3::bigint,
                updated_at = now()
          WHERE id = $1
            AND (balance IS NULL OR balance + $2::numeric BETWEEN 0 AND ${MAX_BALANCE})
            AND (sms_count IS NULL OR sms_count::numeric + $3::numeric BETWEEN 0 AND ${MAX_SMS_COUNT})
          RETURNING *`,
        [account.id, credit.amount, smsCount],
      );
      if (!rows[0])
        throw new RangeError(
          'the credit would take the balance or quota below zero or past what an account can hold',
        );
      await tx.query(
        `INSERT INTO credit_ledger (account_id, amount, sms_count, reason) VALUES ($1, $2::numeric, $3::bigint, 'credit')`,
        [account.id, credit.amount, smsCount],
      );
      return toView(rows[0]);
    });
  }

  async createApplication(
    accountId: string,
    clientId: string,
    secretHash: string,
    name: string | null,
  ): Promise<void> {
    await this.db.query(
      'INSERT INTO applications (account_id, client_id, secret_hash, name) VALUES ($1, $2, $3, $4)',
      [accountId, clientId, secretHash, name],
    );
  }

  async findApplication(
    clientId: string,
  ): Promise<(ApplicationRow & { username: string }) | undefined> {
    const { rows } = await this.db.query<ApplicationRow & { username: string }>(
      `SELECT a.*, acc.username FROM applications a JOIN accounts acc ON acc.id = a.account_id WHERE a.client_id = $1`,
      [clientId],
    );
    return rows[0];
  }

  /** False when there was no such live application of that account. */
  async revokeApplication(accountId: string, clientId: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      'UPDATE applications SET revoked_at = now() WHERE account_id = $1 AND client_id = $2 AND revoked_at IS NULL',
      [accountId, clientId],
    );
    return rowCount === 1;
  }
}
