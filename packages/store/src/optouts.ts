import type { OptOutPage } from '@smsgw/contracts';
import type { Queryable } from '@smsgw/kit';

/**
 * Statements on `optouts` (migration 019): the numbers an account may no longer send to; and on
 * `optout_settings` (migration 024): the words that change the list, and whether the list holds
 * the account's sends.
 */

export type OptOutSource = 'keyword' | 'account' | 'admin';

export interface OptOutRow {
  number: string;
  source: OptOutSource;
  created_at: Date;
}

/** true when the number was not on the list yet. */
export async function addOptOut(
  db: Queryable,
  accountId: string,
  number: string,
  source: OptOutSource,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO optouts (account_id, number, source) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
    [accountId, number, source],
  );
  return rowCount === 1;
}

/** true when the number was on the list. */
export async function removeOptOut(
  db: Queryable,
  accountId: string,
  number: string,
): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM optouts WHERE account_id = $1 AND number = $2', [
    accountId,
    number,
  ]);
  return rowCount === 1;
}

/** The list in number order, `limit` numbers after `after` (cursor paging). */
export async function listOptOuts(
  db: Queryable,
  accountId: string,
  limit: number,
  after?: string,
): Promise<OptOutRow[]> {
  const { rows } = await db.query<OptOutRow>(
    `SELECT number, source, created_at FROM optouts
      WHERE account_id = $1 AND ($2::text IS NULL OR number > $2)
      ORDER BY number LIMIT $3`,
    [accountId, after ?? null, limit],
  );
  return rows;
}

/** One page of the list as the APIs show it; `next` is the cursor of the page after (or null). */
export async function optOutPage(
  db: Queryable,
  accountId: string,
  limit: number,
  after?: string,
): Promise<OptOutPage['data']> {
  const rows = await listOptOuts(db, accountId, limit + 1, after);
  const page = rows.slice(0, limit);
  return {
    optouts: page.map((o) => ({
      number: o.number,
      source: o.source,
      createdAt: o.created_at.toISOString(),
    })),
    next: rows.length > limit ? page[page.length - 1].number : null,
  };
}

/** Which of `numbers` the account may not send to: one statement for a whole batch. */
export async function optedOutAmong(
  db: Queryable,
  accountId: string,
  numbers: readonly string[],
): Promise<Set<string>> {
  if (numbers.length === 0) return new Set();
  const { rows } = await db.query<{ number: string }>(
    `SELECT o.number FROM optouts o
      WHERE o.account_id = $1 AND o.number = ANY($2::text[])`,
    [accountId, numbers],
  );
  return new Set(rows.map((r) => r.number));
}

/**
 * Whether the account's sends are held to an opt-out list: it has one, and its traffic is not
 * transactional. Most accounts have none, so their sends need no lookup.
 */
export async function sendsHeldToOptOuts(db: Queryable, accountId: string): Promise<boolean> {
  const { rows } = await db.query<{ held: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM optouts WHERE account_id = $1)
            AND NOT EXISTS (SELECT 1 FROM optout_settings
                             WHERE account_id = $1 AND transactional) AS held`,
    [accountId],
  );
  return rows[0].held;
}

/** An account's opt-out settings; a list that is null means the gateway's default words. */
export interface OptOutSettings {
  optOutWords: string[] | null;
  optInWords: string[] | null;
  transactional: boolean;
}

const DEFAULT_SETTINGS: OptOutSettings = {
  optOutWords: null,
  optInWords: null,
  transactional: false,
};

export async function optOutSettingsOf(db: Queryable, accountId: string): Promise<OptOutSettings> {
  const { rows } = await db.query<{
    optout_words: string[] | null;
    optin_words: string[] | null;
    transactional: boolean;
  }>(`SELECT optout_words, optin_words, transactional FROM optout_settings WHERE account_id = $1`, [
    accountId,
  ]);
  const row = rows[0];
  if (!row) return { ...DEFAULT_SETTINGS };
  return {
    optOutWords: row.optout_words,
    optInWords: row.optin_words,
    transactional: row.transactional,
  };
}

/** Replaces the account's settings; all null and not transactional is the same as no row. */
export async function putOptOutSettings(
  db: Queryable,
  accountId: string,
  settings: OptOutSettings,
): Promise<void> {
  await db.query(
    `INSERT INTO optout_settings (account_id, optout_words, optin_words, transactional)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id) DO UPDATE SET optout_words = EXCLUDED.optout_words,
       optin_words = EXCLUDED.optin_words, transactional = EXCLUDED.transactional,
       updated_at = now()`,
    [accountId, settings.optOutWords, settings.optInWords, settings.transactional],
  );
}
