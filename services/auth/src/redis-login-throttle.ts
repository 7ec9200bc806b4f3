import Redis from 'ioredis';
import type { Logger } from '@smsgw/kit';
import {
  MemoryLoginThrottle,
  throttleKeyId,
  type Admission,
  type LoginThrottle,
  type ThrottleKey,
} from './login-throttle';

/**
 * MemoryLoginThrottle.admit for every key at once, atomically. KEYS: the counters; ARGV: the
 * window in ms, then each key's limit (-1 when not enforced). Returns {0, 0} when admitted, else
 * {index, ms left} of the first key that refused.
 */
const ADMIT = `
local refused, left = 0, 0
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[i + 1])
  local count = redis.call('INCR', key)
  if count == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
  if refused == 0 and limit >= 0 and count > limit then
    refused = i
    left = redis.call('PTTL', key)
    if left < 0 then left = tonumber(ARGV[1]) end
  end
end
return {refused, left}
`;

/** Decrements counters that are still there and above zero; DECR keeps their expiry. */
const FORGIVE = `
for _, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key) or '0') > 0 then redis.call('DECR', key) end
end
return 0
`;

interface ThrottleCommands {
  smsgwLoginAdmit(n: number, ...args: string[]): Promise<[number, number]>;
  smsgwLoginForgive(n: number, ...args: string[]): Promise<number>;
}

/**
 * The counters every auth replica shares. While Redis does not answer, each replica counts in
 * its own memory instead: logins keep working and stay limited, per replica.
 */
export class RedisLoginThrottle implements LoginThrottle {
  private readonly redis: Redis;
  private readonly fallback: MemoryLoginThrottle;

  constructor(
    url: string,
    private readonly windowMs: number,
    private readonly logger?: Logger,
    private readonly prefix = 'smsgw:login',
  ) {
    // Commands fail at once while Redis is away, so a login never waits for a reconnection.
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    this.redis.on('error', () => undefined);
    this.redis.defineCommand('smsgwLoginAdmit', { lua: ADMIT });
    this.redis.defineCommand('smsgwLoginForgive', { lua: FORGIVE });
    this.fallback = new MemoryLoginThrottle(windowMs);
  }

  private get commands(): ThrottleCommands {
    return this.redis as unknown as ThrottleCommands;
  }

  private keys(keys: readonly ThrottleKey[]): string[] {
    return keys.map((k) => `${this.prefix}:${throttleKeyId(k)}`);
  }

  async admit(keys: readonly ThrottleKey[]): Promise<Admission> {
    if (keys.length === 0) return { admitted: true };
    try {
      const [index, ttlMs] = await this.commands.smsgwLoginAdmit(
        keys.length,
        ...this.keys(keys),
        String(this.windowMs),
        ...keys.map((k) => String(k.enforced ? k.limit : -1)),
      );
      if (index === 0) return { admitted: true };
      return {
        admitted: false,
        scope: keys[index - 1].scope,
        retryAfterSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
      };
    } catch (err) {
      this.logger?.warn({ err }, 'login throttle: Redis unavailable, counting in memory');
      return this.fallback.admit(keys);
    }
  }

  async forgive(keys: readonly ThrottleKey[]): Promise<void> {
    if (keys.length === 0) return;
    try {
      await this.commands.smsgwLoginForgive(keys.length, ...this.keys(keys));
    } catch {
      await this.fallback.forgive(keys);
    }
  }

  isReady(): boolean {
    return this.redis.status === 'ready';
  }

  async close(): Promise<void> {
    this.redis.disconnect();
    return Promise.resolve();
  }
}
