import { randomBytes } from 'node:crypto';
import { waitFor } from '@smsgw/kit/testing';
import { RedisRateLimiter } from '../src/throughput/redis-rate-limiter';

// Runs with REDIS_URL (CI sets it); jest.config.js leaves this file out otherwise.
const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

describe('RedisRateLimiter', () => {
  const prefix = `test-${randomBytes(4).toString('hex')}`;
  let a: RedisRateLimiter;
  let b: RedisRateLimiter;
  beforeAll(async () => {
    a = new RedisRateLimiter(redisUrl, prefix);
    b = new RedisRateLimiter(redisUrl, prefix);
    await waitFor(() => a.isReady() && b.isReady(), 10_000, 'connected to Redis');
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('shares one cap between dispatchers: reservations from both queue up on one schedule', async () => {
    // One PDU per 10 s: the limiter only answers how long to wait, so nothing here waits, and the
    // milliseconds the calls take are nothing beside the 10 s between two reservations.
    const cap = [{ key: 'shared', perSecond: 0.1 }];
    const waits = [];
    for (let i = 0; i < 3; i++) {
      waits.push(await a.reserve(cap, 1));
      waits.push(await b.reserve(cap, 1));
    }
    // Six PDUs: each waits 10 s longer than the one before, whichever asked.
    for (let i = 1; i < waits.length; i++) expect(waits[i] - waits[i - 1]).toBeGreaterThan(5_000);
    expect(waits[5]).toBeGreaterThan(40_000);
  });

  it('fails fast while Redis is unreachable, so the gate can pause dispatch', async () => {
    const down = new RedisRateLimiter('redis://127.0.0.1:1', prefix);
    await expect(down.reserve([{ key: 'x', perSecond: 1 }], 1)).rejects.toThrow();
    expect(down.isReady()).toBe(false);
    await down.close();
  });
});
