import Redis from 'ioredis';
import type { Logger } from '@smsgw/kit';
import { MemoryFlags, type FlagStore } from './verified-credentials';

/**
 * Verified credentials in Redis, so that every auth replica, and a replica restarted or rolled
 * out, knows them. Each replica also keeps what it saw in memory, and answers from there while
 * Redis does not answer.
 */
export class RedisFlags implements FlagStore {
  private readonly redis: Redis;
  private readonly fallback = new MemoryFlags();

  constructor(
    url: string,
    private readonly logger?: Logger,
    private readonly prefix = 'smsgw:login:verified',
  ) {
    // Commands fail at once while Redis is away, so a login never waits for a reconnection.
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    this.redis.on('error', () => undefined);
  }

  private keys(ids: readonly string[]): string[] {
    return ids.map((id) => `${this.prefix}:${id}`);
  }

  async has(ids: readonly string[]): Promise<boolean[]> {
    if (ids.length === 0) return [];
    try {
      const values = await this.redis.mget(...this.keys(ids));
      return values.map((value) => value !== null);
    } catch (err) {
      this.logger?.warn({ err }, 'verified credentials: Redis unavailable, reading memory');
      return this.fallback.has(ids);
    }
  }

  async set(ids: readonly string[], ttlMs: number): Promise<void> {
    await this.fallback.set(ids, ttlMs);
    const pipeline = this.redis.pipeline();
    for (const key of this.keys(ids)) pipeline.set(key, '1', 'PX', ttlMs);
    await pipeline.exec().catch((err: unknown) => {
      this.logger?.warn({ err }, 'verified credentials: Redis unavailable, kept in memory');
    });
  }

  async delete(ids: readonly string[]): Promise<void> {
    await this.fallback.delete(ids);
    if (ids.length === 0) return;
    await this.redis.del(...this.keys(ids)).catch((err: unknown) => {
      this.logger?.warn({ err }, 'verified credentials: Redis unavailable, forgotten in memory');
    });
  }

  isReady(): boolean {
    return this.redis.status === 'ready';
  }

  close(): Promise<void> {
    this.redis.disconnect();
    return Promise.resolve();
  }
}
