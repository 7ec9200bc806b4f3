/**
 * A price list of `rows` prefixes as an operator's rate card has them: every length from 3 to 9
 * digits, spread over the calling codes, with the bench's destination's network (4179) among them,
 * so a message is priced by a long prefix among many lengths, as in production.
 */
export function rateCard(rows: number): string {
  const lines = ['prefix,price', '*,0.09', '4179,0.04'];
  const seen = new Set(['4179']);
  // A fixed sequence (xorshift32, exact in 32-bit integers), so every run prices the same list.
  let x = 2_463_534_242;
  for (let tries = 0; seen.size < rows; tries++) {
    if (tries > rows * 10) throw new Error(`could not make ${rows} distinct prefixes`);
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    const length = 3 + (x % 7);
    const rest = String(Math.floor(x / 9) % 10 ** (length - 1)).padStart(length - 1, '0');
    const prefix = `${1 + (x % 9)}${rest}`;
    // Longer prefixes of the destination's network would price it instead of 4179.
    if (seen.has(prefix) || prefix.startsWith('4179')) continue;
    seen.add(prefix);
    lines.push(`${prefix},0.0${1 + (x % 9)}`);
  }
  return `${lines.join('\n')}\n`;
}
