/** An account's balance, quota and rate at one moment, in millionths (numeric(20,6) exactly). */
export interface CreditSnapshot {
  /** null: unlimited. */
  balance: bigint | null;
  smsCount: bigint | null;
  rate: bigint;
}

/**
 * What refuses `segments` segments now, if anything. A batch's recipients are a lower bound of its
 * segments, so a batch whose recipients so far cannot be paid for will never be.
 */
export function shortfall(
  credit: CreditSnapshot,
  segments: number,
): 'INSUFFICIENT_CREDIT' | 'QUOTA_EXCEEDED' | undefined {
  const wanted = BigInt(segments);
  if (credit.balance !== null && credit.rate * wanted > credit.balance)
    return 'INSUFFICIENT_CREDIT';
  if (credit.smsCount !== null && wanted > credit.smsCount) return 'QUOTA_EXCEEDED';
  return undefined;
}
