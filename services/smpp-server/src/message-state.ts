import type { MessageState } from '@smsgw/contracts';

/** message_state values of SMPP 3.4 (5.2.28). */
export const SMPP_MESSAGE_STATE = {
  ENROUTE: 1,
  DELIVERED: 2,
  EXPIRED: 3,
  DELETED: 4,
  UNDELIVERABLE: 5,
  ACCEPTED: 6,
  UNKNOWN: 7,
  REJECTED: 8,
} as const;

const BY_STATE: Record<MessageState, { value: number; final: boolean }> = {
  accepted: { value: SMPP_MESSAGE_STATE.ENROUTE, final: false },
  queued: { value: SMPP_MESSAGE_STATE.ENROUTE, final: false },
  submitting: { value: SMPP_MESSAGE_STATE.ENROUTE, final: false },
  submitted: { value: SMPP_MESSAGE_STATE.ENROUTE, final: false },
  delivered: { value: SMPP_MESSAGE_STATE.DELIVERED, final: true },
  undelivered: { value: SMPP_MESSAGE_STATE.UNDELIVERABLE, final: true },
  expired: { value: SMPP_MESSAGE_STATE.EXPIRED, final: true },
  rejected: { value: SMPP_MESSAGE_STATE.REJECTED, final: true },
  failed: { value: SMPP_MESSAGE_STATE.UNDELIVERABLE, final: true },
  cancelled: { value: SMPP_MESSAGE_STATE.DELETED, final: true },
};

/** A message's state as query_sm and receipts tell it. */
export function messageState(state: MessageState): { value: number; final: boolean } {
  return BY_STATE[state];
}
