/** One cap to respect: a key shared by every dispatcher, and its rate. */
export interface RateCap {
  key: string;
  perSecond: number;
}

/**
 * Cluster-wide pacing (docs/architecture.md § Throughput caps): reserves `cost` PDUs on every cap
 * and says how long to wait.
 */
export interface RateLimiter {
  /** Milliseconds to wait before sending; rejects when the shared state cannot be reached. */
  reserve(caps: readonly RateCap[], cost: number): Promise<number>;
  isReady(): boolean;
  close(): Promise<void>;
}

/** PDUs that may go at once after an idle period, per cap. */
export const BURST = 1;
