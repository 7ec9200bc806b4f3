import { SUBMIT_GROUP_MAX } from '@smsgw/contracts';

/**
 * The dispatcher's built-in tunings, next to the settings it reads from its environment
 * (config.ts).
 */
export const dispatcherDefaults = {
  prefetch: {
    /**
     * Deliveries of message.submit per place of the SMPP window: enough to keep the window full,
     * few enough that a crash strands few.
     */
    perWindowPlace: 4,
    /**
     * Messages a group job of message.submit-group carries, as the prefetch of that queue counts
     * them. Batch chunks fill a group, but the gateway's groups of single sends are far from full
     * at moderate load, and they too must keep the window full.
     */
    typicalGroupJob: SUBMIT_GROUP_MAX / 10,
    /** Group jobs prefetched at least, whatever the window. */
    minGroupJobs: 8,
    /**
     * The window a stopped connector's queues are prefetched for: without a session their jobs are
     * only held or passed on, so its own window does not matter until it starts.
     */
    heldWindow: 10,
  },
  claims: {
    /**
     * Groups claimed and not yet written: one is claimed while the previous waits for window
     * places, so the claim's round trip to Postgres does not hold places idle.
     */
    maxAhead: 2,
    /**
     * How long a dispatcher keeps trying to record what the SMSC was given while the database is
     * away (a restart, a failover): the claim of a written submit_sm that the database lost, or the
     * SMSC's answer; after that the bus delivers the job again.
     */
    reclaimWrittenMs: 300_000,
    /** The first pause between those tries; each next one doubles, up to 5 s. */
    reclaimFirstDelayMs: 200,
  },
  answers: {
    /** Most SMSC answers one statement records. */
    maxGroup: 1000,
    /** Answer statements in flight at once, so recording never trails the SMSC's answers. */
    concurrency: 2,
  },
  retries: {
    /** First delay before a transient submit failure is retried through the bus's delay queues. */
    firstDelayMs: 1000,
    /** Each next delay is this many times the previous one, so a struggling SMSC gets air. */
    factor: 4,
    /** No retry waits longer than this, so a message is not left for hours. */
    maxDelayMs: 120_000,
  },
  receipts: {
    /**
     * How long a receipt that matches no message yet is held: an SMSC may send it before its
     * submit_sm_resp has been recorded.
     */
    holdMs: 30_000,
    /** How often held receipts are matched again. */
    retryEveryMs: 250,
    /**
     * How long a receipt waits for others to be recorded with it. Nobody waits for a receipt but
     * the SMSC for its answer, and a statement of a few receipts is planned and committed for
     * just those few.
     */
    lingerMs: 20,
  },
  sweeper: {
    /**
     * A job outbox row or waiting message younger than this is left alone: its job is most likely
     * still on the way, and re-publishing it would only make a duplicate.
     */
    acceptedGraceMs: 30_000,
    /** Most rows one sweep statement takes, so a large backlog is swept in bounded steps. */
    batchSize: 1000,
  },
  smartQos: {
    /** Never paced below this many submits per second, so the rate can climb back. */
    minRate: 1,
    /** Share of the configured rate regained per second while the SMSC keeps up. */
    recoverPerSecond: 0.05,
    /** The rate is multiplied by this on a throttling answer. */
    throttleFactor: 0.5,
    /** The rate is multiplied by this when the SMSC's answers stay slow for two seconds running. */
    latencyFactor: 0.8,
    /**
     * Latency is compared with its lowest of the last 5-10 s (two periods), so a lasting change of
     * the SMSC's or the host's pace becomes the new normal within 10 s.
     */
    floorWindowMs: 5_000,
    /** Answer times are judged by the median of each second's answers. */
    intervalMs: 1000,
    /** A second with fewer answers says nothing about the SMSC's pace. */
    minSamples: 5,
  },
  connectors: {
    /** How often the connectors table (and the MT routes) are read: changes apply within this. */
    refreshMs: 1000,
    /** How often each connector renews its bind lease and reconciles its session. */
    tickMs: 1000,
    /**
     * A bind lease lives this long unless renewed: a dead dispatcher's binds are taken over after
     * it (plus one tick); a holder that cannot renew for half of it unbinds first.
     */
    leaseTtlMs: 10_000,
    /** How often each dispatcher writes its connectors' status for the admin API. */
    statusEveryMs: 2000,
    /**
     * A connector whose session is down this long passes the waiting messages of failover routes
     * to their next connector; shorter outages (a reconnect) are waited out.
     */
    failoverAfterMs: 5000,
  },
  /** The rate Smart QoS climbs back to when neither the worker nor the connector has a cap. */
  uncappedQosRate: 1000,
  inbound: {
    /**
     * An SMSC that got no answer delivers a message again after its own timeout, seconds to
     * minutes later: the same bytes from the same number within this window are one message.
     */
    dedupWindowMs: 600_000,
    /** How often parts that waited INBOUND_PART_TIMEOUT_MS are looked for. */
    sweepEveryMs: 10_000,
  },
} as const;
