import { MemoryRateLimiter } from './memory-rate-limiter';
import type { RateLimiter } from './rate-limiter';
import { RedisRateLimiter } from './redis-rate-limiter';

/**
 * Redis when REDIS_URL is set (shared by every dispatcher), else this process's memory
 * (docs/architecture.md § The parts).
 */
export function openRateLimiter(redisUrl: string | undefined, namespace: string): RateLimiter {
  return redisUrl ? new RedisRateLimiter(redisUrl, namespace) : new MemoryRateLimiter();
}
