import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares a presented secret with the expected one in time that does not depend on either. */
export function sameSecret(given: string, expected: string): boolean {
  // Digests have equal length, so timingSafeEqual never throws and length leaks nothing.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
