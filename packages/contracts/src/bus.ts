import { z } from 'zod';
import { ReportWishSchema } from './report-wish';

/** Routing keys on the topic exchange; the only place their names are written. */
export const TOPICS = {
  messageSubmit: 'message.submit',
  messageSubmitGroup: 'message.submit-group',
  messageResult: 'message.result',
  messageDlr: 'message.dlr',
  messageDlrGroup: 'message.dlr-group',
  batchAccepted: 'batch.accepted',
  inboundReceived: 'inbound.received',
} as const;
export type Topic = (typeof TOPICS)[keyof typeof TOPICS];

/** Consumer queues, one per service and job; a service never reads another's queue. */
export const QUEUES = {
  /** Per connector: `dispatcher.message-submit.<connector>` (connectorQueue). */
  dispatcherSubmit: 'dispatcher.message-submit',
  dispatcherSubmitGroup: 'dispatcher.message-submit-group',
  schedulerBatches: 'batch-scheduler.batch-accepted',
  notifierResults: 'callback-notifier.message-result',
  notifierDlr: 'callback-notifier.message-dlr',
  notifierDlrGroup: 'callback-notifier.message-dlr-group',
  notifierInbound: 'callback-notifier.inbound-received',
} as const;

/**
 * A dispatcher's queue of one connector's jobs: submit jobs are published with the connector as
 * their key, and only dispatchers holding a bind of that connector consume its queues.
 */
export function connectorQueue(queue: string, connector: string): string {
  return `${queue}.${connector}`;
}

/** The job carries only the id: the dispatcher reads the message in the same UPDATE that claims it. */
export const MessageSubmitJobSchema = z.object({
  messageId: z.string().uuid(),
  /** For pacing before the claim: the account's cap, and the PDUs the message needs. */
  accountId: z.string().uuid().optional(),
  segments: z.number().int().min(1).max(255).optional(),
});
export type MessageSubmitJob = z.infer<typeof MessageSubmitJobSchema>;

/** Most messages in one group job (the dispatcher sizes its prefetch of group jobs by it). */
export const SUBMIT_GROUP_MAX = 100;

/**
 * Several messages of one account in one job: a batch chunk is a handful of broker messages
 * instead of one per recipient (the broker's per-message cost was a quarter of a batch's CPU).
 */
export const MessageSubmitGroupJobSchema = z.object({
  accountId: z.string().uuid(),
  messages: z
    .array(z.object({ messageId: z.string().uuid(), segments: z.number().int().min(1).max(255) }))
    .min(1)
    .max(SUBMIT_GROUP_MAX),
});
export type MessageSubmitGroupJob = z.infer<typeof MessageSubmitGroupJobSchema>;

/**
 * Jobs cut into group jobs: one connector and one account each, at most SUBMIT_GROUP_MAX, in
 * arrival order per account.
 */
export function submitGroups<T extends { accountId: string; connector: string }>(
  jobs: readonly T[],
): T[][] {
  const byAccount = new Map<string, T[]>();
  for (const job of jobs) {
    const key = `${job.connector} ${job.accountId}`;
    const own = byAccount.get(key);
    if (own) own.push(job);
    else byAccount.set(key, [job]);
  }
  const groups: T[][] = [];
  for (const own of byAccount.values()) {
    for (let at = 0; at < own.length; at += SUBMIT_GROUP_MAX)
      groups.push(own.slice(at, at + SUBMIT_GROUP_MAX));
  }
  return groups;
}

/** The group job of one of submitGroups' groups. */
export function toGroupJob(
  group: readonly { accountId: string; messageId: string; segments: number }[],
): MessageSubmitGroupJob {
  return {
    accountId: group[0].accountId,
    messages: group.map((j) => ({ messageId: j.messageId, segments: j.segments })),
  };
}

export const MessageResultEventSchema = z.object({
  messageId: z.string().uuid(),
  accountId: z.string(),
  batchId: z.string().nullable(),
  to: z.string(),
  outcome: z.enum(['submitted', 'failed']),
  smscId: z.string().nullable(),
  error: z.string().nullable(),
  /** The connector that answered (DLR callbacks report it). */
  connector: z.string().default(''),
  at: z.string(),
  /**
   * The message's report wish when it names this outcome (null: no report of it is wished);
   * absent from events written before the wish was stored in columns (migration 034).
   */
  report: ReportWishSchema.nullable().optional(),
});
export type MessageResultEvent = z.infer<typeof MessageResultEventSchema>;

export const BatchAcceptedEventSchema = z.object({ batchId: z.string().uuid() });
export type BatchAcceptedEvent = z.infer<typeof BatchAcceptedEventSchema>;

/** A message's handset receipt, once every part has one (level 2 delivery reports). */
export const MessageDlrEventSchema = z.object({
  messageId: z.string().uuid(),
  smscId: z.string(),
  /** DELIVRD when every part was delivered, else the stat of the first part that was not. */
  status: z.string(),
  err: z.string().nullable(),
  connector: z.string().default(''),
  sub: z.string().default(''),
  dlvrd: z.string().default(''),
  submitDate: z.string().default(''),
  doneDate: z.string().default(''),
  text: z.string().default(''),
  at: z.string(),
  /** The message's report wish (never null: the event is written for it); as in message.result. */
  report: ReportWishSchema.nullable().optional(),
});
export type MessageDlrEvent = z.infer<typeof MessageDlrEventSchema>;

/** Most reports one message.dlr-group event carries. */
export const DLR_GROUP_MAX = 500;

/**
 * The reports of the receipts the dispatcher recorded in one statement, as one broker message
 * instead of one each (message.dlr stays for the outbox's rows and for events already on the way).
 */
export const MessageDlrGroupEventSchema = z.object({
  reports: z.array(MessageDlrEventSchema).min(1).max(DLR_GROUP_MAX),
});
export type MessageDlrGroupEvent = z.infer<typeof MessageDlrGroupEventSchema>;

/** An inbound message was recorded (and its parts joined); the notifier routes and delivers it. */
export const InboundReceivedEventSchema = z.object({ inboundId: z.string().uuid() });
export type InboundReceivedEvent = z.infer<typeof InboundReceivedEventSchema>;

export const BUS_SCHEMAS = {
  [TOPICS.messageSubmit]: MessageSubmitJobSchema,
  [TOPICS.messageSubmitGroup]: MessageSubmitGroupJobSchema,
  [TOPICS.messageResult]: MessageResultEventSchema,
  [TOPICS.messageDlr]: MessageDlrEventSchema,
  [TOPICS.messageDlrGroup]: MessageDlrGroupEventSchema,
  [TOPICS.batchAccepted]: BatchAcceptedEventSchema,
  [TOPICS.inboundReceived]: InboundReceivedEventSchema,
} as const;
export type BusPayload<T extends Topic> = z.infer<(typeof BUS_SCHEMAS)[T]>;

/**
 * Broadcasts: every process subscribed at the time gets each one, none is kept for a process that
 * is not (no durable queue). For news that only matters to what a process holds in memory now.
 */
export const BROADCASTS = {
  accountChanged: 'account.changed',
} as const;
export type Broadcast = (typeof BROADCASTS)[keyof typeof BROADCASTS];

/** What an operator changed; every process drops what it remembers of the account's credentials. */
export const AccountChangedEventSchema = z.object({
  accountId: z.string().uuid(),
  // 'smpp': its SMPP access or limits changed or were taken away.
  change: z.enum(['disabled', 'enabled', 'password', 'secret', 'application-revoked', 'smpp']),
  /** The application, for a rotated secret or a revoked application. */
  clientId: z.string().optional(),
  at: z.string(),
});
export type AccountChangedEvent = z.infer<typeof AccountChangedEventSchema>;

export const BROADCAST_SCHEMAS = {
  [BROADCASTS.accountChanged]: AccountChangedEventSchema,
} as const;
export type BroadcastPayload<T extends Broadcast> = z.infer<(typeof BROADCAST_SCHEMAS)[T]>;
