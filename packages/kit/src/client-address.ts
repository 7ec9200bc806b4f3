import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

/** Which hops may name the client in `X-Forwarded-For` (proxy-addr's compiled trust). */
export type ProxyTrust = (address: string, hop: number) => boolean;

/** IP addresses, CIDR ranges and proxy-addr's names (`loopback`, `linklocal`, `uniquelocal`). */
export function compileProxyTrust(entries: readonly string[]): ProxyTrust {
  return entries.length === 0 ? () => false : proxyaddr.compile([...entries]);
}

/** A mapped IPv4 address counts as that IPv4 address, so one client has one key. */
function plain(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/**
 * The client's address: the socket's peer, or what `X-Forwarded-For` says when the peer (and each
 * hop before it) is a trusted proxy. A client cannot choose its address by sending the header.
 */
export function clientAddress(req: IncomingMessage, trust: ProxyTrust): string {
  return plain(proxyaddr(req, trust));
}
