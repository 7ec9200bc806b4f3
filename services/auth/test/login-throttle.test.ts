import { MemoryLoginThrottle, type ThrottleKey } from '../src/login-throttle';

const name = (limit: number): ThrottleKey => ({ scope: 'name', id: 'alice', limit });
const address = (limit: number, id = '192.0.2.1'): ThrottleKey => ({
  scope: 'address',
  id,
  limit,
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

  it('names the key that is full, and counts nothing when it refuses', async () => {
    const throttle = new MemoryLoginThrottle(60_000, clock);
    await throttle.admit([address(1)]);
    const refused = await throttle.admit([name(2), address(1)]);
    expect(refused).toMatchObject({ admitted: false, scope: 'address' });
    // The refused attempt did not count against the name: two more are admitted elsewhere.
    await expect(throttle.admit([name(2), address(5, '192.0.2.2')])).resolves.toEqual({
      admitted: true,
    });
    await expect(throttle.admit([name(2), address(5, '192.0.2.2')])).resolves.toEqual({
      admitted: true,
    });
    await expect(throttle.admit([name(2)])).resolves.toMatchObject({ admitted: false });
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
    await throttle.admit([{ scope: 'name', id: 'x'.repeat(10_000), limit: 1 }]);
    await expect(throttle.admit([{ scope: 'name', id: 'x', limit: 1 }])).resolves.toEqual({
      admitted: true,
    });
  });
});
