import { fromMillionths, marginOf, toMillionths } from '../src/money';

describe('money in millionths', () => {
  it('reads and writes numeric(20,6) text exactly', () => {
    expect(toMillionths('10.5')).toBe(10_500_000n);
    expect(toMillionths('-0.000001')).toBe(-1n);
    expect(toMillionths('12345678901234.123456')).toBe(12_345_678_901_234_123_456n);
    expect(fromMillionths(10_500_000n)).toBe('10.500000');
    expect(fromMillionths(-1n)).toBe('-0.000001');
    expect(fromMillionths(0n)).toBe('0.000000');
    expect(() => toMillionths('1.2345678')).toThrow(RangeError);
    expect(() => toMillionths('1e3')).toThrow(RangeError);
  });

  it('takes the refund and the cost off what was charged, below zero too', () => {
    expect(marginOf('0.05', '0', '0.01')).toBe('0.040000');
    // 0.1 + 0.2 as floats is not 0.3: in millionths it is.
    expect(marginOf('0.3', '0.1', '0.2')).toBe('0.000000');
    expect(marginOf('0.05', '0.05', '0.02')).toBe('-0.020000');
  });
});
