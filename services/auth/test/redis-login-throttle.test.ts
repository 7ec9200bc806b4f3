import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { Registry } from 'prom-client';
import { HttpError } from '@smsgw/kit';
import { waitFor } from '@smsgw/kit/testing';
import { KdfGate } from '../src/kdf-gate';
import { LoginGuard } from '../src/login-guard';
import type { ThrottleKey } from '../src/login-throttle';
import { createAuthMetrics } from '../src/metrics';
import { RedisLoginThrottle } from '../src/redis-login-throttle';
import { RedisFlags } from '../src/redis-verified-credentials';
import { VerifiedCredentials } from '../src/verified-credentials';

// Runs with REDIS_URL (CI sets it); jest.config.js leaves this file out otherwise.
const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

async function ready(...connections: { isReady(): boolean }[]): Promise<void> {
  await waitFor(() => connections.every((c) => c.isReady()), 10_000, 'connected to Redis');
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
    const key: ThrottleKey = {
      protocol: 'http',
      scope: 'name',
      id: 'shared',
      limit: 4,
      enforced: true,
    };
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
    const key: ThrottleKey = {
      protocol: 'http',
      scope: 'address',
      id: '192.0.2.7',
      limit: 10,
      enforced: true,
    };
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).admit([key])),
    );
    expect(answers.filter((x) => x.admitted)).toHaveLength(10);
  });

  it('forgives on either replica what the other counted', async () => {
    const key: ThrottleKey = {
      protocol: 'http',
      scope: 'name',
      id: 'forgiven',
      limit: 1,
      enforced: true,
    };
    await expect(a.admit([key])).resolves.toEqual({ admitted: true });
    await b.forgive([key]);
    await expect(a.admit([key])).resolves.toEqual({ admitted: true });
  });

  it('counts a key that is not enforced, refuses by the others, and counts refusals', async () => {
    const name: ThrottleKey = {
      protocol: 'http',
      scope: 'name',
      id: 'exempt-name',
      limit: 1,
      enforced: true,
    };
    const address = (enforced: boolean): ThrottleKey => ({
      protocol: 'http',
      scope: 'address',
      id: '192.0.2.8',
      limit: 2,
      enforced,
    });
    for (let i = 0; i < 3; i++)
      await expect(a.admit([address(false)])).resolves.toEqual({ admitted: true });
    await expect(b.admit([name, address(true)])).resolves.toMatchObject({
      admitted: false,
      scope: 'address',
    });
    // The refusal spent the name's one attempt.
    await expect(a.admit([name])).resolves.toMatchObject({ admitted: false, scope: 'name' });
  });

  it('counts in memory while Redis does not answer, so logins stay limited', async () => {
    const down = new RedisLoginThrottle('redis://127.0.0.1:1', 60_000, undefined, prefix);
    const key: ThrottleKey = {
      protocol: 'http',
      scope: 'name',
      id: 'offline',
      limit: 2,
      enforced: true,
    };
    await expect(down.admit([key])).resolves.toEqual({ admitted: true });
    await expect(down.admit([key])).resolves.toEqual({ admitted: true });
    await expect(down.admit([key])).resolves.toMatchObject({ admitted: false });
    expect(down.isReady()).toBe(false);
    await down.close();
  });
});

describe('verified credentials in Redis', () => {
  const prefix = `test-verified-${randomBytes(4).toString('hex')}`;
  const opened: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const o of opened) await o.close();
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  /** One auth replica's guard: its own process, the counters and the exemptions in Redis. */
  async function replica(): Promise<LoginGuard> {
    const throttle = new RedisLoginThrottle(redisUrl, 60_000, undefined, `${prefix}:n`);
    const flags = new RedisFlags(redisUrl, undefined, `${prefix}:v`);
    opened.push(throttle, flags);
    await ready(throttle, flags);
    return new LoginGuard(
      throttle,
      new VerifiedCredentials(flags, 'test-server-secret'),
      new KdfGate(2, 8),
      { failuresPerName: 3, failuresPerAddress: 5, windowSeconds: 60 },
      createAuthMetrics(new Registry()),
    );
  }
  const check = (secret: string) => () =>
    Promise.resolve(secret === 'right' ? { account: 'a1' } : undefined);
  const status = (promise: Promise<unknown>) =>
    promise.then(
      () => 200,
      (err: unknown) => (err instanceof HttpError ? err.status : 500),
    );

  it('lets a credential verified on one replica past the limits on another, or after a restart', async () => {
    const first = await replica();
    const customer = {
      protocol: 'http' as const,
      name: 'erin',
      secret: 'right',
      address: '192.0.2.50',
    };
    await expect(first.verify(customer, check('right'))).resolves.toEqual({ account: 'a1' });
    // Someone guesses erin's password, from her address and from elsewhere, on the first replica.
    for (let i = 0; i < 6; i++)
      await status(first.verify({ ...customer, secret: `guess-${i}` }, check('x')));
    for (let i = 0; i < 6; i++)
      await status(
        first.verify(
          { protocol: 'http', name: `other-${i}`, secret: 'x', address: customer.address },
          check('x'),
        ),
      );
    expect(await status(first.verify({ ...customer, secret: 'guess-x' }, check('x')))).toBe(429);
    // A second replica (or the first, restarted) knows erin verified: her password still works.
    const second = await replica();
    await expect(second.verify(customer, check('right'))).resolves.toEqual({ account: 'a1' });
    // Only hers: a stranger at the same address is held back by the address's limit.
    expect(
      await status(
        second.verify(
          { protocol: 'http', name: 'frank', secret: 'right', address: customer.address },
          check('right'),
        ),
      ),
    ).toBe(429);
  });

  it('counts binds and logins apart in Redis, over replicas, each side locking itself', async () => {
    const [first, second] = [await replica(), await replica()];
    const mia = { name: 'mia', address: '192.0.2.60' };
    for (let i = 0; i < 3; i++)
      await status(first.verify({ protocol: 'smpp', ...mia, secret: `guess-${i}` }, check('x')));
    expect(
      await status(second.verify({ protocol: 'smpp', ...mia, secret: 'right' }, check('right'))),
    ).toBe(429);
    expect(
      await status(second.verify({ protocol: 'http', ...mia, secret: 'right' }, check('right'))),
    ).toBe(200);

    const noa = { name: 'noa', address: '192.0.2.61' };
    for (let i = 0; i < 3; i++)
      await status(first.verify({ protocol: 'http', ...noa, secret: `guess-${i}` }, check('x')));
    expect(
      await status(second.verify({ protocol: 'http', ...noa, secret: 'right' }, check('right'))),
    ).toBe(429);
    expect(
      await status(second.verify({ protocol: 'smpp', ...noa, secret: 'right' }, check('right'))),
    ).toBe(200);
  });

  it('stores a keyed hash of the credential, never the secret', async () => {
    const guard = await replica();
    const secret = `secret-${randomBytes(8).toString('hex')}`;
    const remembered = await guard.verify(
      { protocol: 'http', name: 'grace', secret, address: '192.0.2.51' },
      () => Promise.resolve({ account: 'a2' }),
    );
    expect(remembered).toEqual({ account: 'a2' });
    const redis = new Redis(redisUrl);
    try {
      const keys = await redis.keys(`${prefix}:v:*`);
      expect(keys.length).toBeGreaterThan(0);
      const values = await Promise.all(keys.map((k) => redis.get(k)));
      const stored = [...keys, ...values].join(' ');
      expect(stored).not.toContain(secret);
      expect(stored).not.toContain('grace');
      const ttl = await redis.pttl(keys[0]);
      expect(ttl).toBeGreaterThan(3600_000);
    } finally {
      redis.disconnect();
    }
  });
});
