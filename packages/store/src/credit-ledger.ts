import type { Queryable } from '@smsgw/kit';

/**
 * Statements on `credit_ledger`: every change of a balance or quota is explained by one row here,
 * written in the same transaction as the change.
 * Compound statements elsewhere that also write `credit_ledger`: messages.ts ACCEPT_MESSAGES_SQL
 * (debits), failMessage (refund of one message), requeueMessage (refund of a message of a
 * cancelled batch) and cancelWaitingMessage (refund of a message its sender cancelled); batches.ts acceptBatch (debit) and cancelBatch (refund).
 * messages.ts costStands (read by messageStatus, the statistics' roll and the CDRs) and
 * refundedAmount read whether a message was refunded; message-search.ts messageStoryLedger reads
 * a message's rows for its story.
 * message-stats.ts countStatsSlice and countPendingStats read, through refundedAmount, what each
 * message was refunded.
 * cdrs.ts archiveCdrs, readCdrChunk and liveFrom join each message to its refund row (messages.ts
 * refundJoin).
 * synthetic-history.ts insertSyntheticRefunds writes the refunds of `pnpm bench search`'s history.
 */

/** The credit an account opened with (a null balance or quota counts as 0). */
export async function recordOpeningCredit(
  tx: Queryable,
  accountId: string,
  balance: string | null,
  smsCount: string | null,
): Promise<void> {
  await tx.query(
    `INSERT INTO credit_ledger (account_id, amount, sms_count, reason) VALUES ($1, COALESCE($2::numeric, 0), COALESCE($3::bigint, 0), 'credit')`,
    [accountId, balance, smsCount],
  );
}

/** Credit added (or, negative, taken back) by an administrator. */
export async function recordCredit(
  tx: Queryable,
  accountId: string,
  amount: string,
  smsCount: string | number,
): Promise<void> {
  await tx.query(
    `INSERT INTO credit_ledger (account_id, amount, sms_count, reason) VALUES ($1, $2::numeric, $3::bigint, 'credit')`,
    [accountId, amount, smsCount],
  );
}
