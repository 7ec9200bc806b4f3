import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { HotRoute, Logger, RequestMeter } from '@smsgw/kit';
import { HOT_PATH_PASSES } from './edge-guards';

/** A GET of Jasmin's /send or Kannel's sendsms answered from its URL alone. */
export type TextAnswerer = (
  req: IncomingMessage,
  body: Buffer | undefined,
) => Promise<{ status: number; text: string }>;

export interface LegacyHotRouteOptions {
  corsAllowedOrigins: readonly string[];
  meter: RequestMeter;
  logger: Logger;
}

/** A request without a body: neither a length above zero nor a chunked one. */
function hasNoBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
}

/**
 * GET /send and GET /cgi-bin/sendsms ahead of express, as POST /secure/send is (hot-send-route.ts):
 * these clients send in the query, so such a request has no body for the body limit to read and no
 * Idempotency-Key (edge-guards.ts exempts these entry points from it); the cross-site guard's check
 * is HOT_PATH_PASSES'. Any other request (POST forms, a cross-site one, any request when CORS
 * origins are configured) goes to express, whose route calls the same answerer. The other guards
 * (credentials, account, sender, opt-out, routing, credit) run in the answerer on both ways alike.
 */
export function legacyHotRoute(
  answerers: Readonly<Record<string, TextAnswerer>>,
  options: LegacyHotRouteOptions,
): HotRoute | undefined {
  if (options.corsAllowedOrigins.length > 0) return undefined;
  const { meter, logger } = options;
  return (req, res) => {
    if (req.method !== 'GET') return false;
    const url = req.url ?? '';
    const mark = url.indexOf('?');
    const path = mark < 0 ? url : url.slice(0, mark);
    const answerer = Object.hasOwn(answerers, path) ? answerers[path] : undefined;
    if (!answerer || !hasNoBody(req.headers) || !HOT_PATH_PASSES['cross-site'](req.headers, 0))
      return false;
    meter(req, res, () => path);
    answerer(req, undefined).then(
      ({ status, text }) => {
        res.writeHead(status, {
          'content-type': 'text/plain; charset=utf-8',
          'content-length': Buffer.byteLength(text),
        });
        res.end(text);
      },
      (err: unknown) => {
        // The answerers turn every refusal into their protocol's answer; this is a bug.
        logger.error({ err, path }, 'legacy request failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('Internal error');
      },
    );
    return true;
  };
}

/** Offers a request to each hot route in turn; the first that takes it answers it. */
export function firstHotRoute(...routes: (HotRoute | undefined)[]): HotRoute | undefined {
  const present = routes.filter((r): r is HotRoute => r !== undefined);
  if (present.length === 0) return undefined;
  return (req, res) => {
    for (const route of present) if (route(req, res)) return true;
    return false;
  };
}
