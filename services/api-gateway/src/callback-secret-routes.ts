import { randomBytes } from 'node:crypto';
import { Router, type Response } from 'express';
import {
  DEFAULT_SECRET_GRACE_SECONDS,
  RotateCallbackSecretSchema,
  type CallbackSecretView,
} from '@smsgw/contracts';
import { asyncRoute, HttpError, jsonBody, parseInput, type Db } from '@smsgw/kit';
import { accountCallbackSecrets, rotateCallbackSecret, type CallbackSecrets } from '@smsgw/store';

export function callbackSecretView(secrets: CallbackSecrets): CallbackSecretView {
  return {
    secret: secrets.secret,
    previous_secret: secrets.previous,
    previous_secret_expires_at: secrets.previous_until?.toISOString() ?? null,
  };
}

/** 256 random bits, as hex. */
export const newCallbackSecret = (): string => randomBytes(32).toString('hex');

/**
 * The account reads and rotates the secret that signs its callbacks (X-Smsgw-Signature), with
 * the credentials it sends with. Mounted behind the /secure authentication.
 */
export function createCallbackSecretRoutes(
  db: Db,
  accountIdOf: (res: Response) => string,
  maxBodyBytes: number,
): Router {
  const router = Router();
  router.get(
    '/secure/callback-secret',
    asyncRoute(async (_req, res) => {
      const secrets = await accountCallbackSecrets(db, accountIdOf(res));
      if (!secrets) throw HttpError.unauthorized('Account no longer exists');
      res.set('Cache-Control', 'no-store').json({ data: callbackSecretView(secrets) });
    }),
  );
  router.post(
    '/secure/callback-secret',
    ...jsonBody(maxBodyBytes),
    asyncRoute(async (req, res) => {
      // Without a body (nothing to say), the default grace period.
      const { grace_seconds } = parseInput(RotateCallbackSecretSchema, req.body ?? {});
      const secrets = await rotateCallbackSecret(
        db,
        accountIdOf(res),
        newCallbackSecret(),
        grace_seconds ?? DEFAULT_SECRET_GRACE_SECONDS,
      );
      if (!secrets) throw HttpError.unauthorized('Account no longer exists');
      res.set('Cache-Control', 'no-store').json({ data: callbackSecretView(secrets) });
    }),
  );
  return router;
}
