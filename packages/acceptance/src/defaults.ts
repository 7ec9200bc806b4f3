/**
 * The acceptance's built-in tunings. The send pipeline's timings are the ones a single send
 * passes, in the order it passes them (send-pipeline/send-pipeline.ts walks through that path).
 */
export const acceptanceDefaults = {
  /**
   * How often the MT routes' version is read: a route changed through the admin API takes effect
   * within this long, at the cost of one small query per period.
   */
  routesRefreshMs: 2000,
  /** How often the price lists' version is read: a change reaches every replica within a second. */
  pricesRefreshMs: 1000,
  sendPipeline: {
    /**
     * Most messages one acceptance statement takes: bounds the statement's size and how long it
     * holds the locks of its accounts' rows.
     */
    maxAcceptGroup: 256,
    /**
     * How long the job of a stream of single sends may wait for others to share its broker
     * message (a send that comes alone goes at once). Nobody waits for the confirm, so this only
     * delays delivery, and it lets one group job carry the messages of many acceptance statements,
     * which costs the broker and the dispatcher about as much as a group of one.
     */
    submitLingerMs: 30,
    /** Most jobs one publishing round takes; they are split into group jobs per account. */
    maxPublishGroup: 1000,
    /** Publishing rounds in flight at once: confirms are pipelined on one channel, so rounds need not wait for each other's. */
    publishConcurrency: 8,
    /**
     * Above this many jobs waiting for the broker's confirm, a request waits for its own: a slow
     * or absent broker slows the callers down instead of filling the process's memory.
     */
    maxUnconfirmedJobs: 1000,
    /**
     * How long the deletion of a published outbox row waits for an acceptance statement to ride
     * along with before it goes alone. It only tells the recovery sweep the jobs exist, so it need
     * not be prompt.
     */
    outboxIdleFlushMs: 20,
  },
} as const;
