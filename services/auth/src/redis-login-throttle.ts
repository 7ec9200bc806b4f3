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
 * window in ms, then each key's limit. Returns {0, 0} when admitted, else {index, ms left}.
 */
const ADMIT = `
for i, key in ipairs(KEYS) do
  local count = tonumber(redis.call('GET', key) or '0')
  if count >= tonumber(ARGV[i + 1]) then
    local ttl = redis.call('PTTL', key)
    if ttl < 0 then ttl = tonumber(ARGV[1]) end
    return {i, ttl}
  end
end
for _, key in ipairs(KEYS) do
  if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
end
return {0, 0}
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
        ...keys.map((k) => String(k.limit)),
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
