import Redis from 'ioredis';
import { BURST, type RateCap, type RateLimiter } from './rate-limiter';

/**
 * gcraReserve (gcra.ts) for every key at once, atomically, on Redis's clock (dispatchers' clocks
 * may differ). KEYS: the caps' keys; ARGV: cost, burst, then each cap's rate. Returns the wait in
 * ms.
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local cost = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local wait = 0
for i, key in ipairs(KEYS) do
  local interval = 1000 / tonumber(ARGV[2 + i])
  local tat = tonumber(redis.call('GET', key) or now)
  if tat < now then tat = now end
  local nextTat = tat + interval * cost
  local w = nextTat - now - interval * burst
  if w > wait then wait = w end
  redis.call('SET', key, tostring(nextTat), 'PX', math.ceil(nextTat - now + 60000))
end
return tostring(wait)
`;

/**
 * The cluster-wide cap, shared by every dispatcher through Redis (not bottleneck's Redis mode:
 * docs/architecture.md § Throughput caps).
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    // Commands fail at once while Redis is away: the dispatcher pauses instead of queueing blindly.
    this.redis = new Redis(url, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      lazyConnect: false,
    });
    this.redis.on('error', () => undefined);
    this.redis.defineCommand('smsgwReserve', { lua: RESERVE });
  }

  async reserve(caps: readonly RateCap[], cost: number): Promise<number> {
    if (caps.length === 0) return 0;
    const keys = caps.map((c) => `${this.prefix}:rate:${c.key}`);
    const rates = caps.map((c) => String(c.perSecond));
    const reply = await (
      this.redis as unknown as { smsgwReserve(n: number, ...args: string[]): Promise<string> }
    ).smsgwReserve(keys.length, ...keys, String(cost), String(BURST), ...rates);
    return Math.max(0, Number(reply));
  }

  isReady(): boolean {
    return this.redis.status === 'ready';
  }

  close(): Promise<void> {
    this.redis.disconnect();
    return Promise.resolve();
  }
}
