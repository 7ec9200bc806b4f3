import { isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import { boundedCache, HttpError, UrlGuard } from '@smsgw/kit';

/** Resolves a host name to its addresses (node:dns by default; tests count the calls). */
export type HostResolver = (hostname: string) => Promise<string[]>;

/**
 * A resolver that does not answer in time is taken as no answer (the name passes here, and the
 * notifier checks it when it calls): a slow DNS server must not hold up the sends that name it.
 */
const LOOKUP_TIMEOUT_MS = 2000;

const resolveWithDns: HostResolver = async (hostname) => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('DNS lookup timed out')), LOOKUP_TIMEOUT_MS);
    timer.unref();
  });
  try {
    const found = await Promise.race([lookup(hostname, { all: true }), late]);
    return found.map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
};

export interface CallbackUrlCheckOptions {
  /** How long a host name's verdict is kept: one lookup per name per period. */
  ttlMs: number;
  /** Host names remembered at most (least recently used forgotten first). */
  maxHosts: number;
  resolve?: HostResolver;
}

/**
 * Refuses at acceptance a callback URL (dlr-url, a batch's callback_url and errback_url) whose host
 * is a private, loopback or link-local address that CALLBACK_ALLOWED_HOSTS does not allow, so the
 * client learns it at once instead of its reports being dropped later. An IP literal is judged at
 * once; a name is resolved once per TTL (sends are not held up by a lookup each), and a name that
 * does not resolve passes: the notifier checks every connection again, as DNS may change.
 */
export class CallbackUrlCheck {
  private readonly verdicts;
  private readonly resolve: HostResolver;

  constructor(
    private readonly guard: UrlGuard,
    options: CallbackUrlCheckOptions,
  ) {
    // The verdict is the refusal, or '' for a host that may be called.
    this.verdicts = boundedCache<string, Promise<string>>(options.maxHosts, options.ttlMs);
    this.resolve = options.resolve ?? resolveWithDns;
  }

  /** Throws a 400 naming `field` when `url`'s host may not be called back. */
  async check(field: string, url: string | null | undefined): Promise<void> {
    if (url === undefined || url === null) return;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw HttpError.invalid(field, 'is not a valid URL');
    }
    // The customer is told the host it gave, never what that name resolves to on our network.
    if (await this.refusalFor(parsed))
      throw HttpError.invalid(
        field,
        `${parsed.hostname} is a private, loopback or link-local address; callbacks are not sent there`,
      );
  }

  private refusalFor(url: URL): string | undefined | Promise<string> {
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (isIP(host) !== 0) return this.guard.refusal(host, host);
    const known = this.verdicts.get(host);
    if (known) return known;
    const verdict = this.resolve(host).then(
      (addresses) => {
        for (const address of addresses) {
          const why = this.guard.refusal(host, address);
          if (why) return why;
        }
        return '';
      },
      () => '',
    );
    this.verdicts.set(host, verdict);
    return verdict;
  }
}

/** The gateway's check from CALLBACK_ALLOWED_HOSTS. */
export function callbackUrlCheck(allowedHosts: readonly string[]): CallbackUrlCheck {
  return new CallbackUrlCheck(new UrlGuard(allowedHosts), {
    ttlMs: CALLBACK_HOST_TTL_MS,
    maxHosts: CALLBACK_HOSTS_CACHED,
  });
}

/** Short enough that a name moved to a private address is refused again soon. */
const CALLBACK_HOST_TTL_MS = 60_000;
const CALLBACK_HOSTS_CACHED = 10_000;
