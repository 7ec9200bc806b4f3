import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup as dnsLookupAll } from 'node:dns/promises';

/**
 * Addresses a URL given through an API (a customer's callback, an admin's HTTP connector) must not
 * reach (promise 7): loopback, private, link-local, metadata, …
 */
const FORBIDDEN = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  FORBIDDEN.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  FORBIDDEN.addSubnet(net, prefix, 'ipv6');
}

export class UrlRefusedError extends Error {
  override name = 'UrlRefusedError';
}

/** IPv4-mapped IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it carries. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1], family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/**
 * Decides which addresses callbacks and HTTP connectors may connect to. It runs as the socket's DNS
 * lookup, so the address checked is the address connected to (no window for DNS rebinding).
 */
export class UrlGuard {
  private readonly allowedHosts = new Set<string>();
  private readonly allowedNets = new BlockList();

  /**
   * Entries of the allow-list (CALLBACK_ALLOWED_HOSTS, CONNECTOR_ALLOWED_HOSTS): host names, IP
   * addresses or CIDRs; `variable` is named in refusals, so an operator knows what to set.
   */
  constructor(
    allowed: readonly string[],
    private readonly variable = 'CALLBACK_ALLOWED_HOSTS',
  ) {
    for (const entry of allowed) {
      const [net, prefix] = entry.split('/');
      const family = isIP(net ?? '');
      if (family !== 0 && prefix !== undefined)
        this.allowedNets.addSubnet(net, Number(prefix), family === 6 ? 'ipv6' : 'ipv4');
      else if (family !== 0) this.allowedNets.addAddress(net, family === 6 ? 'ipv6' : 'ipv4');
      else this.allowedHosts.add(entry.toLowerCase());
    }
  }

  /** Why an address may not be reached, or undefined when it may. */
  refusal(hostname: string, address: string): string | undefined {
    if (this.allowedHosts.has(hostname.toLowerCase())) return undefined;
    const { address: ip, family } = unmapped(address);
    if (this.allowedNets.check(ip, family)) return undefined;
    if (FORBIDDEN.check(ip, family))
      return `${hostname} resolves to ${address}, a private, loopback or link-local address (allow it with ${this.variable})`;
    return undefined;
  }

  /**
   * Why a URL's host may not be reached when it is an IP literal: sockets skip the DNS lookup, and
   * so `lookup` below, for those.
   */
  literalRefusal(url: URL): string | undefined {
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    return isIP(literal) !== 0 ? this.refusal(literal, literal) : undefined;
  }

  /**
   * Refuses (UrlRefusedError) a URL whose host resolves to a forbidden address, before it is
   * stored. A name that does not resolve yet passes: the lookup below checks again at each
   * connection, as DNS may answer otherwise later.
   */
  async check(url: string): Promise<void> {
    const hostname = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (this.allowedHosts.has(hostname.toLowerCase())) return;
    let addresses: LookupAddress[];
    try {
      addresses = isIP(hostname)
        ? [{ address: hostname, family: isIP(hostname) }]
        : await dnsLookupAll(hostname, { all: true });
    } catch {
      return;
    }
    for (const a of addresses) {
      const why = this.refusal(hostname, a.address);
      if (why) throw new UrlRefusedError(why);
    }
  }

  /** A `lookup` for http.request that resolves and refuses forbidden addresses. */
  readonly lookup = (
    hostname: string,
    options: { family?: number | string; all?: boolean },
    callback: (
      err: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void,
  ): void => {
    dnsLookup(
      hostname,
      { all: true, family: typeof options.family === 'number' ? options.family : 0 },
      (err, addresses) => {
        if (err) return callback(err, '');
        for (const a of addresses) {
          const why = this.refusal(hostname, a.address);
          if (why) return callback(new UrlRefusedError(why), '');
        }
        if (options.all) return callback(null, addresses);
        const first = addresses[0];
        callback(null, first.address, first.family);
      },
    );
  };
}
