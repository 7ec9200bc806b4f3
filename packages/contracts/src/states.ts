/**
 * Message lifecycle (docs/architecture.md § States). Every transition is a conditional UPDATE on
 * the expected state.
 */
export const MESSAGE_STATES = [
  'accepted',
  'queued',
  'submitting',
  'submitted',
  'delivered',
  'undelivered',
  'expired',
  'rejected',
  'failed',
  'cancelled',
] as const;
export type MessageState = (typeof MESSAGE_STATES)[number];

/** A state filter's values: the message states, and `unknown` for a failure whose outcome is unknown. */
export const MESSAGE_STATE_FILTERS = [...MESSAGE_STATES, 'unknown'] as const;
export type MessageStateFilter = (typeof MESSAGE_STATE_FILTERS)[number];

/** States that end a message's life; nothing moves it out of them. */
export const FINAL_STATES: readonly MessageState[] = [
  'delivered',
  'undelivered',
  'expired',
  'rejected',
  'failed',
  'cancelled',
];

export const BATCH_STATES = ['scheduled', 'running', 'completed', 'cancelled'] as const;
export type BatchState = (typeof BATCH_STATES)[number];

/**
 * Accepted but not yet taken by a dispatcher: what a dispatcher may claim, and a cancel may stop.
 */
export const WAITING_STATES = ['accepted', 'queued'] as const satisfies readonly MessageState[];

/** Not at the SMSC yet: waiting, or being submitted right now. */
export const UNSENT_STATES = [
  'accepted',
  'queued',
  'submitting',
] as const satisfies readonly MessageState[];

/** The SMSC took the message (whatever its receipt said afterwards). */
export const SENT_STATES = [
  'submitted',
  'delivered',
  'undelivered',
  'expired',
] as const satisfies readonly MessageState[];

/** Counted as failed in a batch's status: failed on our side, or rejected by the SMSC. */
export const FAILED_STATES = ['failed', 'rejected'] as const satisfies readonly MessageState[];

/** Batches with recipients still to expand, now or when due. */
export const OPEN_BATCH_STATES = ['scheduled', 'running'] as const satisfies readonly BatchState[];
export type OpenBatchState = (typeof OPEN_BATCH_STATES)[number];

/** Batches nothing changes any more; a cancel finds them finished. */
export const FINISHED_BATCH_STATES = [
  'completed',
  'cancelled',
] as const satisfies readonly BatchState[];
