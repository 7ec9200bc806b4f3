import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
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

/** The eight 16-bit groups of an IPv6 address, or undefined when it is not one. */
function ipv6Groups(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.split('%')[0].toLowerCase();
  // A trailing dotted quad (::ffff:192.0.2.1) is the last two groups.
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number);
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) =>
    part ? part.split(':').map((group) => parseInt(group, 16)) : [];
  const front = parse(head);
  const back = parse(tail);
  const zeros = tail === undefined ? [] : new Array<number>(8 - front.length - back.length).fill(0);
  return [...front, ...zeros, ...back];
}

/**
 * What limits count a client by: an IPv4 address as it is (a mapped one as IPv4), an IPv6 address
 * by its /64, the smallest network a site is given, so a client cannot spread over its own prefix.
 */
export function addressKey(address: string): string {
  const groups = ipv6Groups(address);
  if (!groups) return address;
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
