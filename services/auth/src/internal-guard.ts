import type { RequestHandler } from 'express';
import { HttpError } from '@smsgw/kit';
import { sameSecret } from './same-secret';

/** The header a service of this installation presents to auth's internal endpoints. */
export const INTERNAL_TOKEN_HEADER = 'x-internal-token';
/** Set on a refusal so the caller can tell its own misconfiguration from a customer's 403. */
export const INTERNAL_REFUSAL_HEADER = 'x-internal-token-refused';

/**
 * Only callers holding INTERNAL_TOKEN may use the internal endpoints: the credential check answers
 * whether a password is right, and must not be an oracle for whoever reaches auth's port.
 */
export function requireInternalToken(internalToken: string): RequestHandler {
  return (req, _res, next) => {
    const given = req.headers[INTERNAL_TOKEN_HEADER];
    if (typeof given !== 'string' || !sameSecret(given, internalToken)) {
      next(
        new HttpError('FORBIDDEN', `Internal endpoint: ${INTERNAL_TOKEN_HEADER} missing or wrong`, {
          headers: { [INTERNAL_REFUSAL_HEADER]: '1' },
        }),
      );
      return;
    }
    next();
  };
}
