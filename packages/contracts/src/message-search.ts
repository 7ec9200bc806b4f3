import { z } from 'zod';
import { AccountViewSchema, UsernameSchema } from './admin';
import { IsoTimeSchema, UUID_PATTERN, intLike } from './fields';
import { ConnectorNameSchema } from './routing';
import { MESSAGE_OUTCOMES } from './message-status';
import { BATCH_STATES, MESSAGE_STATE_FILTERS, MESSAGE_STATES } from './states';

/**
 * The way a message came in, kept on it at acceptance: the REST API, Jasmin's HTTP `/send`,
 * Kannel's `sendsms`, a customer's SMPP session, the reply of a Kannel sms-service route, or a batch.
 */
export const MESSAGE_ENTRIES = [
  'rest',
  'jasmin-http',
  'kannel-sendsms',
  'smpp',
  'kannel-reply',
  'batch',
] as const;
export type MessageEntry = (typeof MESSAGE_ENTRIES)[number];

/**
 * How far back a search looks when it names no start, and the longest range it may name: every
 * search reads a bounded range of message ids (they are time-ordered), never the whole table.
 */
export const SEARCH_DEFAULTS = { sinceDays: 1, maxDays: 31, limit: 50, maxLimit: 500 } as const;

const uuid = z
  .string()
  .regex(UUID_PATTERN, 'expected a UUID')
  .transform((s) => s.toLowerCase());

/**
 * A destination: international digits (an optional + dropped), exact, or a prefix ending in `*`.
 */
export const DestinationFilterSchema = z
  .string()
  .trim()
  .regex(/^\+?\d{1,15}\*?$/, 'expected international digits, or a prefix of them ending in *')
  .transform((s) => {
    const digits = s.replace(/^\+/, '');
    return digits.endsWith('*') ? { prefix: digits.slice(0, -1) } : { exact: digits };
  });
export type DestinationFilter = z.infer<typeof DestinationFilterSchema>;

/** A sender as stored: digits, or an alphanumeric sender of up to 11 characters. */
const sender = z
  .string()
  .trim()
  .regex(/^(\+?\d{1,15}|[A-Za-z0-9 ._&-]{1,11})$/, 'expected a number or an alphanumeric sender')
  .transform((s) => s.replace(/^\+/, ''));

const states = z
  .string()
  .transform((s) => s.split(','))
  .pipe(
    z
      .array(
        z.enum(MESSAGE_STATE_FILTERS, { message: `expected ${MESSAGE_STATE_FILTERS.join(', ')}` }),
      )
      .min(1)
      .max(MESSAGE_STATE_FILTERS.length),
  )
  .transform((list) => [...new Set(list)]);

const searchPaging = {
  since: IsoTimeSchema.optional(),
  until: IsoTimeSchema.optional(),
  limit: intLike(1, SEARCH_DEFAULTS.maxLimit).default(SEARCH_DEFAULTS.limit),
};

/** GET /secure/messages: the account's own messages, newest first. */
export const MessageSearchQuerySchema = z.strictObject({
  ...searchPaging,
  to: DestinationFilterSchema.optional(),
  from: sender.optional(),
  state: states.optional(),
  batch: uuid.optional(),
  connector: ConnectorNameSchema.optional(),
  route: ConnectorNameSchema.optional(),
  entry: z.enum(MESSAGE_ENTRIES).optional(),
  id: uuid.optional(),
  /** The `next` of the page before: the id of its last message. */
  next: uuid.optional(),
});
export type MessageSearchQuery = z.infer<typeof MessageSearchQuerySchema>;

/** GET /admin/v1/messages: the same, across accounts, or one account's. */
export const AdminMessageSearchQuerySchema = MessageSearchQuerySchema.extend({
  account: UsernameSchema.optional(),
});
export type AdminMessageSearchQuery = z.infer<typeof AdminMessageSearchQuerySchema>;

/** One message of a search, as its list shows it. */
export const MessageSummarySchema = z.object({
  id: z.string(),
  /** The account's name (the admin API only). */
  account: z.string().optional(),
  state: z.enum(MESSAGE_STATES),
  outcome: z.enum(MESSAGE_OUTCOMES),
  to: z.string(),
  from: z.string().nullable(),
  /** The text; null for binary content, and for an operator whose token lacks `messages:content`. */
  content: z.string().nullable(),
  /** Set for an operator without `messages:content`: the text exists and is not shown. */
  contentMasked: z.boolean().optional(),
  batchId: z.string().nullable(),
  entry: z.enum(MESSAGE_ENTRIES).nullable(),
  segments: z.number().int(),
  coding: z.number().int(),
  cost: z.string(),
  error: z.string().nullable(),
  smscId: z.string().nullable(),
  /** Shown to customers only where SHOW_ROUTES_TO_CUSTOMERS says. */
  route: z.string().nullable().optional(),
  connector: z.string().nullable().optional(),
  createdAt: z.string(),
  submittedAt: z.string().nullable(),
  updatedAt: z.string(),
});
export type MessageSummary = z.infer<typeof MessageSummarySchema>;

/** A page of a search: `next` is given while there may be more. */
export const MessageSearchResultSchema = z.object({
  data: z.object({
    since: z.string(),
    until: z.string(),
    messages: z.array(MessageSummarySchema),
    next: z.string().nullable(),
  }),
});
export type MessageSearchResult = z.infer<typeof MessageSearchResultSchema>;

/** GET /secure/batches and GET /admin/v1/batches: batches by creation, newest first. */
export const BatchSearchQuerySchema = z.strictObject({
  ...searchPaging,
  state: z.enum(BATCH_STATES).optional(),
  next: z
    .string()
    .regex(/^\d{13,16}\.[0-9a-f-]{36}$/, 'expected the `next` value of a previous page')
    .optional(),
});
export const AdminBatchSearchQuerySchema = BatchSearchQuerySchema.extend({
  account: UsernameSchema.optional(),
});
export type BatchSearchQuery = z.infer<typeof AdminBatchSearchQuerySchema>;

export const BatchSummarySchema = z.object({
  batchId: z.string(),
  account: z.string().optional(),
  state: z.enum(BATCH_STATES),
  total: z.number().int(),
  expanded: z.number().int(),
  segments: z.number().int(),
  cost: z.string(),
  scheduledAt: z.string().nullable(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
});
export type BatchSummary = z.infer<typeof BatchSummarySchema>;

export const BatchSearchResultSchema = z.object({
  data: z.object({
    since: z.string(),
    until: z.string(),
    batches: z.array(BatchSummarySchema),
    next: z.string().nullable(),
  }),
});
export type BatchSearchResult = z.infer<typeof BatchSearchResultSchema>;

/** GET /admin/v1/accounts: by name, in name order; `q` keeps names that contain it. */
export const AccountListQuerySchema = z.strictObject({
  q: z.string().min(1).max(64).optional(),
  limit: intLike(1, SEARCH_DEFAULTS.maxLimit).default(SEARCH_DEFAULTS.limit),
  next: UsernameSchema.optional(),
});
export type AccountListQuery = z.infer<typeof AccountListQuerySchema>;

export const AccountListSchema = z.object({
  data: z.object({ accounts: z.array(AccountViewSchema), next: z.string().nullable() }),
});
export type AccountList = z.infer<typeof AccountListSchema>;

/** What a step of a message's story is. */
export const TIMELINE_EVENTS = [
  'accepted',
  'charged',
  'routed',
  'offered',
  'failover',
  'submitted',
  'part',
  'receipt',
  'failed',
  'cancelled',
  'callback',
  'smpp_receipt',
  'refunded',
] as const;
export type TimelineEventKind = (typeof TIMELINE_EVENTS)[number];

export const TimelineEventSchema = z.object({
  /** When it happened; null where the step is known and its time is not kept. */
  at: z.string().nullable(),
  event: z.enum(TIMELINE_EVENTS),
  /** A line for people. */
  text: z.string(),
  detail: z.record(z.string(), z.unknown()),
});
export type TimelineEvent = z.infer<typeof TimelineEventSchema>;

/** GET /admin/v1/messages/{id}: the message and its story, in order. */
export const MessageTimelineSchema = z.object({
  data: z.object({
    message: MessageSummarySchema.extend({ attempts: z.number().int() }),
    events: z.array(TimelineEventSchema),
  }),
});
export type MessageTimeline = z.infer<typeof MessageTimelineSchema>;
