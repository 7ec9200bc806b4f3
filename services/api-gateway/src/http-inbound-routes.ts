import express, { Router, type RequestHandler } from 'express';
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
import type { InboundCredentials } from './inbound-credentials';

export interface HttpInboundDeps {
  /** The secrets stored with the connectors. */
  credentials: InboundCredentials;
  bus: Bus;
  logger: Logger;
}

/** The same window as SMPP inbound messages: a repeat within it is recorded once. */
const DEDUP_WINDOW_MS = 600_000;

/** Where createHttpInboundRoutes is mounted. */
export const HTTP_INBOUND_PATH = '/inbound/v1/http';

/**
 * `POST /inbound/v1/http/{connector}`: an HTTP upstream delivers an inbound message, authenticated
 * as that connector by the secret stored with it (`Authorization: Bearer <secret>`, or Basic with
 * the connector's name). The headers alone decide: a request that is not the connector's is
 * refused before its body is read. Recorded like one from an SMPP session, then routed by the
 * notifier (by that connector's MO routes); answered once recorded.
 */
export function createHttpInboundRoutes(
  db: Db,
  deps: HttpInboundDeps,
  maxBodyBytes: number,
): Router {
  const router = Router();
  const authenticate: RequestHandler = (req, res, next) => {
    const connector = String(req.params['connector']);
    deps.credentials.authenticates(connector, req.headers).then((ok) => {
      if (ok) return next();
      // The body stays unread: the connection closes after the answer.
      res.setHeader('Connection', 'close');
      res.setHeader('WWW-Authenticate', 'Bearer');
      // An unknown connector, one without a secret and a wrong secret look the same to the caller.
      next(HttpError.unauthorized('Unknown connector or wrong secret'));
    }, next);
  };
  router.post(
    '/:connector',
    authenticate,
    express.urlencoded({ extended: false, limit: maxBodyBytes, parameterLimit: 20 }),
    ...jsonBody(maxBodyBytes),
    asyncRoute(async (req, res) => {
      const connector = String(req.params['connector']);
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
