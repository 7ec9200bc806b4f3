import { MAX_SMS_COUNT } from '@smsgw/contracts';
import type { Queryable } from '@smsgw/kit';

/** The largest value of numeric(20, 6), the type of a balance. */
const MAX_BALANCE = '99999999999999.999999';

/**
 * Statements on `accounts` and `applications`.
 * Compound statements elsewhere that also touch `accounts`: messages.ts ACCEPT_MESSAGES_SQL
 * (locks and debits the accounts of a group), failMessage (refund) and requeueMessage (refund of a
 * message of a cancelled batch), cancelWaitingMessage (refund of a message its sender cancelled);
 * batches.ts acceptBatch (debit) and cancelBatch (refund);
 * sender-rules.ts findSenderRules (reads default_from); batches.ts
 * takeDueBatch (passes over disabled accounts); batches.ts STALLED_BATCHES (passes over them too); mo-routes.ts listMoRoutes (the username of each
 * route's account); messages.ts messageReportFacts (the name a Kannel report template gives as its
 * service); smpp-access.ts SELECT_ACCESS (an account's SMPP access with its name and state); smpp-sessions.ts listSmppSessions (the system_id of each bound session);
 * inbound-messages.ts isInboundAccountDisabled (whether the account of an inbound message is disabled);
 * message-search.ts searchMessages and messageStory (the name of each message's account); batches.ts
 * searchBatches (the name of each batch's account); cdrs.ts archiveCdrs, readCdrChunk and liveFrom (the name
 * of each CDR's account).
 * synthetic-history.ts insertSyntheticAccounts, insertSyntheticMessages and syntheticExtent (the
 * accounts of `pnpm bench search`'s history).
 * message-stats.ts groupJoin (the name of each account the statistics group by, and its group).
 * console-sessions.ts insertConsoleSession and findConsoleSession (a console session's account,
 * its state and credential version).
 * smpp-deliveries.ts smppWaitingByAccount (the name of each account something waits for).
 * price-lists.ts readPricing (each account's group and list), GROUPS (a group's accounts counted) and
 * deleteCustomerGroup (only a group no account belongs to).
 */

export interface AccountRow {
  id: string;
  username: string;
  password_hash: string;
  balance: string | null;
  sms_count: string | null;
  rate: string;
  default_from: string | null;
  throughput: number;
  callback_secret: string;
  callback_secret_previous: string | null;
  callback_secret_previous_until: Date | null;
  created_at: Date;
  /** Set while an operator has the account disabled. */
  disabled_at: Date | null;
  /** Raised by each disable and password change; access tokens carry the one they were issued under. */
  credential_version: number;
  credentials_changed_at: Date | null;
  /** Its customer group, and a price list of its own that overrides the group's (docs/billing.md). */
  group_id: string | null;
  price_list_id: string | null;
  /** Postpaid: how far below zero the balance may go (0: prepaid). */
  credit_limit: string;
}

export interface ApplicationRow {
  id: string;
  account_id: string;
  client_id: string;
  secret_hash: string;
  name: string | null;
  revoked_at: Date | null;
  /** Raised by each rotation of the secret; access tokens carry the one they were issued under. */
  secret_version: number;
  secret_changed_at: Date | null;
}

/** An application with what verifying its tokens needs of its account. */
export type ApplicationWithAccount = ApplicationRow &
  Pick<AccountRow, 'username' | 'disabled_at' | 'credential_version'>;

/** What checking a password needs. */
export type LoginRow = Pick<
  AccountRow,
  'id' | 'username' | 'password_hash' | 'disabled_at' | 'credential_version'
>;

export interface NewAccount {
  username: string;
  passwordHash: string;
  balance: string | null;
  smsCount: string | number | null;
  rate: string | null;
  defaultFrom: string | null;
  throughput: number;
}

/** The new account; undefined when the username is taken. */
export async function insertAccount(
  db: Queryable,
  account: NewAccount,
): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>(
    `INSERT INTO accounts (username, password_hash, balance, sms_count, rate, default_from, throughput)
         VALUES ($1, $2, $3, $4, COALESCE($5::numeric, 1), $6, $7)
         ON CONFLICT (username) DO NOTHING
         RETURNING *`,
    [
      account.username,
      account.passwordHash,
      account.balance,
      account.smsCount,
      account.rate,
      account.defaultFrom,
      account.throughput,
    ],
  );
  return rows[0];
}

export async function findAccountByUsername(
  db: Queryable,
  username: string,
): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>('SELECT * FROM accounts WHERE username = $1', [
    username,
  ]);
  return rows[0];
}

/**
 * Accounts in name order after `after`, those whose name contains `search` (any case) when given:
 * the admin API's list, paged by name.
 */
export async function listAccounts(
  db: Queryable,
  options: { search?: string | undefined; after?: string | undefined; limit: number },
): Promise<AccountRow[]> {
  if (!Number.isInteger(options.limit) || options.limit < 1 || options.limit > 1000)
    throw new RangeError(`bad row limit ${options.limit}`);
  const { rows } = await db.query<AccountRow>(
    `SELECT * FROM accounts
      WHERE ($1::text IS NULL OR strpos(lower(username), lower($1::text)) > 0)
        AND ($2::text IS NULL OR username > $2::text)
      ORDER BY username LIMIT ${options.limit}`,
    [options.search ?? null, options.after ?? null],
  );
  return rows;
}

/** The account's row, locked until the end of the transaction `tx`. */
export async function lockAccountByUsername(
  tx: Queryable,
  username: string,
): Promise<AccountRow | undefined> {
  const { rows } = await tx.query<AccountRow>(
    'SELECT * FROM accounts WHERE username = $1 FOR UPDATE',
    [username],
  );
  return rows[0];
}

export async function findLoginByUsername(
  db: Queryable,
  username: string,
): Promise<LoginRow | undefined> {
  const { rows } = await db.query<LoginRow>(
    'SELECT id, username, password_hash, disabled_at, credential_version FROM accounts WHERE username = $1',
    [username],
  );
  return rows[0];
}

/**
 * Disables (keeping the first time it was disabled) or enables the account; disabling raises its
 * credential version, so access tokens issued before stay refused after it is enabled again.
 * Undefined when there is no such account.
 */
export async function setAccountDisabled(
  db: Queryable,
  username: string,
  disabled: boolean,
): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>(
    `UPDATE accounts
        SET disabled_at = CASE WHEN $2::boolean THEN COALESCE(disabled_at, now()) END,
            credential_version = credential_version
                                 + CASE WHEN $2::boolean AND disabled_at IS NULL THEN 1 ELSE 0 END,
            updated_at = now()
      WHERE username = $1
      RETURNING *`,
    [username, disabled],
  );
  return rows[0];
}

/** Whether an operator has the account disabled now (an account that does not exist is not served either). */
export async function isAccountDisabled(db: Queryable, accountId: string): Promise<boolean> {
  const { rows } = await db.query<{ disabled: boolean }>(
    'SELECT disabled_at IS NOT NULL AS disabled FROM accounts WHERE id = $1',
    [accountId],
  );
  return rows[0]?.disabled ?? true;
}

/** Replaces the password and raises the credential version; undefined when there is no such account. */
export async function setAccountPassword(
  db: Queryable,
  username: string,
  passwordHash: string,
): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>(
    `UPDATE accounts
        SET password_hash = $2,
            credential_version = credential_version + 1,
            credentials_changed_at = now(),
            updated_at = now()
      WHERE username = $1
      RETURNING *`,
    [username, passwordHash],
  );
  return rows[0];
}

/**
 * Adds `amount` to a limited balance and `smsCount` to a limited quota (unlimited ones stay
 * unlimited); undefined, changing nothing, when either would go below zero.
 */
export async function addAccountCredit(
  tx: Queryable,
  accountId: string,
  amount: string,
  smsCount: string | number,
): Promise<AccountRow | undefined> {
  const { rows } = await tx.query<AccountRow>(
    `UPDATE accounts
            SET balance = balance + $2::numeric,
                sms_count = sms_count + $3::bigint,
                updated_at = now()
          WHERE id = $1
            AND (balance IS NULL OR balance + $2::numeric BETWEEN -credit_limit AND ${MAX_BALANCE})
            AND (sms_count IS NULL OR sms_count::numeric + $3::numeric BETWEEN 0 AND ${MAX_SMS_COUNT})
          RETURNING *`,
    [accountId, amount, smsCount],
  );
  return rows[0];
}

/**
 * The price of one segment, and of this many (as Postgres's numeric text): the route's price when
 * it has one, else the account's rate.
 */
export async function accountPrice(
  db: Queryable,
  accountId: string,
  segments: number,
  routePrice: string | null = null,
): Promise<{ rate: string; cost: string } | undefined> {
  const { rows } = await db.query<{ rate: string; cost: string }>(
    `SELECT COALESCE($3::numeric, rate)::text AS rate, (COALESCE($3::numeric, rate) * $2::int)::text AS cost
       FROM accounts WHERE id = $1`,
    [accountId, segments, routePrice],
  );
  return rows[0];
}

/** Balance and quota left; null is unlimited. */
export async function accountBalance(
  db: Queryable,
  accountId: string,
): Promise<{ balance: string | null; sms_count: string | null; credit_limit: string } | undefined> {
  const { rows } = await db.query<{
    balance: string | null;
    sms_count: string | null;
    credit_limit: string;
  }>(
    `SELECT balance::text AS balance, sms_count::text AS sms_count, credit_limit::text AS credit_limit
       FROM accounts WHERE id = $1`,
    [accountId],
  );
  return rows[0];
}

/**
 * Whether the balance is what falls short of `segments` segments at the account's rate (else it
 * is the quota); undefined when there is no such account.
 */
export async function isShortOfCredit(
  db: Queryable,
  accountId: string,
  segments: number,
): Promise<boolean | undefined> {
  const { rows } = await db.query<{ short_of_credit: boolean }>(
    'SELECT (balance IS NOT NULL AND balance < rate * $2::bigint) AS short_of_credit FROM accounts WHERE id = $1',
    [accountId, segments],
  );
  return rows[0]?.short_of_credit;
}

/**
 * The account's cap in messages per second: its own, else its customer group's (0: none);
 * undefined when there is no such account.
 */
export async function accountThroughput(
  db: Queryable,
  accountId: string,
): Promise<number | undefined> {
  const { rows } = await db.query<{ throughput: number }>(
    `SELECT COALESCE(NULLIF(a.throughput, 0), g.throughput, 0) AS throughput
       FROM accounts a LEFT JOIN customer_groups g ON g.id = a.group_id
      WHERE a.id = $1`,
    [accountId],
  );
  return rows[0]?.throughput;
}

export async function insertApplication(
  db: Queryable,
  application: { accountId: string; clientId: string; secretHash: string; name: string | null },
): Promise<void> {
  await db.query(
    'INSERT INTO applications (account_id, client_id, secret_hash, name) VALUES ($1, $2, $3, $4)',
    [application.accountId, application.clientId, application.secretHash, application.name],
  );
}

/** The application with its account's username, state and credential version. */
export async function findApplication(
  db: Queryable,
  clientId: string,
): Promise<ApplicationWithAccount | undefined> {
  const { rows } = await db.query<ApplicationWithAccount>(
    `SELECT a.*, acc.username, acc.disabled_at, acc.credential_version
       FROM applications a JOIN accounts acc ON acc.id = a.account_id
      WHERE a.client_id = $1`,
    [clientId],
  );
  return rows[0];
}

/**
 * Replaces a live application's secret and raises its secret version; undefined when there is no
 * such live application of that account.
 */
export async function rotateApplicationSecret(
  db: Queryable,
  accountId: string,
  clientId: string,
  secretHash: string,
): Promise<ApplicationRow | undefined> {
  const { rows } = await db.query<ApplicationRow>(
    `UPDATE applications
        SET secret_hash = $3, secret_version = secret_version + 1, secret_changed_at = now()
      WHERE account_id = $1 AND client_id = $2 AND revoked_at IS NULL
      RETURNING *`,
    [accountId, clientId, secretHash],
  );
  return rows[0];
}

/** An account has at most this many live applications (the routes refuse one more). */
export const MAX_LISTED_APPLICATIONS = 100;

/** An account's live applications, newest first; never their secrets. */
export async function listApplications(
  db: Queryable,
  accountId: string,
): Promise<
  { client_id: string; name: string | null; created_at: Date; secret_changed_at: Date | null }[]
> {
  const { rows } = await db.query<{
    client_id: string;
    name: string | null;
    created_at: Date;
    secret_changed_at: Date | null;
  }>(
    `SELECT client_id, name, created_at, secret_changed_at FROM applications
      WHERE account_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, client_id LIMIT $2`,
    [accountId, MAX_LISTED_APPLICATIONS],
  );
  return rows;
}

/** How many live applications the account has. */
export async function countApplications(db: Queryable, accountId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM applications WHERE account_id = $1 AND revoked_at IS NULL',
    [accountId],
  );
  return rows[0]?.n ?? 0;
}

/** False when there was no such live application of that account. */
export async function revokeApplication(
  db: Queryable,
  accountId: string,
  clientId: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE applications SET revoked_at = now() WHERE account_id = $1 AND client_id = $2 AND revoked_at IS NULL',
    [accountId, clientId],
  );
  return rowCount === 1;
}

/** The secrets that sign an account's callbacks: the current one, and the previous during its grace. */
export interface CallbackSecrets {
  secret: string;
  previous: string | null;
  previous_until: Date | null;
}

const LIVE_SECRETS = `callback_secret AS secret,
       CASE WHEN callback_secret_previous_until > now() THEN callback_secret_previous END AS previous,
       CASE WHEN callback_secret_previous_until > now() THEN callback_secret_previous_until END AS previous_until`;

export async function accountCallbackSecrets(
  db: Queryable,
  accountId: string,
): Promise<CallbackSecrets | undefined> {
  const { rows } = await db.query<CallbackSecrets>(
    `SELECT ${LIVE_SECRETS} FROM accounts WHERE id = $1`,
    [accountId],
  );
  return rows[0];
}

/**
 * The signing secrets of the account that sent each message, by message id (a compound statement
 * with `messages`; messages not found are absent).
 */
export async function callbackSecretsOfMessages(
  db: Queryable,
  messageIds: readonly string[],
): Promise<Map<string, CallbackSecrets>> {
  if (messageIds.length === 0) return new Map();
  const { rows } = await db.query<CallbackSecrets & { message_id: string }>(
    `SELECT m.id AS message_id, ${LIVE_SECRETS}
       FROM messages m JOIN accounts ON accounts.id = m.account_id
      WHERE m.id = ANY($1::uuid[])`,
    [messageIds],
  );
  return new Map(rows.map(({ message_id, ...secrets }) => [message_id, secrets]));
}

/**
 * Replaces the account's callback secret with `secret`; the one it replaces keeps signing for
 * `graceSeconds` (0: not at all). Undefined when there is no such account.
 */
export async function rotateCallbackSecret(
  db: Queryable,
  accountId: string,
  secret: string,
  graceSeconds: number,
): Promise<CallbackSecrets | undefined> {
  const { rows } = await db.query<CallbackSecrets>(
    `UPDATE accounts
        SET callback_secret_previous = CASE WHEN $3::int > 0 THEN callback_secret END,
            callback_secret_previous_until = CASE WHEN $3::int > 0
                                                  THEN now() + make_interval(secs => $3::int) END,
            callback_secret = $2,
            updated_at = now()
      WHERE id = $1
      RETURNING ${LIVE_SECRETS}`,
    [accountId, secret, graceSeconds],
  );
  return rows[0];
}

/**
 * Puts the account in a customer group (null: none), gives it a price list of its own (null: its
 * group's) or a credit limit, in the caller's transaction; undefined when there is no such
 * account, or when its balance is already below minus the limit asked.
 */
export async function setAccountPricing(
  tx: Queryable,
  username: string,
  change: { groupId?: string | null; priceListId?: string | null; creditLimit?: string },
): Promise<AccountRow | undefined> {
  // A limit that the balance already passes would break the balance's check: refused (undefined).
  const { rows } = await tx.query<AccountRow>(
    `UPDATE accounts
        SET group_id = CASE WHEN $2 THEN $3::bigint ELSE group_id END,
            price_list_id = CASE WHEN $4 THEN $5::bigint ELSE price_list_id END,
            credit_limit = COALESCE($6::numeric, credit_limit),
            updated_at = now()
      WHERE username = $1 AND (balance IS NULL OR $6::numeric IS NULL OR balance >= -$6::numeric)
      RETURNING *`,
    [
      username,
      change.groupId !== undefined,
      change.groupId ?? null,
      change.priceListId !== undefined,
      change.priceListId ?? null,
      change.creditLimit ?? null,
    ],
  );
  return rows[0];
}
