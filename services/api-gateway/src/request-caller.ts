import type { IncomingMessage } from 'node:http';
import type { Principal } from '@smsgw/contracts';
import { clientAddress, type ProxyTrust } from '@smsgw/kit';
import type { CredentialVerifier } from './credential-client';

/** Who sent a request: its Authorization header checked, with its address as the trusted proxies tell it. */
export type RequestCaller = (req: IncomingMessage) => Promise<Principal>;

export function requestCaller(
  verifier: CredentialVerifier,
  trustedProxies: ProxyTrust,
): RequestCaller {
  // async: a bad forwarding header fails as a rejection, on both ways into /secure/send.
  return async (req) =>
    verifier.verify(req.headers.authorization, { address: clientAddress(req, trustedProxies) });
}
