import type { ErrorCode } from '@smsgw/contracts';

/** command_status values of SMPP 3.4 (5.1.3) that the server answers with. */
export const STATUS = {
  ESME_ROK: 0x00,
  ESME_RINVMSGLEN: 0x01,
  ESME_RINVCMDID: 0x03,
  ESME_RINVBNDSTS: 0x04,
  ESME_RALYBND: 0x05,
  ESME_RINVPRTFLG: 0x06,
  ESME_RSYSERR: 0x08,
  ESME_RINVSRCADR: 0x0a,
  ESME_RINVDSTADR: 0x0b,
  ESME_RINVMSGID: 0x0c,
  ESME_RBINDFAIL: 0x0d,
  ESME_RINVPASWD: 0x0e,
  ESME_RCANCELFAIL: 0x11,
  ESME_RMSGQFUL: 0x14,
  ESME_RSUBMITFAIL: 0x45,
  ESME_RTHROTTLED: 0x58,
  ESME_RINVSCHED: 0x61,
  ESME_RINVEXPIRY: 0x62,
} as const;
export type StatusName = keyof typeof STATUS;

/**
 * The one table from a refusal of the acceptance (the error code /secure/send answers with, and
 * for INVALID_PARAMETER the field it names) to the submit_sm_resp status. docs/smpp-server.md
 * shows it; a test walks it.
 */
export const REFUSAL_STATUS: Record<ErrorCode, StatusName> = {
  INVALID_PARAMETER: 'ESME_RSUBMITFAIL',
  NO_ROUTE: 'ESME_RINVDSTADR',
  NO_PRICE: 'ESME_RINVDSTADR',
  SENDER_NOT_ALLOWED: 'ESME_RINVSRCADR',
  RECIPIENT_OPTED_OUT: 'ESME_RSUBMITFAIL',
  INSUFFICIENT_CREDIT: 'ESME_RSUBMITFAIL',
  QUOTA_EXCEEDED: 'ESME_RSUBMITFAIL',
  RATE_LIMITED: 'ESME_RTHROTTLED',
  SERVICE_UNAVAILABLE: 'ESME_RSYSERR',
  INTERNAL_ERROR: 'ESME_RSYSERR',
  UNAUTHORIZED: 'ESME_RBINDFAIL',
  ACCOUNT_DISABLED: 'ESME_RBINDFAIL',
  FORBIDDEN: 'ESME_RBINDFAIL',
  ACCESS_TOKEN_EXPIRED: 'ESME_RBINDFAIL',
  APPLICATION_NOT_EXISTS: 'ESME_RBINDFAIL',
  NOT_FOUND: 'ESME_RSYSERR',
  CONFLICT: 'ESME_RSYSERR',
  IDEMPOTENCY_KEY_REUSED: 'ESME_RSYSERR',
  IDEMPOTENCY_KEY_IN_PROGRESS: 'ESME_RSYSERR',
  PAYLOAD_TOO_LARGE: 'ESME_RINVMSGLEN',
  UNSUPPORTED_MEDIA_TYPE: 'ESME_RSYSERR',
};

/** An INVALID_PARAMETER refusal by the field it names. */
export const INVALID_FIELD_STATUS: Record<string, StatusName> = {
  to: 'ESME_RINVDSTADR',
  from: 'ESME_RINVSRCADR',
  sdt: 'ESME_RINVSCHED',
  validity_period: 'ESME_RINVEXPIRY',
  priority: 'ESME_RINVPRTFLG',
  content: 'ESME_RINVMSGLEN',
  hex_content: 'ESME_RINVMSGLEN',
};

/** The status of a refusal with this code (and field). */
export function refusalStatus(code: ErrorCode, field?: string): StatusName {
  if (code === 'INVALID_PARAMETER' && field !== undefined)
    return INVALID_FIELD_STATUS[field] ?? REFUSAL_STATUS.INVALID_PARAMETER;
  return REFUSAL_STATUS[code];
}
