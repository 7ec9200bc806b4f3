import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { createLogger } from '@smsgw/kit';
import { waitFor } from '@smsgw/kit/testing';
import { RedisAccountLimits } from '../src/account-limits';

// Runs with REDIS_URL (CI sets it); jest.config.js leaves this file out otherwise.
const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const LEASE_MS = 400;

describe('RedisAccountLimits: max_sessions across replicas', () => {
  const account = `test-${randomBytes(4).toString('hex')}`;
  const key = `smsgw:smpp:sessions:${account}`;
  let redis: Redis;
  let a: RedisAccountLimits;
  let b: RedisAccountLimits;
  beforeAll(() => {
    redis = new Redis(redisUrl);
    const logger = createLogger('test', 'silent');
    a = new RedisAccountLimits(redisUrl, logger, LEASE_MS);
    b = new RedisAccountLimits(redisUrl, logger, LEASE_MS);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await redis.del(key);
    redis.disconnect();
  });

  it('holds the limit while the bound session is renewed, past many leases', async () => {
    expect(await a.openSession(account, 'first', 1)).toBe(true);
    for (let lease = 0; lease < 5; lease++) {
      // Three quarters of a lease on, as the replica's timer renews: the set must live on as long
      // as its session does, not lapse a lease after its first member came.
      const due = Date.now() + (3 * LEASE_MS) / 4;
      await waitFor(() => (Date.now() >= due ? true : undefined), 5_000, 'time to renew', 20);
      await a.renew();
      expect(await redis.pttl(key)).toBeGreaterThan(LEASE_MS / 2);
      expect(await b.openSession(account, 'second', 1)).toBe(false);
    }
    expect(await redis.zrange(key, 0, -1)).toEqual(['first']);
  });

  it('frees the place of a replica that died once its lease lapses', async () => {
    await a.closeSession(account, 'first');
    // A place as a replica took it before it died: nobody renews it.
    await redis.zadd(key, Date.now() + LEASE_MS, 'dead-replica');
    await redis.pexpire(key, LEASE_MS);
    expect(await b.openSession(account, 'second', 1)).toBe(false);
    expect(
      await waitFor(
        async () => ((await b.openSession(account, 'second', 1)) ? true : undefined),
        10_000,
        'the dead place lapsed',
        LEASE_MS / 4,
      ),
    ).toBe(true);
  });
});
