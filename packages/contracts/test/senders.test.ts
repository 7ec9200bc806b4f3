import { SenderPatternSchema, sameSender, senderMatches } from '../src/senders';

describe('sender patterns', () => {
  it.each([
    ['MyBrand', 'MyBrand', true],
    ['MyBrand', 'mybrand', false],
    ['MyBrand', 'MyBrand2', false],
    ['4179*', '41791234567', true],
    ['4179*', '+41791234567', true],
    ['+4179*', '41791234567', true],
    ['4179*', '4180123', false],
    ['4179*', '4179', true],
    ['41?9', '4179', true],
    ['41?9', '419', false],
    ['*Bank', 'MyBank', true],
    ['*Bank', 'MyBank!', false],
    ['A*B*C', 'AxxBxxC', true],
    ['A*B*C', 'AxxCxxB', false],
    ['*', 'anything', true],
  ])('%s against %s is %s', (pattern, sender, expected) => {
    expect(senderMatches(pattern, sender)).toBe(expected);
  });

  it('compares numbers with or without their +', () => {
    expect(sameSender('+41791234567', '41791234567')).toBe(true);
    expect(sameSender('Bank', 'bank')).toBe(false);
  });

  it('accepts senders and globs, and refuses regular expressions and overlong values', () => {
    expect(SenderPatternSchema.safeParse('4179*').success).toBe(true);
    expect(SenderPatternSchema.safeParse('My Brand').success).toBe(true);
    expect(SenderPatternSchema.safeParse('(a|b)+$').success).toBe(false);
    expect(SenderPatternSchema.safeParse('ABCDEFGHIJKL').success).toBe(false);
    expect(SenderPatternSchema.safeParse('').success).toBe(false);
  });
});
