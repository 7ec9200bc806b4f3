/**
 * GCRA (generic cell rate algorithm) with reservations: a caller always gets its place in line
 * and is told how long to wait for it, so callers pace smoothly instead of bursting and retrying.
 * The Lua script in redis-rate-limiter.ts is this same function, run atomically inside Redis.
 */
export interface GcraResult {
  /** New theoretical arrival time to store. */
  tat: number;
  /** How long the caller waits before it may send; 0: now. */
  waitMs: number;
}

/**
 * @param tat stored theoretical arrival time (ms), or undefined for a fresh key
 * @param now current time (ms)
 * @param perSecond the cap
 * @param cost PDUs this send needs
 * @param burst PDUs that may go at once after an idle period
 */
export function gcraReserve(
  tat: number | undefined,
  now: number,
  perSecond: number,
  cost: number,
  burst: number,
): GcraResult {
  const interval = 1000 / perSecond;
  const start = Math.max(tat ?? now, now);
  const next = start + interval * cost;
  // The first `burst` PDUs after idleness need not wait; later ones wait for their slot.
  const waitMs = Math.max(0, next - now - interval * burst);
  return { tat: next, waitMs };
}
