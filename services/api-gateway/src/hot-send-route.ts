import { IDEMPOTENCY_KEY_HEADER } from '@smsgw/contracts';
import {
  answerError,
  isJsonMediaType,
  isPlainJsonBody,
  readPlainJson,
  writeJson,
  type HotRoute,
  type Logger,
  type RequestMeter,
} from '@smsgw/kit';
import type { RequestCaller } from './request-caller';
import { SEND_PATH, type SendHandler } from './send-handler';

const IDEMPOTENCY_KEY = IDEMPOTENCY_KEY_HEADER.toLowerCase();

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
 * would only pass them on: no Origin or Sec-Fetch-Site (the cross-site guard), no Idempotency-Key,
 * a JSON body of known length without content coding. Every other request, and every request
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
      headers.origin !== undefined ||
      headers['sec-fetch-site'] !== undefined ||
      headers[IDEMPOTENCY_KEY] !== undefined ||
      !req.readable ||
      !isJsonMediaType(headers['content-type']) ||
      !isPlainJsonBody(headers, maxBodyBytes)
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
