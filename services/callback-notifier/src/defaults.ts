/**
 * The notifier's built-in tunings, next to the settings it reads from its environment
 * (config.ts).
 */
export const notifierDefaults = {
  /** How often due callback attempts are looked for when no event woke the worker. */
  pollIntervalMs: 500,
  /** Callback requests in flight at once over all hosts (each host is limited on its own too). */
  concurrency: 64,
  /** Outcome events handled at once per queue: enough to hide the round trips to Postgres. */
  prefetch: 64,
  /** Groups of reports (up to 500 each) handled at once: a few keep Postgres busy, as 64 events do. */
  dlrGroupPrefetch: 4,
  /**
   * An outcome event not seen this long after its state change is taken from the outcome outbox:
   * long enough that the bus has almost surely delivered it, so the outbox rarely doubles it.
   */
  outboxStaleMs: 30_000,
  /**
   * Added to twice the request timeout for the lease on a callback attempt being sent, and kept
   * between a request's hard deadline and the end of its lease (a stalled event loop, clocks): a
   * request in progress is never taken twice.
   */
  leaseMarginMs: 5_000,
  /** A request whose host had no place for it here is due again after this long. */
  handBackMs: 1_000,
  /** Retry delays double from CALLBACK_RETRY_BASE_MS up to this, so a host down for long is still tried. */
  maxRetryDelayMs: 3_600_000,
  /** The outcome outbox is looked at at least this often, however long outboxStaleMs is. */
  maxOutboxPollMs: 10_000,
  inbound: {
    /** The MO route table is read again after this long: a change takes effect within it. */
    routesTtlMs: 2_000,
    /**
     * An inbound message still `received` this long after it was recorded lost its event (one
     * statement on a partial index, so it can be looked for often: a reply is awaited by a person).
     */
    staleMs: 5_000,
    /** How often such messages are looked for. */
    sweepEveryMs: 5_000,
  },
  smsService: {
    /** KANNEL_REPLIES_PER_MINUTE counts the replies of this long. */
    rateWindowMs: 60_000,
    /**
     * An inbound message with the numbers and text of a reply sent within this long is that reply
     * come back (an SMSC delivering to a number served here takes seconds, rarely minutes).
     */
    echoWindowMs: 600_000,
  },
} as const;
