import type { IncomingMessage } from 'node:http';
import { parse, serialize } from 'cookie';

/** The console's cookie: its value is the session's random id, never readable by the page's script. */
export const SESSION_COOKIE = 'smsgw_console';

/** The header a state-changing request of the console carries its session's CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

/** The session cookie's value in a request, if it carries one. */
export function sessionCookieOf(req: IncomingMessage): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  const value = parse(header)[SESSION_COOKIE];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The Set-Cookie of a session: HttpOnly (script cannot read it), SameSite=Strict (a browser sends
 * it only with requests made by the gateway's own pages), Secure behind TLS, for every path of the
 * gateway (the console calls /secure/ and /admin/v1/ with it).
 */
export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return serialize(SESSION_COOKIE, value, {
    httpOnly: true,
    sameSite: 'strict',
    secure,
    path: '/',
    maxAge: maxAgeSeconds,
  });
}

/** The Set-Cookie that removes the session cookie (a logout). */
export function clearedSessionCookie(secure: boolean): string {
  return serialize(SESSION_COOKIE, '', {
    httpOnly: true,
    sameSite: 'strict',
    secure,
    path: '/',
    maxAge: 0,
  });
}
