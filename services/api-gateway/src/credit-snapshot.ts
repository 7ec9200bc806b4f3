/** An account's balance, quota and rate at one moment, in millionths (numeric(20,6) exactly). */
export interface CreditSnapshot {
  /** null: unlimited. */
  balance: bigint | null;
  smsCount: bigint | null;
  rate: bigint;
}

/** "10.5" → 10500000n; the store's numerics have at most six decimals. */
export function toMillionths(decimal: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d{1,6}))?$/.exec(decimal.trim());
  if (!match) throw new RangeError(`not a decimal: ${decimal}`);
  const [, sign, whole, fraction = ''] = match;
  const value = BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
  return sign === '-' ? -value : value;
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
