/** "10.5" → 10500000n: money is numeric(20,6) in the store, so millionths hold it exactly. */
export function toMillionths(decimal: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d{1,6}))?$/.exec(decimal.trim());
  if (!match) throw new RangeError(`not a decimal: ${decimal}`);
  const [, sign, whole, fraction = ''] = match;
  const value = BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
  return sign === '-' ? -value : value;
}

/** 10500000n → "10.500000", as the store writes numeric(20,6). */
export function fromMillionths(value: bigint): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(7, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -6)}.${digits.slice(-6)}`;
}

/** What a message or a sum earned: charged less refunded less what it cost us. */
export function marginOf(charged: string, refunded: string, cost: string): string {
  return fromMillionths(toMillionths(charged) - toMillionths(refunded) - toMillionths(cost));
}
