import type { IncomingMessage } from 'node:http';
import type { Principal } from '@smsgw/contracts';
import { clientAddress, HttpError, type ProxyTrust } from '@smsgw/kit';
import type { ConsoleSessions } from '@smsgw/console-session';
import type { CredentialVerifier } from './credential-client';

/** Who sent a request: its Authorization header checked, with its address as the trusted proxies tell it. */
export type RequestCaller = (req: IncomingMessage) => Promise<Principal>;

/**
 * Who sent a request that names its account in its parameters (Jasmin's HTTP interface, Kannel's
 * sendsms): the same check, login limits and cache as a Basic header with that name and password.
 */
export type ParamsCaller = (
  req: IncomingMessage,
  username: string | undefined,
  password: string | undefined,
) => Promise<Principal>;

/**
 * The caller of a request: by its Authorization header, or, without one, by a customer's web
 * console session (its cookie, and its CSRF token on a request that changes something).
 */
export function requestCaller(
  verifier: CredentialVerifier,
  trustedProxies: ProxyTrust,
  sessions?: ConsoleSessions,
): RequestCaller {
  // async: a bad forwarding header fails as a rejection, on both ways into /secure/send.
  return async (req) => {
    if (req.headers.authorization === undefined && sessions !== undefined) {
      const session = await sessions.find(req);
      if (session?.kind === 'customer' && session.accountId && session.username) {
        sessions.checkRequest(req, session);
        return { accountId: session.accountId, username: session.username, via: 'session' };
      }
    }
    return verifier.verify(req.headers.authorization, {
      address: clientAddress(req, trustedProxies),
    });
  };
}

export function paramsCaller(
  verifier: CredentialVerifier,
  trustedProxies: ProxyTrust,
): ParamsCaller {
  return async (req, username, password) => {
    // A colon cannot be told apart from Basic's separator; no account name has one.
    if (!username || !password || username.includes(':')) throw HttpError.unauthorized();
    const basic = `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
    return verifier.verify(basic, { address: clientAddress(req, trustedProxies) });
  };
}
