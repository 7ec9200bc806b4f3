/** A day in milliseconds. */
export const DAY_MS = 86_400_000;

/**
 * The start of the UTC day holding `at` (now by default): where the message partition of that day
 * begins.
 */
export function utcDayStart(at: Date = new Date()): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}
