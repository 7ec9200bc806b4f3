/** Message lifecycle (DESIGN.md 4.5). Every transition is a conditional UPDATE on the expected state. */
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
