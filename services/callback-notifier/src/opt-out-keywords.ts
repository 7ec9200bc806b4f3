import type { Queryable } from '@smsgw/kit';
import { addOptOut, optOutSettingsOf, removeOptOut } from '@smsgw/store';

export interface OptOutKeywords {
  /** First words that put the sender on the receiving account's opt-out list (upper case). */
  optOut: readonly string[];
  /** First words that take the sender off it again. */
  optIn: readonly string[];
}

export type OptOutEffect = 'opted-out' | 'opted-in' | 'none';

/**
 * What an inbound message's keyword does to its account's opt-out list: one of the account's
 * opt-out words (the gateway's, unless the account has its own) adds the sender's number, one of
 * its opt-in words removes it, any other first word nothing.
 */
export async function applyOptOutKeyword(
  db: Queryable,
  defaults: OptOutKeywords,
  message: { accountId: string; from: string; keyword: string | null },
): Promise<OptOutEffect> {
  const keyword = message.keyword?.toUpperCase() ?? '';
  if (keyword === '') return 'none';
  const own = await optOutSettingsOf(db, message.accountId);
  const number = message.from.replace(/^\+/, '');
  if ((own.optOutWords ?? defaults.optOut).includes(keyword)) {
    await addOptOut(db, message.accountId, number, 'keyword');
    return 'opted-out';
  }
  if ((own.optInWords ?? defaults.optIn).includes(keyword)) {
    await removeOptOut(db, message.accountId, number);
    return 'opted-in';
  }
  return 'none';
}
