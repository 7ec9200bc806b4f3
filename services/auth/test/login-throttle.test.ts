import { MemoryLoginThrottle, type ThrottleKey } from '../src/login-throttle';

const name = (limit: number, enforced = true): ThrottleKey => ({
  protocol: 'http',
  scope: 'name',
  id: 'alice',
  limit,
  enforced,
});
const address = (limit: number, id = '192.0.2.1', enforced = true): ThrottleKey => ({
  protocol: 'http',
  scope: 'address',
  id,
  limit,
  enforced,
});

describe('MemoryLoginThrottle', () => {
  let now = 1_000_000;
  const clock = () => now;

  it('admits up to the limit in a window, then refuses with the time left in it', async () => {
    const throttle = new MemoryLoginThrottle(60_000, clock);
    for (let i = 0; i < 3; i++)
      await expect(throttle.admit([name(3)])).resolves.toEqual({ admitted: true });
    now += 20_500;
    await expect(throttle.admit([name(3)])).resolves.toEqual({
      admitted: false,
      scope: 'name',
      retryAfterSeconds: 40,
    });
    now += 40_000;
    await expect(throttle.admit([name(3)])).resolves.toEqual({ admitted: true });
  });

  it('names the key that is full, and counts a refused attempt against every key', async () => {
    const throttle = new MemoryLoginThrottle(60_000, clock);
    await throttle.admit([address(1)]);
    const refused = await throttle.admit([name(2), address(1)]);
    expect(refused).toMatchObject({ admitted: false, scope: 'address' });
    // The refused guess spent one of the name's two: one more is admitted elsewhere, then none.
    await expect(throttle.admit([name(2), address(5, '192.0.2.2')])).resolves.toEqual({
      admitted: true,
    });
    await expect(throttle.admit([name(2), address(5, '192.0.2.2')])).resolves.toMatchObject({
      admitted: false,
      scope: 'name',
    });
  });

  it('counts a key that is not enforced but never refuses by it', async () => {
    const throttle = new MemoryLoginThrottle(60_000, clock);
    for (let i = 0; i < 5; i++)
      await expect(throttle.admit([address(2, '192.0.2.9', false)])).resolves.toEqual({
        admitted: true,
      });
    // What the exempt attempts counted holds for those that are not exempt.
    await expect(throttle.admit([address(2, '192.0.2.9')])).resolves.toMatchObject({
      admitted: false,
    });
  });

  it('forgives an attempt that succeeded, so only failures stay counted', async () => {
    const throttle = new MemoryLoginThrottle(60_000, clock);
    for (let i = 0; i < 10; i++) {
      await expect(throttle.admit([name(2)])).resolves.toEqual({ admitted: true });
      await throttle.forgive([name(2)]);
    }
  });

  it('keeps names apart however they are written', async () => {
    const throttle = new MemoryLoginThrottle(60_000, clock);
    await throttle.admit([
      { protocol: 'http', scope: 'name', id: 'x'.repeat(10_000), limit: 1, enforced: true },
    ]);
    await expect(
      throttle.admit([{ protocol: 'http', scope: 'name', id: 'x', limit: 1, enforced: true }]),
    ).resolves.toEqual({
      admitted: true,
    });
  });
});
