import type { Queryable } from '@smsgw/kit';

/** Statements on `sender_policies` and `account_senders` (migration 014). */

export interface SenderRulesRow {
  /** null: the account has no list. */
  policy: 'refuse' | 'replace' | null;
  patterns: string[];
  default_from: string | null;
}

/** The account's rules and default sender; undefined when there is no such account. */
export async function findSenderRules(
  db: Queryable,
  accountId: string,
): Promise<SenderRulesRow | undefined> {
  const { rows } = await db.query<SenderRulesRow>(
    `SELECT p.policy, a.default_from,
            COALESCE((SELECT array_agg(s.pattern ORDER BY s.pattern) FROM account_senders s
                       WHERE s.account_id = a.id), ARRAY[]::text[]) AS patterns
       FROM accounts a LEFT JOIN sender_policies p ON p.account_id = a.id
      WHERE a.id = $1`,
    [accountId],
  );
  return rows[0];
}

/** Replaces the account's whole list and policy (inside the caller's transaction). */
export async function replaceSenderRules(
  tx: Queryable,
  accountId: string,
  policy: 'refuse' | 'replace',
  patterns: string[],
): Promise<void> {
  await tx.query(
    `INSERT INTO sender_policies (account_id, policy) VALUES ($1, $2)
       ON CONFLICT (account_id) DO UPDATE SET policy = EXCLUDED.policy, updated_at = now()`,
    [accountId, policy],
  );
  await tx.query('DELETE FROM account_senders WHERE account_id = $1', [accountId]);
  if (patterns.length > 0)
    await tx.query(
      `INSERT INTO account_senders (account_id, pattern)
         SELECT $1, p FROM unnest($2::text[]) AS p ON CONFLICT DO NOTHING`,
      [accountId, patterns],
    );
}

/** Removes the account's list (UNLISTED_SENDERS decides again); false when it had none. */
export async function deleteSenderRules(db: Queryable, accountId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM sender_policies WHERE account_id = $1', [
    accountId,
  ]);
  return rowCount === 1;
}
