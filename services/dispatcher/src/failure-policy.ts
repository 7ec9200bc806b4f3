import type { NoAnswerPolicy } from '@smsgw/smsc';

/** What is known of a submit that the SMSC refused or left unanswered. */
export interface SubmitFailure {
  /** The SMSC's status or the connector's reason (ESME_RTHROTTLED, TIMEOUT, NOT_BOUND…). */
  code: string;
  /** Retrying cannot help (a bad destination, rejected content). */
  permanent: boolean;
  /** A submit_sm was written and got no answer: the SMSC may have taken it. */
  unanswered: boolean;
  /**
   * The SMSC may hold some part of the message: a part accepted now or on an earlier attempt, or
   * a submit left unanswered now or before.
   */
  mayBeAtSmsc: boolean;
  /** The message's route passes this status on to its next connector (`reroute_on`). */
  routeReroutes: boolean;
  /** The connector's `on_no_answer`. */
  onNoAnswer: NoAnswerPolicy;
  /** Attempts made, this one included. */
  attempts: number;
  maxAttempts: number;
}

/** What becomes of a message once its submit failed, when it is not passed on. */
export type Settlement =
  /** Recorded as SUBMIT_OUTCOME_UNKNOWN: never sent again nor refunded. */
  | { action: 'unknown' }
  /** Failed for good, refunded only when the SMSC cannot hold any part of it. */
  | { action: 'fail'; reason: string; refund: boolean }
  /** Back to waiting; its job is delivered again later. */
  | { action: 'retry' };

/**
 * The decision: pass the message to its route's next connector when the route asks for it and no
 * part of it can be at this SMSC (`otherwise` applies when the route has no next connector), or
 * settle it here.
 */
export type FailureDecision = Settlement | { action: 'reroute'; otherwise: Settlement };

/**
 * The failure policy, in one place (docs/architecture.md § The failure policy). A submit written
 * and never answered may be at the SMSC: by default its outcome is unknown, never sent again nor
 * refunded (as when a dispatcher dies after writing); with `on_no_answer=resend` it goes again like
 * a refused one. A message the SMSC may hold any part of is never refunded nor sent elsewhere.
 */
export function decideFailure(failure: SubmitFailure): FailureDecision {
  const settlement = settle(failure);
  if (!failure.mayBeAtSmsc && failure.routeReroutes)
    return { action: 'reroute', otherwise: settlement };
  return settlement;
}

function settle(f: SubmitFailure): Settlement {
  if (f.unanswered && f.onNoAnswer === 'unknown') return { action: 'unknown' };
  if (f.permanent) return { action: 'fail', reason: f.code, refund: !f.mayBeAtSmsc };
  if (f.attempts >= f.maxAttempts)
    return {
      action: 'fail',
      reason: `${f.code} after ${f.attempts} attempts`,
      refund: !f.mayBeAtSmsc,
    };
  return { action: 'retry' };
}

/**
 * A job whose message this dispatcher could not claim (redelivered, or a duplicate): only a
 * message left `submitting` needs anything. Younger than `staleMs`, another dispatcher may still be
 * waiting for the SMSC's answer: look again later. Older, its dispatcher died after or before
 * writing the submit_sm, which cannot be told apart: sending again could deliver it twice.
 */
export function decideUnclaimed(
  current: { state: string; ageMs: number } | undefined,
  staleMs: number,
): 'nothing' | 'look-later' | 'unknown' {
  if (!current || current.state !== 'submitting') return 'nothing';
  return current.ageMs < staleMs ? 'look-later' : 'unknown';
}
