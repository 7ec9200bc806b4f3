import { z } from 'zod';

/** Routing keys on the topic exchange; the only place their names are written. */
export const TOPICS = {
  messageSubmit: 'message.submit',
  messageResult: 'message.result',
  messageDlr: 'message.dlr',
  batchAccepted: 'batch.accepted',
} as const;
export type Topic = (typeof TOPICS)[keyof typeof TOPICS];

/** Consumer queues, one per service and job; a service never reads another's queue. */
export const QUEUES = {
  dispatcherSubmit: 'dispatcher.message-submit',
  schedulerBatches: 'batch-scheduler.batch-accepted',
  notifierResults: 'callback-notifier.message-result',
  notifierDlr: 'callback-notifier.message-dlr',
} as const;

/** The job carries only the id: the dispatcher reads the message in the same UPDATE that claims it. */
export const MessageSubmitJobSchema = z.object({ messageId: z.string().uuid() });
export type MessageSubmitJob = z.infer<typeof MessageSubmitJobSchema>;

export const MessageResultEventSchema = z.object({
  messageId: z.string().uuid(),
  accountId: z.string(),
  batchId: z.string().nullable(),
  to: z.string(),
  outcome: z.enum(['submitted', 'failed']),
  smscId: z.string().nullable(),
  error: z.string().nullable(),
  at: z.string(),
});
export type MessageResultEvent = z.infer<typeof MessageResultEventSchema>;

export const BatchAcceptedEventSchema = z.object({ batchId: z.string().uuid() });
export type BatchAcceptedEvent = z.infer<typeof BatchAcceptedEventSchema>;

export const MessageDlrEventSchema = z.object({
  messageId: z.string().uuid(),
  smscId: z.string(),
  status: z.string(),
  err: z.string().nullable(),
  at: z.string(),
});
export type MessageDlrEvent = z.infer<typeof MessageDlrEventSchema>;

export const BUS_SCHEMAS = {
  [TOPICS.messageSubmit]: MessageSubmitJobSchema,
  [TOPICS.messageResult]: MessageResultEventSchema,
  [TOPICS.messageDlr]: MessageDlrEventSchema,
  [TOPICS.batchAccepted]: BatchAcceptedEventSchema,
} as const;
export type BusPayload<T extends Topic> = z.infer<(typeof BUS_SCHEMAS)[T]>;
