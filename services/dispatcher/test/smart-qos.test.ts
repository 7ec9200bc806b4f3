import { dispatcherDefaults } from '../src/defaults';
import { SmartQos } from '../src/throughput/smart-qos';

const options = { ...dispatcherDefaults.smartQos, maxRate: 100 };

interface LinkModel {
  /** The SMSC's answer time for a submit sent at `t` (ms). */
  answerMs: (t: number) => number;
  /** Whether the SMSC throttles the `n`th submit, sent at `t`. */
  throttles?: (t: number, n: number) => boolean;
  /** Periods in which our own event loop is stalled: answers due in one arrive at its end. */
  stalls?: (t: number) => number | undefined;
  /** Our event loop's mean delay at `t` (ms), as the controller's host-delay probe reads it. */
  loopDelay?: (t: number) => number;
}

/**
 * Runs the controller against a modelled SMSC link on a clock of the test's own: submits at the
 * controller's rate, answers after the model's time (later when the host is stalled), and the
 * rate seen every 100 ms. No wall clock, no race.
 */
function simulate(link: LinkModel, untilMs: number): Array<[number, number]> {
  let t = 0;
  const qos = new SmartQos(options, 0, () => link.loopDelay?.(t) ?? 0);
  const pending: Array<{ at: number; sent: number; throttled: boolean }> = [];
  const rates: Array<[number, number]> = [];
  let credit = 0;
  let sent = 0;
  for (; t <= untilMs; t += 10) {
    credit += (qos.current(t) * 10) / 1000;
    for (; credit >= 1; credit--, sent++) {
      const due = t + link.answerMs(t);
      pending.push({
        at: link.stalls?.(due) ?? due,
        sent: t,
        throttled: !!link.throttles?.(t, sent),
      });
    }
    pending.sort((a, b) => a.at - b.at);
    while (pending.length > 0 && pending[0].at <= t) {
      const answer = pending.shift()!;
      if (answer.throttled) qos.onThrottled(t);
      else qos.onResponse(t - answer.sent, t);
    }
    if (t % 100 === 0) rates.push([t, qos.current(t)]);
  }
  return rates;
}

const rateAt = (rates: Array<[number, number]>, t: number): number =>
  rates.find(([at]) => at >= t)![1];
const lowestBetween = (rates: Array<[number, number]>, from: number, to: number): number =>
  Math.min(...rates.filter(([t]) => t >= from && t <= to).map(([, r]) => r));
const firstAtCeiling = (rates: Array<[number, number]>, from: number): number | undefined =>
  rates.find(([t, r]) => t >= from && r >= 100)?.[0];

/** A busy host: every 700 ms the event loop stops for 250 ms. */
const busyHost = (t: number): number | undefined => {
  const phase = t % 700;
  return phase < 250 ? t - phase + 250 : undefined;
};

describe('SmartQos', () => {
  it('halves on throttling, at most once a second, and recovers additively to the ceiling', () => {
    const qos = new SmartQos(options, 0);
    qos.onThrottled(0);
    qos.onThrottled(100);
    expect(qos.current(100)).toBe(50);
    // Recovery resumes a second after a decrease: +5% of the ceiling per second.
    expect(qos.current(900)).toBe(50);
    expect(qos.current(2000)).toBeCloseTo(55, 5);
    qos.onThrottled(2000);
    expect(qos.current(2000)).toBeCloseTo(27.5, 5);
    expect(qos.current(2500)).toBeCloseTo(27.5, 5);
    expect(qos.current(5000)).toBeCloseTo(37.5, 5);
    expect(qos.current(60_000)).toBe(100);
  });

  it('never goes below the floor', () => {
    const qos = new SmartQos({ ...options, minRate: 5, throttleFactor: 0.1 }, 0);
    for (let t = 0; t < 5000; t += 1000) qos.onThrottled(t);
    expect(qos.current(4000)).toBe(5);
  });

  it('backs off when most answers of two seconds running are slow, not on a burst of late ones', () => {
    const qos = new SmartQos(options, 0);
    for (let t = 0; t < 3000; t += 10) qos.onResponse(5, t);
    // A quarter of a second of late answers (a stall of our own), then the usual pace again.
    for (let t = 3000; t < 3250; t += 10) qos.onResponse(250, t);
    for (let t = 3250; t < 6000; t += 10) qos.onResponse(5, t);
    expect(qos.current(6000)).toBe(100);
    // One slow second alone does not count either.
    for (let t = 6000; t < 7000; t += 10) qos.onResponse(200, t);
    for (let t = 7000; t < 8000; t += 10) qos.onResponse(5, t);
    expect(qos.current(8000)).toBe(100);
    // Two slow seconds running do.
    for (let t = 8000; t < 10_010; t += 10) qos.onResponse(200, t);
    expect(qos.current(10_010)).toBeLessThan(100);
  });

  it('keeps the ceiling on a busy host whose stalls delay bursts of answers', () => {
    const rates = simulate({ answerMs: () => 3, stalls: busyHost }, 60_000);
    expect(lowestBetween(rates, 0, 60_000)).toBe(100);
  });

  it('backs off while the SMSC throttles and is back at the ceiling 25 s after, on a busy host', () => {
    const rates = simulate(
      {
        answerMs: () => 3,
        throttles: (t, n) => t < 10_000 && n % 2 === 0,
        stalls: busyHost,
      },
      60_000,
    );
    expect(lowestBetween(rates, 0, 10_000)).toBeLessThan(30);
    const back = firstAtCeiling(rates, 10_000);
    expect(back).toBeDefined();
    expect(back!).toBeLessThanOrEqual(35_000);
    expect(lowestBetween(rates, back!, 60_000)).toBe(100);
  });

  it('does not back off when answers are late because our own event loop is', () => {
    // From 10 s on the host is saturated: every answer waits 60 ms for our loop, which runs 50 ms
    // late on average.
    const saturated = {
      answerMs: (t: number) => (t < 10_000 ? 3 : 63),
      loopDelay: (t: number) => (t < 10_000 ? 0.5 : 50),
    };
    expect(lowestBetween(simulate(saturated, 30_000), 0, 30_000)).toBe(100);
    // The same answers with a loop on time are a slower SMSC.
    const slower = simulate({ ...saturated, loopDelay: () => 0.5 }, 30_000);
    expect(lowestBetween(slower, 10_000, 14_000)).toBeLessThan(100);
  });

  it('backs off when the SMSC slows down, and takes a lasting new pace as normal', () => {
    const rates = simulate(
      // 3 ms, then from 10 s on 80 ms and it stays so: an SMSC farther away after a failover.
      { answerMs: (t) => (t < 10_000 ? 3 : 80), stalls: busyHost },
      80_000,
    );
    expect(lowestBetween(rates, 0, 10_000)).toBe(100);
    expect(lowestBetween(rates, 10_000, 14_000)).toBeLessThan(100);
    const back = firstAtCeiling(rates, 14_000);
    expect(back).toBeDefined();
    expect(lowestBetween(rates, back!, 80_000)).toBe(100);
    // A rise above that new pace still backs off.
    const later = simulate({ answerMs: (t) => (t < 30_000 ? 80 : 300) }, 40_000);
    expect(lowestBetween(later, 0, 30_000)).toBe(100);
    expect(rateAt(later, 34_000)).toBeLessThan(100);
  });
});
