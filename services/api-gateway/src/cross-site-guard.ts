import cors from 'cors';
import type { RequestHandler } from 'express';
import { HttpError } from '@smsgw/kit';

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

/**
 * Refuses requests a browser makes on behalf of another site: a page elsewhere could otherwise
 * post a form or text/plain body to /secure/send. A request whose Origin is one of
 * CORS_ALLOWED_ORIGINS is a browser app the operator trusts, and gets CORS headers instead.
 * Clients that are not browsers send neither header and are not affected.
 */
export function crossSiteGuard(allowedOrigins: readonly string[]): RequestHandler[] {
  const allowed = new Set(allowedOrigins.map((o) => o.replace(/\/+$/, '').toLowerCase()));
  const refuse: RequestHandler = (req, _res, next) => {
    const origin = req.headers.origin;
    const site = req.headers['sec-fetch-site'];
    // Browsers send Origin on same-origin posts too (a page the gateway serves itself).
    const sameOrigin =
      site === 'same-origin' ||
      (site === undefined && origin !== undefined && hostOf(origin) === req.headers.host);
    const trusted = origin !== undefined && allowed.has(origin.toLowerCase());
    if (sameOrigin || trusted || (origin === undefined && site !== 'cross-site')) {
      next();
      return;
    }
    next(
      new HttpError(
        'FORBIDDEN',
        origin !== undefined
          ? `Requests from origin ${origin} are not allowed (see CORS_ALLOWED_ORIGINS)`
          : 'Cross-site requests are not allowed',
      ),
    );
  };
  if (allowed.size === 0) return [refuse];
  return [refuse, cors({ origin: [...allowed], credentials: false, maxAge: 600 })];
}
