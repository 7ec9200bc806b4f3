import { RateMeter } from '../src/connectors/rate-meter';

describe('RateMeter', () => {
  it('gives the rate over its span, and reading it changes nothing', () => {
    const meter = new RateMeter(5000);
    meter.sample(0, 0);
    meter.sample(100, 1000);
    meter.sample(300, 2000);
    expect(meter.perSecond()).toBe(150);
    expect(meter.perSecond()).toBe(150);
    // Readings older than the span drop out.
    meter.sample(1300, 7000);
    expect(meter.perSecond()).toBe(200);
  });

  it('starts again when the count goes down (a new session)', () => {
    const meter = new RateMeter(5000);
    meter.sample(500, 0);
    meter.sample(10, 1000);
    expect(meter.perSecond()).toBe(0);
    meter.sample(30, 2000);
    expect(meter.perSecond()).toBe(20);
  });
});
