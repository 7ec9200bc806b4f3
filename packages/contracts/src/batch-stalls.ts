import { z } from 'zod';
import { intLike } from './fields';
import { OPEN_BATCH_STATES } from './states';

/**
 * Why a batch that has not moved is stuck, from what its messages are doing
 * (docs/reliability.md § A stalled batch).
 */
export const STALL_REASONS = [
  /** Messages wait in `submitting`: an SMSC that does not answer, or a dispatcher that stopped. */
  'submits_unanswered',
  /** Messages wait in `queued` and no dispatcher takes them (stopped, or its connector stopped). */
  'messages_waiting',
  /** Recipients are left to expand and nothing holds them back: the batch-scheduler is not expanding. */
  'not_expanding',
  /** Every message has an outcome, yet the batch is not completed: the batch-scheduler is not running. */
  'not_completed',
] as const;
export type StallReason = (typeof STALL_REASONS)[number];

/**
 * How long a batch may go without moving, and a message may wait, before they count as stalled or
 * overdue: the defaults of the batch-scheduler's gauges and of the admin API's list.
 */
export const STALL_DEFAULTS = {
  batchSeconds: 300,
  /** `queued` (or `accepted`) since this long. */
  waitingSeconds: 600,
  /** Claimed for submission and not answered since this long. */
  submittingSeconds: 300,
} as const;

/** GET /admin/v1/batches/stalled: how long without moving counts (seconds), and how many to list. */
export const StalledBatchesQuerySchema = z.strictObject({
  after: intLike(1, 30 * 86_400).default(STALL_DEFAULTS.batchSeconds),
  limit: intLike(1, 1000).default(100),
});

export const StalledBatchSchema = z.object({
  batchId: z.string(),
  accountId: z.string(),
  state: z.enum(OPEN_BATCH_STATES),
  total: z.number().int(),
  expanded: z.number().int(),
  waiting: z.number().int(),
  submitting: z.number().int(),
  /** When it last moved (a chunk expanded, a message reached an outcome), or became due. */
  since: z.string(),
  stalledSeconds: z.number().int(),
  reason: z.enum(STALL_REASONS),
  /** The reason in words, with what to look at. */
  detail: z.string(),
});
export type StalledBatch = z.infer<typeof StalledBatchSchema>;

export const StalledBatchesSchema = z.object({
  data: z.object({ after: z.number().int(), batches: z.array(StalledBatchSchema) }),
});
export type StalledBatches = z.infer<typeof StalledBatchesSchema>;

/** What an operator reads for each reason. */
export const STALL_REASON_TEXT: Record<StallReason, string> = {
  submits_unanswered:
    'messages wait for the SMSC to answer their submit_sm: check the connector and its SMSC',
  messages_waiting:
    'messages wait for a dispatcher: check that a dispatcher runs and the connector is started',
  not_expanding:
    'recipients wait to be expanded: check that a batch-scheduler runs and reaches RabbitMQ',
  not_completed:
    'every message has an outcome but the batch is not completed: check the batch-scheduler',
};
