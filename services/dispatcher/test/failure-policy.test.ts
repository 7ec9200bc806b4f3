import { decideFailure, decideUnclaimed, type SubmitFailure } from '../src/failure-policy';

/** A transient refusal of a message no part of which the SMSC may hold, on its first attempt. */
const base: SubmitFailure = {
  code: 'ESME_RTHROTTLED',
  permanent: false,
  unanswered: false,
  mayBeAtSmsc: false,
  routeReroutes: false,
  onNoAnswer: 'unknown',
  attempts: 1,
  maxAttempts: 3,
};

describe('the failure policy', () => {
  it.each<[string, Partial<SubmitFailure>, ReturnType<typeof decideFailure>]>([
    ['a transient refusal is retried', {}, { action: 'retry' }],
    [
      'a transient refusal at the last attempt fails, refunded',
      { attempts: 3 },
      { action: 'fail', reason: 'ESME_RTHROTTLED after 3 attempts', refund: true },
    ],
    [
      'a permanent refusal fails at once, refunded',
      { code: 'ESME_RINVDSTADR', permanent: true },
      { action: 'fail', reason: 'ESME_RINVDSTADR', refund: true },
    ],
    [
      'a permanent refusal of a message the SMSC holds a part of fails, not refunded',
      { code: 'ESME_RINVDSTADR', permanent: true, mayBeAtSmsc: true },
      { action: 'fail', reason: 'ESME_RINVDSTADR', refund: false },
    ],
    [
      'no answer, on_no_answer=unknown: outcome unknown, never resent',
      { code: 'TIMEOUT', unanswered: true, mayBeAtSmsc: true },
      { action: 'unknown' },
    ],
    [
      'no answer, on_no_answer=resend: retried',
      { code: 'TIMEOUT', unanswered: true, mayBeAtSmsc: true, onNoAnswer: 'resend' },
      { action: 'retry' },
    ],
    [
      'no answer, on_no_answer=resend, last attempt: fails without refund',
      { code: 'TIMEOUT', unanswered: true, mayBeAtSmsc: true, onNoAnswer: 'resend', attempts: 3 },
      { action: 'fail', reason: 'TIMEOUT after 3 attempts', refund: false },
    ],
    [
      'no answer is never passed on, even where the route reroutes',
      { code: 'TIMEOUT', unanswered: true, mayBeAtSmsc: true, routeReroutes: true },
      { action: 'unknown' },
    ],
    [
      'a refusal the route reroutes goes to the next connector, else is retried',
      { routeReroutes: true },
      { action: 'reroute', otherwise: { action: 'retry' } },
    ],
    [
      'a permanent refusal the route reroutes goes on, else fails refunded',
      { code: 'ESME_RINVDSTADR', permanent: true, routeReroutes: true },
      {
        action: 'reroute',
        otherwise: { action: 'fail', reason: 'ESME_RINVDSTADR', refund: true },
      },
    ],
    [
      'a refusal of a message the SMSC holds a part of stays, though the route reroutes',
      { routeReroutes: true, mayBeAtSmsc: true },
      { action: 'retry' },
    ],
    [
      'not bound (nothing written) is retried like any transient refusal',
      { code: 'NOT_BOUND' },
      { action: 'retry' },
    ],
  ])('%s', (_case, facts, decision) => {
    expect(decideFailure({ ...base, ...facts })).toEqual(decision);
  });
});

describe('a job whose message could not be claimed', () => {
  it.each<[string, { state: string; ageMs: number } | undefined, string]>([
    ['gone', undefined, 'nothing'],
    ['already submitted', { state: 'submitted', ageMs: 120_000 }, 'nothing'],
    ['being submitted elsewhere', { state: 'submitting', ageMs: 1_000 }, 'look-later'],
    [
      'left submitting by a dispatcher that stopped',
      { state: 'submitting', ageMs: 60_000 },
      'unknown',
    ],
  ])('%s', (_case, current, decision) => {
    expect(decideUnclaimed(current, 60_000)).toBe(decision);
  });
});
