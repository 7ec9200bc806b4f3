import { createHash, timingSafeEqual } from 'node:crypto';
import express, { Router, type Request } from 'express';
import { HttpInboundSchema, TOPICS } from '@smsgw/contracts';
import {
  asyncRoute,
  HttpError,
  jsonBody,
  parseInput,
  type Bus,
  type Db,
  type Logger,
} from '@smsgw/kit';
import { inboundRecord } from '@smsgw/smsc';
import { recordInboundMessage } from '@smsgw/store';

export interface HttpInboundDeps {
  /** Connector name → its secret (HTTP_INBOUND_SECRETS). */
  secrets: Readonly<Record<string, string>>;
  bus: Bus;
  logger: Logger;
}

/** Compared as digests: the time taken tells nothing of the secret. */
const sameSecret = (a: string, b: string) =>
  timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

/** The same window as SMPP inbound messages: a repeat within it is recorded once. */
const DEDUP_WINDOW_MS = 600_000;

/** Where createHttpInboundRoutes is mounted. */
export const HTTP_INBOUND_PATH = '/inbound/v1/http';

/**
 * `POST /inbound/v1/http/{connector}`: an HTTP upstream delivers an inbound message, authenticated
 * with that connector's secret (`Authorization: Bearer <secret>` or a `secret` field). Recorded like
 * one from an SMPP session, then routed by the notifier; answered once recorded.
 */
export function createHttpInboundRoutes(
  db: Db,
  deps: HttpInboundDeps,
  maxBodyBytes: number,
): Router {
  const router = Router();
  const secretOf = (req: Request): string | undefined => {
    const header = req.headers.authorization;
    if (header?.startsWith('Bearer ')) return header.slice('Bearer '.length);
    const body = req.body as Record<string, unknown> | undefined;
    return typeof body?.['secret'] === 'string' ? body['secret'] : undefined;
  };
  router.post(
    '/:connector',
    express.urlencoded({ extended: false, limit: maxBodyBytes, parameterLimit: 20 }),
    ...jsonBody(maxBodyBytes),
    asyncRoute(async (req, res) => {
      const connector = String(req.params['connector']);
      const expected = Object.hasOwn(deps.secrets, connector) ? deps.secrets[connector] : undefined;
      const given = secretOf(req);
      // An unknown connector and a wrong secret look the same to the caller.
      if (expected === undefined || given === undefined || !sameSecret(given, expected))
        throw HttpError.unauthorized('Unknown connector or wrong secret');
      const m = parseInput(HttpInboundSchema, req.body ?? {});
      const coding = m.coding ?? (m.text !== undefined ? 0 : 4);
      const record = inboundRecord({
        connector,
        from: m.from.replace(/^\+/, ''),
        to: m.to.replace(/^\+/, ''),
        coding,
        bytes: m.text !== undefined ? Buffer.from(m.text, 'utf8') : Buffer.from(m.binary!, 'hex'),
        ...(m.text !== undefined && { content: m.text }),
        partsExpected: 1,
        partsReceived: 1,
        dedupWindowMs: DEDUP_WINDOW_MS,
        now: Date.now(),
      });
      const fresh = await recordInboundMessage(db, record);
      if (fresh)
        await deps.bus
          .publish(TOPICS.inboundReceived, { inboundId: record.id })
          .catch((err: unknown) =>
            deps.logger.warn(
              { err, inboundId: record.id },
              'could not publish inbound.received; the sweep finds it',
            ),
          );
      res.json({
        data: fresh ? { id: record.id, recorded: true } : { recorded: false, repeat: true },
      });
    }),
  );
  return router;
}
