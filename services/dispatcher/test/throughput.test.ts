import { createLogger } from '@smsgw/kit';
import { gcraReserve } from '../src/throughput/gcra';
import { MemoryRateLimiter } from '../src/throughput/memory-rate-limiter';
import type { RateLimiter } from '../src/throughput/rate-limiter';
import { ThroughputGate } from '../src/throughput/throughput-gate';

describe('GCRA reservations', () => {
  it('lets the first PDU go at once, then spaces the rest by the interval', () => {
    let tat: number | undefined;
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = gcraReserve(tat, 1000, 100, 1, 1);
      tat = r.tat;
      waits.push(r.waitMs);
    }
    expect(waits).toEqual([0, 10, 20, 30]);
  });

  it('charges by PDUs: a three-part message takes three slots', () => {
    const first = gcraReserve(undefined, 0, 100, 3, 1);
    expect(first.waitMs).toBe(20);
    expect(gcraReserve(first.tat, 0, 100, 1, 1).waitMs).toBe(30);
  });

  it('forgets an idle past: no catching up in a burst after a pause', () => {
    const busy = gcraReserve(undefined, 0, 10, 5, 1);
    expect(gcraReserve(busy.tat, 10_000, 10, 1, 1).waitMs).toBe(0);
    expect(gcraReserve(gcraReserve(busy.tat, 10_000, 10, 1, 1).tat, 10_000, 10, 1, 1).waitMs).toBe(
      100,
    );
  });
});

describe('MemoryRateLimiter', () => {
  it('waits for the strictest of several caps', async () => {
    const limiter = new MemoryRateLimiter();
    const caps = [
      { key: 'connector', perSecond: 1000 },
      { key: 'account', perSecond: 0.1 },
    ];
    await limiter.reserve(caps, 1);
    // The account's 10 s between two PDUs, less the moment between the two calls.
    const wait = await limiter.reserve(caps, 1);
    expect(wait).toBeGreaterThan(9_000);
    expect(wait).toBeLessThanOrEqual(10_000);
  });
});

describe('ThroughputGate', () => {
  const metrics = { waitSeconds: { observe: () => undefined }, paused: { set: () => undefined } };
  const logger = createLogger('test', 'silent');

  it('pauses while the shared state is unreachable and goes on when it answers', async () => {
    let failures = 3;
    let calls = 0;
    const flaky: RateLimiter = {
      reserve: () => {
        calls++;
        return failures-- > 0 ? Promise.reject(new Error('ECONNREFUSED')) : Promise.resolve(0);
      },
      isReady: () => failures < 0,
      close: () => Promise.resolve(),
    };
    // The gate says it paused through its gauge: that is the moment to look.
    let pausedReported!: () => void;
    const reported = new Promise<void>((resolve) => (pausedReported = resolve));
    const gauges = {
      ...metrics,
      paused: { set: (value: number) => value === 1 && pausedReported() },
    };
    const gate = new ThroughputGate(flaky, logger, gauges, { key: 'c', perSecond: 10 });
    const passing = gate.pass(undefined, 1);
    await reported;
    expect(gate.isPaused()).toBe(true);
    await passing;
    expect(calls).toBe(4);
    expect(gate.isPaused()).toBe(false);
  });

  it('lets everything through without asking the shared state when no cap is set', async () => {
    let asked = 0;
    let waits = 0;
    const never: RateLimiter = {
      reserve: () => {
        asked++;
        return Promise.reject(new Error('unused'));
      },
      isReady: () => true,
      close: () => Promise.resolve(),
    };
    const counted = { ...metrics, waitSeconds: { observe: () => void waits++ } };
    const gate = new ThroughputGate(never, logger, counted, undefined);
    await expect(gate.pass(undefined, 3)).resolves.toBeUndefined();
    // An account whose cap is 0 has none either.
    await expect(gate.pass({ key: 'account:a', perSecond: 0 }, 3)).resolves.toBeUndefined();
    expect({ asked, waits, paused: gate.isPaused() }).toEqual({
      asked: 0,
      waits: 0,
      paused: false,
    });
  });
});
