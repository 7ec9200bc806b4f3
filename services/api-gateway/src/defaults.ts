/**
 * The gateway's built-in tunings, next to the settings it reads from its environment (config.ts).
 * The acceptance's own (the send pipeline's, the routes' refresh) are in @smsgw/acceptance.
 */
export const gatewayDefaults = {
  credentials: {
    /**
     * How long auth's answer for a credential is reused: a busy client costs auth one call every
     * few seconds, and a revoked credential stops working within this.
     */
    cacheMs: 5_000,
    /** Credentials remembered at once; beyond this the least recently used are forgotten. */
    maxEntries: 50_000,
    /**
     * Share of an entry's life after which a request that uses it refreshes it in the background,
     * so a busy client never waits for auth when its entry runs out.
     */
    refreshAfter: 0.6,
    /** A call to auth that takes longer than this fails the request with 503. */
    timeoutMs: 5_000,
  },
  /**
   * Kannel sendsms with several receivers: a receiver that failed for now (the database, the bus)
   * is tried again on the spot, since Kannel's clients read only the status and a 202 naming it
   * failed loses it for them. Three tries at most, after 100 and 400 ms; none begins later than
   * 2 s after the first receiver was tried, however many fail, so the wait it adds stays far
   * below a client's timeout.
   */
  sendsmsRetry: { backoffMs: [100, 400], budgetMs: 2_000 },
} as const;
