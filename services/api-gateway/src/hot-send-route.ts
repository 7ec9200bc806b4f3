import {
  answerError,
  readPlainJson,
  writeJson,
  type HotRoute,
  type Logger,
  type RequestMeter,
} from '@smsgw/kit';
import type { RequestCaller } from './request-caller';
import { SEND_PATH, type SendHandler } from './send-handler';
import { hotPathMayTake } from './edge/edge-guards';

export interface HotSendRouteOptions {
  send: SendHandler;
  caller: RequestCaller;
  maxBodyBytes: number;
  corsAllowedOrigins: readonly string[];
  meter: RequestMeter;
  logger: Logger;
}

/**
 * POST /secure/send without express, for the requests whose every middleware on express's way
 * would only pass them on (edge-guards.ts HOT_PATH_PASSES: the cross-site guard, the body limit,
 * the Idempotency-Key). Every other request, and every request
 * when CORS origins are configured (CORS adds its headers to every answer), goes to express. Same
 * answers, metrics and order (credentials before the body) as express's route: express's routing
 * and its request and response objects cost the gateway more than its own work on this route
 * (docs/decisions.md § HTTP).
 */
export function hotSendRoute(options: HotSendRouteOptions): HotRoute | undefined {
  if (options.corsAllowedOrigins.length > 0) return undefined;
  const { send, caller, maxBodyBytes, meter, logger } = options;
  return (req, res) => {
    const headers = req.headers;
    if (
      req.method !== 'POST' ||
      req.url !== SEND_PATH ||
      !req.readable ||
      !hotPathMayTake(headers, maxBodyBytes)
    )
      return false;
    let route = 'unmatched';
    meter(req, res, () => route);
    const fail = (err: unknown): void => answerError(res, err, logger, req.method, SEND_PATH);
    caller(req)
      .then(async (principal) => {
        route = SEND_PATH;
        const body = await readPlainJson(req);
        writeJson(res, 200, await send(principal, body));
      })
      .catch(fail);
    return true;
  };
}
