import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Db } from '@smsgw/kit';
import { connectorInboundSecrets } from '@smsgw/store';

/** The secret a request presents: `Bearer <secret>`, or Basic with the connector as user name. */
function presentedSecret(headers: IncomingHttpHeaders, connector: string): string | undefined {
  const header = headers.authorization;
  if (header === undefined) return undefined;
  if (header.startsWith('Bearer ')) return header.slice('Bearer '.length);
  if (header.startsWith('Basic ')) {
    const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0 && decoded.slice(0, colon) === connector) return decoded.slice(colon + 1);
  }
  return undefined;
}

/**
 * Which HTTP upstream a request comes from, by its headers alone: the connector named in the path,
 * when the secret presented is the one stored with that connector. The stored hashes are read
 * again at most every `ttlMs`, in one statement for all connectors, so a flood of requests with
 * made-up names or secrets costs no query each, and a new secret takes effect within `ttlMs`.
 */
export class InboundCredentials {
  private cached: { at: number; hashes: Promise<Map<string, string>> } | undefined;

  constructor(
    private readonly db: Db,
    private readonly ttlMs = 2_000,
  ) {}

  private hashes(): Promise<Map<string, string>> {
    if (!this.cached || Date.now() - this.cached.at > this.ttlMs) {
      const hashes = connectorInboundSecrets(this.db);
      this.cached = { at: Date.now(), hashes };
      hashes.catch(() => (this.cached = undefined));
    }
    return this.cached.hashes;
  }

  /** true only for a connector that has a secret, presented as it. */
  async authenticates(connector: string, headers: IncomingHttpHeaders): Promise<boolean> {
    const given = presentedSecret(headers, connector);
    const expected = (await this.hashes()).get(connector);
    if (given === undefined || expected === undefined) return false;
    // Compared as digests of equal length: the time taken tells nothing of the secret.
    const digest = createHash('sha256').update(given).digest();
    const stored = Buffer.from(expected, 'hex');
    return stored.length === digest.length && timingSafeEqual(digest, stored);
  }
}
