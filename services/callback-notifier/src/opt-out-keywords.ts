import type { Queryable } from '@smsgw/kit';
import { addOptOut, removeOptOut } from '@smsgw/store';

export interface OptOutKeywords {
  /** First words that put the sender on the receiving account's opt-out list (upper case). */
  optOut: readonly string[];
  /** First words that take the sender off it again. */
  optIn: readonly string[];
}

export type OptOutEffect = 'opted-out' | 'opted-in' | 'none';

/**
 * What an inbound message's keyword does to its account's opt-out list: STOP and its kin add the
 * sender's number, START and UNSTOP remove it, any other first word nothing.
 */
export async function applyOptOutKeyword(
  db: Queryable,
  keywords: OptOutKeywords,
  message: { accountId: string; from: string; keyword: string | null },
): Promise<OptOutEffect> {
  const keyword = message.keyword?.toUpperCase() ?? '';
  const number = message.from.replace(/^\+/, '');
  if (keywords.optOut.includes(keyword)) {
    await addOptOut(db, message.accountId, number, 'keyword');
    return 'opted-out';
  }
  if (keywords.optIn.includes(keyword)) {
    await removeOptOut(db, message.accountId, number);
    return 'opted-in';
  }
  return 'none';
}
