import { Registry } from 'prom-client';
import { HttpError } from '@smsgw/kit';
import { KdfGate } from '../src/kdf-gate';
import { LoginGuard } from '../src/login-guard';
import { MemoryLoginThrottle } from '../src/login-throttle';
import { createAuthMetrics } from '../src/metrics';
import { MemoryFlags, VerifiedCredentials } from '../src/verified-credentials';

function guard(gate = new KdfGate(2, 4)) {
  const registry = new Registry();
  const metrics = createAuthMetrics(registry);
  const login = new LoginGuard(
    new MemoryLoginThrottle(60_000),
    new VerifiedCredentials(new MemoryFlags(), 'test-server-secret'),
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
      Array.from({ length: 32 }, () =>
        login.verify({ protocol: 'http', name: 'bob', secret: 'right' }, slowRight),
      ),
    );
    expect(checks).toBe(1);
    expect(answers.every((a) => a?.account === 'a1')).toBe(true);
    expect(await throttled('kdf_busy')).toBeFalsy();
    // Once answered, the next login checks again.
    await login.verify({ protocol: 'http', name: 'bob', secret: 'right' }, slowRight);
    expect(checks).toBe(2);
  });

  it('answers 429 RATE_LIMITED with Retry-After once a name has had its failures', async () => {
    const { login, throttled } = guard();
    for (let i = 0; i < 3; i++)
      await expect(
        login.verify({ protocol: 'http', name: 'alice', secret: 'wrong' }, right('wrong')),
      ).resolves.toBe(undefined);
    let checked = false;
    const err = await refusal(
      login.verify({ protocol: 'http', name: 'alice', secret: 'wrong' }, () => {
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
      await login.verify(
        { protocol: 'http', name: `n${i}`, secret: 'x', address: '192.0.2.1' },
        right('x'),
      );
    const err = await refusal(
      login.verify(
        { protocol: 'http', name: 'other', secret: 'x', address: '192.0.2.1' },
        right('x'),
      ),
    );
    expect(err.status).toBe(429);
    expect(await throttled('address')).toBe(1);
    // Another address is not held back.
    await expect(
      login.verify(
        { protocol: 'http', name: 'other', secret: 'right', address: '192.0.2.2' },
        right('right'),
      ),
    ).resolves.toEqual({ account: 'a1' });
  });

  it('does not count successes, and lets a credential that verified before past its name limit', async () => {
    const { login } = guard();
    const bob = (secret: string, address = '192.0.2.10') => ({
      protocol: 'http' as const,
      name: 'bob',
      secret,
      address,
    });
    for (let i = 0; i < 5; i++)
      await expect(login.verify(bob('right'), right('right'))).resolves.toEqual({ account: 'a1' });
    for (let i = 0; i < 3; i++) await login.verify(bob('guess', '198.51.100.1'), right('x'));
    // Guessing bob's password does not lock bob out where bob logs in from.
    await expect(login.verify(bob('right'), right('right'))).resolves.toEqual({ account: 'a1' });
    expect((await refusal(login.verify(bob('guess2'), right('x')))).status).toBe(429);
  });

  it('refuses a right guess from elsewhere like a wrong one once the name is over its limit', async () => {
    const { login } = guard();
    const bob = (secret: string, address: string) => ({
      protocol: 'http' as const,
      name: 'bob',
      secret,
      address,
    });
    await login.verify(bob('right', '192.0.2.10'), right('right'));
    for (let i = 0; i < 3; i++) await login.verify(bob(`guess-${i}`, '198.51.100.1'), right('x'));
    let checked = false;
    const err = await refusal(
      login.verify(bob('right', '198.51.100.1'), () => {
        checked = true;
        return right('right')();
      }),
    );
    expect({ status: err.status, checked }).toEqual({ status: 429, checked: false });
  });

  it('lets a credential that verified before past an address limit others filled', async () => {
    const { login, throttled } = guard();
    const shared = '203.0.113.1';
    await login.verify(
      { protocol: 'http', name: 'alice', secret: 'right', address: shared },
      right('right'),
    );
    for (let i = 0; i < 5; i++)
      await login.verify(
        { protocol: 'http', name: `n${i}`, secret: 'x', address: shared },
        right('x'),
      );
    expect(
      (
        await refusal(
          login.verify(
            { protocol: 'http', name: 'carol', secret: 'right', address: shared },
            right('right'),
          ),
        )
      ).status,
    ).toBe(429);
    expect(await throttled('address')).toBe(1);
    // alice verified before, here or elsewhere: others' failures do not hold her back.
    await expect(
      login.verify(
        { protocol: 'http', name: 'alice', secret: 'right', address: shared },
        right('right'),
      ),
    ).resolves.toEqual({ account: 'a1' });
    await expect(
      login.verify(
        { protocol: 'http', name: 'alice', secret: 'right', address: '203.0.113.2' },
        right('right'),
      ),
    ).resolves.toEqual({ account: 'a1' });
    // A wrong password of hers is no exemption.
    expect(
      (
        await refusal(
          login.verify(
            { protocol: 'http', name: 'alice', secret: 'x', address: shared },
            right('x'),
          ),
        )
      ).status,
    ).toBe(429);
  });

  it('ends the exemption once the remembered secret fails (it was changed)', async () => {
    const { login } = guard();
    const shared = '203.0.113.3';
    await login.verify(
      { protocol: 'http', name: 'dave', secret: 'right', address: shared },
      right('right'),
    );
    for (let i = 0; i < 5; i++)
      await login.verify(
        { protocol: 'http', name: `m${i}`, secret: 'x', address: shared },
        right('x'),
      );
    // The password changed: the old one is checked once more, fails, and is exempt no more.
    await expect(
      login.verify(
        { protocol: 'http', name: 'dave', secret: 'right', address: shared },
        right('changed'),
      ),
    ).resolves.toBe(undefined);
    expect(
      (
        await refusal(
          login.verify(
            { protocol: 'http', name: 'dave', secret: 'right', address: shared },
            right('changed'),
          ),
        )
      ).status,
    ).toBe(429);
  });

  it('keys IPv6 clients by their /64', async () => {
    const { login } = guard();
    for (let i = 0; i < 5; i++)
      await login.verify(
        { protocol: 'http', name: `v${i}`, secret: 'x', address: `2001:db8:7::${i + 1}` },
        right('x'),
      );
    const err = await refusal(
      login.verify(
        { protocol: 'http', name: 'w', secret: 'x', address: '2001:db8:7:0:ffff::1' },
        right('x'),
      ),
    );
    expect(err.status).toBe(429);
    await expect(
      login.verify(
        { protocol: 'http', name: 'w', secret: 'x', address: '2001:db8:7:1::1' },
        right('x'),
      ),
    ).resolves.toBe(undefined);
  });

  it('answers 503 with Retry-After at once when the KDF gate is full, and counts no failure', async () => {
    const { login, throttled } = guard(new KdfGate(1, 0));
    let release!: () => void;
    const busy = login.verify(
      { protocol: 'http', name: 'carol', secret: 'right' },
      () => new Promise<{ account: string }>((r) => (release = () => r({ account: 'a1' }))),
    );
    const err = await refusal(
      login.verify({ protocol: 'http', name: 'carol', secret: 'x' }, right('x')),
    );
    expect(err.status).toBe(503);
    expect(err.extra.headers?.['Retry-After']).toBe('1');
    expect(await throttled('kdf_busy')).toBe(1);
    release();
    await busy;
    // The refused attempt was forgiven: carol still has all three failures to spend.
    for (let i = 0; i < 3; i++)
      await login.verify({ protocol: 'http', name: 'carol', secret: 'x' }, right('x'));
    expect(
      (await refusal(login.verify({ protocol: 'http', name: 'carol', secret: 'x' }, right('x'))))
        .status,
    ).toBe(429);
  });
  it('limits SMPP binds and HTTP logins apart, each side still locking itself', async () => {
    const { login } = guard();
    const ivy = { name: 'ivy', address: '192.0.2.30' };
    for (let i = 0; i < 3; i++)
      await login.verify({ protocol: 'smpp', ...ivy, secret: `guess-${i}` }, right('x'));
    const bind = login.verify({ protocol: 'smpp', ...ivy, secret: 'right' }, right('right'));
    expect((await refusal(bind)).status).toBe(429);
    await expect(
      login.verify({ protocol: 'http', ...ivy, secret: 'right' }, right('right')),
    ).resolves.toEqual({ account: 'a1' });

    const jay = { name: 'jay', address: '192.0.2.31' };
    for (let i = 0; i < 3; i++)
      await login.verify({ protocol: 'http', ...jay, secret: `guess-${i}` }, right('x'));
    const logIn = login.verify({ protocol: 'http', ...jay, secret: 'right' }, right('right'));
    expect((await refusal(logIn)).status).toBe(429);
    await expect(
      login.verify({ protocol: 'smpp', ...jay, secret: 'right' }, right('right')),
    ).resolves.toEqual({ account: 'a1' });
  });

  it('runs a check of its own for a bind and a login with the same name and secret at once', async () => {
    const { login } = guard();
    const answers = await Promise.all(
      (['http', 'smpp'] as const).map((protocol) =>
        login.verify({ protocol, name: 'kim', secret: 'same' }, () => Promise.resolve(protocol)),
      ),
    );
    expect(answers).toEqual(['http', 'smpp']);
  });

  it('keeps a login verified over HTTP exempt when a bind with that secret fails', async () => {
    const { login } = guard();
    const shared = '203.0.113.30';
    const lee = { name: 'lee', secret: 'right', address: shared };
    await login.verify({ protocol: 'http', ...lee }, right('right'));
    for (let i = 0; i < 5; i++)
      await login.verify(
        { protocol: 'http', name: `o${i}`, secret: 'x', address: shared },
        right('x'),
      );
    // The HTTP password is not lee's SMPP password: the bind fails.
    await expect(login.verify({ protocol: 'smpp', ...lee }, right('x'))).resolves.toBe(undefined);
    await expect(login.verify({ protocol: 'http', ...lee }, right('right'))).resolves.toEqual({
      account: 'a1',
    });
  });
});
