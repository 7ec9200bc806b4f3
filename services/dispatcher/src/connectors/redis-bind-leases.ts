import Redis from 'ioredis';
import type { BindLeases } from './bind-leases';

/** Extends the lease only if it is still the caller's: compare and expire in one step. */
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/**
 * Distributed mode: each slot is a Redis key set with NX and an expiry, so a dispatcher that dies
 * (SIGKILL, a lost host) loses its slot when the expiry passes and another takes it over.
 */
export class RedisBindLeases implements BindLeases {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly namespace: string,
  ) {
    this.redis = new Redis(url, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      lazyConnect: false,
    });
    // Errors surface as rejected commands; the holder then gives up its session in time.
    this.redis.on('error', () => undefined);
  }

  private key(connector: string, slot: number): string {
    return `${this.namespace}:bind-lease:${connector}:${slot}`;
  }

  async acquire(
    connector: string,
    binds: number,
    holder: string,
    ttlMs: number,
  ): Promise<number | undefined> {
    for (let slot = 0; slot < binds; slot++) {
      const taken = await this.redis.set(this.key(connector, slot), holder, 'PX', ttlMs, 'NX');
      if (taken === 'OK') return slot;
    }
    return undefined;
  }

  async renew(connector: string, slot: number, holder: string, ttlMs: number): Promise<boolean> {
    const result = await this.redis.eval(
      RENEW,
      1,
      this.key(connector, slot),
      holder,
      String(ttlMs),
    );
    return result === 1;
  }

  async release(connector: string, slot: number, holder: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key(connector, slot), holder);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
