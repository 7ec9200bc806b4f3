import type { Queryable } from '@smsgw/kit';

/** Statements on `sender_policies` and `account_senders` (migration 014). */

export interface SenderRulesRow {
  /** null: neither the account nor its group has a list. */
  policy: 'refuse' | 'replace' | null;
  patterns: string[];
  default_from: string | null;
  /** The customer group whose list these are, when the account has none of its own. */
  from_group: string | null;
}

/**
 * The account's rules (its own list, else its customer group's, migration 043) and default
 * sender; undefined when there is no such account.
 */
export async function findSenderRules(
  db: Queryable,
  accountId: string,
): Promise<SenderRulesRow | undefined> {
  const { rows } = await db.query<SenderRulesRow>(
    `SELECT COALESCE(p.policy, g.sender_policy) AS policy, a.default_from,
            CASE WHEN p.policy IS NULL AND g.sender_policy IS NOT NULL THEN g.senders
                 ELSE COALESCE((SELECT array_agg(s.pattern ORDER BY s.pattern) FROM account_senders s
                                 WHERE s.account_id = a.id), ARRAY[]::text[]) END AS patterns,
            CASE WHEN p.policy IS NULL AND g.sender_policy IS NOT NULL THEN g.name END AS from_group
       FROM accounts a LEFT JOIN sender_policies p ON p.account_id = a.id
            LEFT JOIN customer_groups g ON g.id = a.group_id
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
