import { unusableCharacter, withoutUnusable } from '../src/text';

describe('withoutUnusable', () => {
  it('takes out what unusableCharacter refuses and keeps everything else', () => {
    const samples = [
      'bal\u0000ance\u0007 is\n5',
      '\ud83d\ude00 pair kept, \ud800 lone high, \udc00 lone low, ends high \ud83d',
      'tab\there\r\nline',
      'plain text, ünïcödé, 日本語',
    ];
    for (const text of samples)
      for (const lineBreaks of [true, false]) {
        const kept = withoutUnusable(text, { lineBreaks });
        expect(unusableCharacter(kept, { lineBreaks })).toBeUndefined();
      }
    expect(withoutUnusable(samples[0], { lineBreaks: true })).toBe('balance is\n5');
    expect(withoutUnusable(samples[1])).toBe(
      '\ud83d\ude00 pair kept,  lone high,  lone low, ends high ',
    );
    expect(withoutUnusable(samples[2], { lineBreaks: true })).toBe(samples[2]);
    expect(withoutUnusable(samples[2])).toBe('tabhereline');
    expect(withoutUnusable(samples[3])).toBe(samples[3]);
  });
});
