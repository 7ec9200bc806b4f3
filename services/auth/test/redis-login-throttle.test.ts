import { randomBytes } from 'node:crypto';
import type { ThrottleKey } from '../src/login-throttle';
import { RedisLoginThrottle } from '../src/redis-login-throttle';

// Runs with REDIS_URL (CI sets it); jest.config.js leaves this file out otherwise.
const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

async function ready(...throttles: RedisLoginThrottle[]): Promise<void> {
  for (let i = 0; i < 100 && !throttles.every((t) => t.isReady()); i++)
    await new Promise((r) => setTimeout(r, 20));
}

describe('RedisLoginThrottle', () => {
  const prefix = `test-login-${randomBytes(4).toString('hex')}`;
  let a: RedisLoginThrottle;
  let b: RedisLoginThrottle;
  beforeAll(async () => {
    a = new RedisLoginThrottle(redisUrl, 60_000, undefined, prefix);
    b = new RedisLoginThrottle(redisUrl, 60_000, undefined, prefix);
    await ready(a, b);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('shares the count between replicas: failures on either reach one limit', async () => {
    const key: ThrottleKey = { scope: 'name', id: 'shared', limit: 4 };
    await expect(a.admit([key])).resolves.toEqual({ admitted: true });
    await expect(b.admit([key])).resolves.toEqual({ admitted: true });
    await expect(a.admit([key])).resolves.toEqual({ admitted: true });
    await expect(b.admit([key])).resolves.toEqual({ admitted: true });
    const refused = await a.admit([key]);
    expect(refused).toMatchObject({ admitted: false, scope: 'name' });
    expect(refused.admitted === false && refused.retryAfterSeconds).toBeGreaterThan(50);
    await expect(b.admit([key])).resolves.toMatchObject({ admitted: false });
  });

  it('admits all of many concurrent attempts up to the limit and no more', async () => {
    const key: ThrottleKey = { scope: 'address', id: '192.0.2.7', limit: 10 };
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).admit([key])),
    );
    expect(answers.filter((x) => x.admitted)).toHaveLength(10);
  });

  it('forgives on either replica what the other counted', async () => {
    const key: ThrottleKey = { scope: 'name', id: 'forgiven', limit: 1 };
    await expect(a.admit([key])).resolves.toEqual({ admitted: true });
    await b.forgive([key]);
    await expect(a.admit([key])).resolves.toEqual({ admitted: true });
  });

  it('counts in memory while Redis does not answer, so logins stay limited', async () => {
    const down = new RedisLoginThrottle('redis://127.0.0.1:1', 60_000, undefined, prefix);
    const key: ThrottleKey = { scope: 'name', id: 'offline', limit: 2 };
    await expect(down.admit([key])).resolves.toEqual({ admitted: true });
    await expect(down.admit([key])).resolves.toEqual({ admitted: true });
    await expect(down.admit([key])).resolves.toMatchObject({ admitted: false });
    expect(down.isReady()).toBe(false);
    await down.close();
  });
});
