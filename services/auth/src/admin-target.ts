import type { Request, Response } from 'express';

/**
 * Characters a path segment may hold as they are (RFC 3986 pchar): kept readable, so a target
 * reads `/accounts/a@b` as an operator types it in a search.
 */
const KEPT_ESCAPES = /%(?:21|24|26|27|28|29|2A|2B|2C|3A|3B|3D|40)/gi;

function encodeSegment(value: string): string {
  return encodeURIComponent(value).replace(KEPT_ESCAPES, (escape) => decodeURIComponent(escape));
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    // A malformed escape matched no route; it is kept as sent, escaped once more.
    return segment;
  }
}

/** A path that matched no route, each segment decoded and encoded again, without a trailing slash. */
export function canonicalPath(path: string): string {
  const segments = path.split('/').filter((s) => s !== '');
  return segments.map((s) => `/${encodeSegment(decodeSegment(s))}`).join('');
}

/**
 * The target of a matched route: its declared path with the decoded parameters put in, so every
 * spelling of one request (the case express ignores, percent-escapes it decodes, a trailing slash)
 * names the same target.
 */
export function routeTarget(routePath: string, params: Record<string, string>): string {
  return routePath.replace(/:(\w+)/g, (_, name: string) => encodeSegment(params[name] ?? ''));
}

const NOTED = 'auditTarget';

/**
 * Notes the target of the route this request matched, relative to the admin router. Called by the
 * first handler of every admin route: later (once an error has left the router) express has put
 * the parameters back to the parent router's.
 */
export function noteAuditTarget(req: Request, res: Response): void {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path !== 'string') return;
  const mount = (res.locals['adminMount'] as string | undefined) ?? '';
  const under = req.baseUrl.startsWith(mount) ? req.baseUrl.slice(mount.length) : '';
  res.locals[NOTED] =
    canonicalPath(under) + routeTarget(path, req.params as Record<string, string>);
}

/** The noted target, or the request's own path made canonical when no route matched. */
export function auditTarget(req: Request, res: Response): string {
  const noted = res.locals[NOTED] as string | undefined;
  if (noted !== undefined) return noted;
  const mount = (res.locals['adminMount'] as string | undefined) ?? '';
  const path = req.originalUrl.split('?')[0] ?? '';
  return canonicalPath(path.startsWith(mount) ? path.slice(mount.length) : path) || '/';
}
