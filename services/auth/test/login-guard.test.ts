import { Registry } from 'prom-client';
import { HttpError } from '@smsgw/kit';
import { KdfGate } from '../src/kdf-gate';
import { LoginGuard } from '../src/login-guard';
import { MemoryLoginThrottle } from '../src/login-throttle';
import { createAuthMetrics } from '../src/metrics';

function guard(gate = new KdfGate(2, 4)) {
  const registry = new Registry();
  const metrics = createAuthMetrics(registry);
  const login = new LoginGuard(
    new MemoryLoginThrottle(60_000),
    gate,
    { failuresPerName: 3, failuresPerAddress: 5, windowSeconds: 60 },
    metrics,
  );
  const throttled = async (reason: string) =>
    (await metrics.loginThrottled.get()).values.find((v) => v.labels.reason === reason)?.value;
  return { login, throttled };
}

const right = (secret: string) => () =>
  Promise.resolve(secret === 'right' ? { account: 'a1' } : undefined);

async function refusal(promise: Promise<unknown>): Promise<HttpError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof HttpError)) throw new Error(`expected an HttpError, got ${String(err)}`);
  return err;
}

describe('LoginGuard', () => {
  it('runs one check for the same credential arriving many times at once, and counts it once', async () => {
    const { login, throttled } = guard(new KdfGate(1, 2));
    let checks = 0;
    const slowRight = () => {
      checks++;
      return new Promise<{ account: string }>((r) => setTimeout(() => r({ account: 'a1' }), 20));
    };
    const answers = await Promise.all(
      Array.from({ length: 32 }, () => login.verify({ name: 'bob', secret: 'right' }, slowRight)),
    );
    expect(checks).toBe(1);
    expect(answers.every((a) => a?.account === 'a1')).toBe(true);
    expect(await throttled('kdf_busy')).toBeFalsy();
    // Once answered, the next login checks again.
    await login.verify({ name: 'bob', secret: 'right' }, slowRight);
    expect(checks).toBe(2);
  });

  it('answers 429 RATE_LIMITED with Retry-After once a name has had its failures', async () => {
    const { login, throttled } = guard();
    for (let i = 0; i < 3; i++)
      await expect(login.verify({ name: 'alice', secret: 'wrong' }, right('wrong'))).resolves.toBe(
        undefined,
      );
    let checked = false;
    const err = await refusal(
      login.verify({ name: 'alice', secret: 'wrong' }, () => {
        checked = true;
        return Promise.resolve(undefined);
      }),
    );
    expect(checked).toBe(false);
    expect(err.status).toBe(429);
    expect(err.body().detail.code).toBe('RATE_LIMITED');
    expect(Number(err.extra.headers?.['Retry-After'])).toBeGreaterThan(0);
    expect(await throttled('name')).toBe(1);
  });

  it('limits an address over all the names it tries', async () => {
    const { login, throttled } = guard();
    for (let i = 0; i < 5; i++)
      await login.verify({ name: `n${i}`, secret: 'x', address: '192.0.2.1' }, right('x'));
    const err = await refusal(
      login.verify({ name: 'other', secret: 'x', address: '192.0.2.1' }, right('x')),
    );
    expect(err.status).toBe(429);
    expect(await throttled('address')).toBe(1);
    // Another address is not held back.
    await expect(
      login.verify({ name: 'other', secret: 'right', address: '192.0.2.2' }, right('right')),
    ).resolves.toEqual({ account: 'a1' });
  });

  it('does not count successes, and lets a credential that verified before past its name limit', async () => {
    const { login } = guard();
    for (let i = 0; i < 5; i++)
      await expect(login.verify({ name: 'bob', secret: 'right' }, right('right'))).resolves.toEqual(
        { account: 'a1' },
      );
    for (let i = 0; i < 3; i++) await login.verify({ name: 'bob', secret: 'guess' }, right('x'));
    // Guessing bob's password does not lock bob out.
    await expect(login.verify({ name: 'bob', secret: 'right' }, right('right'))).resolves.toEqual({
      account: 'a1',
    });
    expect(
      (await refusal(login.verify({ name: 'bob', secret: 'guess2' }, right('x')))).status,
    ).toBe(429);
  });

  it('answers 503 with Retry-After at once when the KDF gate is full, and counts no failure', async () => {
    const { login, throttled } = guard(new KdfGate(1, 0));
    let release!: () => void;
    const busy = login.verify(
      { name: 'carol', secret: 'right' },
      () => new Promise<{ account: string }>((r) => (release = () => r({ account: 'a1' }))),
    );
    const err = await refusal(login.verify({ name: 'carol', secret: 'x' }, right('x')));
    expect(err.status).toBe(503);
    expect(err.extra.headers?.['Retry-After']).toBe('1');
    expect(await throttled('kdf_busy')).toBe(1);
    release();
    await busy;
    // The refused attempt was forgiven: carol still has all three failures to spend.
    for (let i = 0; i < 3; i++) await login.verify({ name: 'carol', secret: 'x' }, right('x'));
    expect((await refusal(login.verify({ name: 'carol', secret: 'x' }, right('x')))).status).toBe(
      429,
    );
  });
});
