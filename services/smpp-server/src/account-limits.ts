import Redis from 'ioredis';
import type { Logger } from '@smsgw/kit';

/**
 * The limits an account's sessions share across every smpp-server replica: how many sessions it
 * holds at once, and how many messages per second they submit.
 */
export interface AccountLimits {
  /** Takes one of the account's `max` session places for `sessionId`; false when all are taken. */
  openSession(accountId: string, sessionId: string, max: number): Promise<boolean>;
  closeSession(accountId: string, sessionId: string): Promise<void>;
  /** Counts one message in this second; false when the account is past `perSecond`. */
  takeMessage(accountId: string, perSecond: number): Promise<boolean>;
  close(): Promise<void>;
}

/** One process (embedded mode without Redis): the limits are this process's. */
export class MemoryAccountLimits implements AccountLimits {
  private readonly sessions = new Map<string, Set<string>>();
  private readonly counts = new Map<string, { second: number; count: number }>();

  openSession(accountId: string, sessionId: string, max: number): Promise<boolean> {
    const held = this.sessions.get(accountId) ?? new Set<string>();
    if (held.size >= max) return Promise.resolve(false);
    held.add(sessionId);
    this.sessions.set(accountId, held);
    return Promise.resolve(true);
  }

  closeSession(accountId: string, sessionId: string): Promise<void> {
    const held = this.sessions.get(accountId);
    held?.delete(sessionId);
    if (held?.size === 0) this.sessions.delete(accountId);
    return Promise.resolve();
  }

  takeMessage(accountId: string, perSecond: number): Promise<boolean> {
    const second = Math.floor(Date.now() / 1000);
    const entry = this.counts.get(accountId);
    if (!entry || entry.second !== second) {
      this.counts.set(accountId, { second, count: 1 });
      return Promise.resolve(1 <= perSecond);
    }
    entry.count += 1;
    return Promise.resolve(entry.count <= perSecond);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * A session place: a member of the account's sorted set, scored by when it lapses. A replica
 * renews its sessions' places while they live, so the places of a replica that died lapse by
 * themselves. The set's own expiry moves with every place taken or renewed: set only when a
 * member was added, it lapsed under live sessions and let a bind past the limit in.
 * KEYS: the set; ARGV: session id, now, lapse, max.
 */
const OPEN = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and
   redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) - tonumber(ARGV[2]))
return 1
`;

/** The count of this second's messages, kept two seconds. */
const TAKE = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], 2000) end
return count
`;

interface LimitCommands {
  smsgwSmppOpen(key: string, ...args: string[]): Promise<number>;
  smsgwSmppTake(key: string): Promise<number>;
}

/** How long a session's place lives without renewal. */
const LEASE_MS = 30_000;

/** The limits in Redis, shared by every replica. */
export class RedisAccountLimits implements AccountLimits {
  private readonly redis: Redis & LimitCommands;
  private readonly held = new Map<string, string>();
  private readonly renewal: NodeJS.Timeout;

  /** `namespace`: the bus namespace, as the dispatcher's keys have it (one deployment, one set). */
  constructor(
    url: string,
    private readonly logger: Logger,
    private readonly leaseMs = LEASE_MS,
    private readonly namespace = 'smsgw',
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 2 }) as Redis & LimitCommands;
    this.redis.on('error', (err) => logger.warn({ err }, 'redis (SMPP limits)'));
    this.redis.defineCommand('smsgwSmppOpen', { numberOfKeys: 1, lua: OPEN });
    this.redis.defineCommand('smsgwSmppTake', { numberOfKeys: 1, lua: TAKE });
    this.renewal = setInterval(() => void this.renew(), leaseMs / 3);
    this.renewal.unref();
  }

  /**
   * Renews the places of this replica's sessions. A live session keeps its place even past the
   * limit (after Redis lost the set, say): it is bound, and the limit holds for new binds.
   */
  async renew(): Promise<void> {
    await Promise.all(
      [...this.held].map(([sessionId, accountId]) =>
        this.place(accountId, sessionId, Number.MAX_SAFE_INTEGER).catch((err: unknown) =>
          this.logger.warn({ err }, 'renewing an SMPP session place failed'),
        ),
      ),
    );
  }

  private async place(accountId: string, sessionId: string, max: number): Promise<boolean> {
    const now = Date.now();
    const placed = await this.redis.smsgwSmppOpen(
      this.sessionsKey(accountId),
      sessionId,
      String(now),
      String(now + this.leaseMs),
      String(max),
    );
    return placed === 1;
  }

  private sessionsKey(accountId: string): string {
    return `${this.namespace}:smpp:sessions:${accountId}`;
  }

  async openSession(accountId: string, sessionId: string, max: number): Promise<boolean> {
    const placed = await this.place(accountId, sessionId, max);
    if (placed) this.held.set(sessionId, accountId);
    return placed;
  }

  async closeSession(accountId: string, sessionId: string): Promise<void> {
    this.held.delete(sessionId);
    await this.redis.zrem(this.sessionsKey(accountId), sessionId);
  }

  async takeMessage(accountId: string, perSecond: number): Promise<boolean> {
    const second = Math.floor(Date.now() / 1000);
    return (
      (await this.redis.smsgwSmppTake(`${this.namespace}:smpp:rate:${accountId}:${second}`)) <=
      perSecond
    );
  }

  async close(): Promise<void> {
    clearInterval(this.renewal);
    await Promise.all(
      [...this.held].map(([sessionId, accountId]) =>
        this.closeSession(accountId, sessionId).catch(() => undefined),
      ),
    );
    this.redis.disconnect();
  }
}
