import { CustomTlvsSchema } from '../src/tlvs';

/**
 * Jasmin's encoder (jasmin/tools/tlv_encoder.py): "Int types pack big-endian via struct",
 * "COctetString: UTF-8 bytes of str(value) plus a terminating NUL", and it takes
 * "(tag, value), (tag, type, value), (tag, length, type, value)".
 */
describe('custom_tlvs in Jasmin shape', () => {
  it('encodes every shape and type as Jasmin does', () => {
    const parsed = CustomTlvsSchema.parse([
      [0x1400, null, 'COctetString', '110123'],
      [5121, 4, 'Int4', 7],
      ['0x1402', 'abc'],
      [0x1403, 'Int2', '258'],
      [0x1404, 8, 'Int8', '18446744073709551615'],
    ]);
    expect(parsed).toEqual([
      { tag: 0x1400, value: Buffer.from('110123\0').toString('hex') },
      { tag: 5121, value: '00000007' },
      { tag: 0x1402, value: '616263' },
      { tag: 0x1403, value: '0102' },
      { tag: 0x1404, value: 'ffffffffffffffff' },
    ]);
  });

  it.each([
    ['a length that disagrees with the value', [[0x1400, 3, 'OctetString', 'abcd']], 'length 3'],
    ['a tag beyond 16 bits', [[0x10000, 'x']], '0xFFFF'],
    ['tag 0', [[0, 'x']], '0xFFFF'],
    ['a tag the gateway sets itself', [[0x0424, 'x']], 'gateway'],
    ['an integer too large for its type', [[5, 'Int1', 256]], 'does not fit'],
    ['an integer type with text', [[5, 'Int2', 'ab']], 'unsigned integer'],
    ['an unknown type', [[5, 2, 'Blob', 'ab']], ''],
    ['a value over 255 octets', [[5, 'x'.repeat(256)]], 'at most 255'],
    [
      'a tag given twice',
      [
        [5, 'a'],
        [5, 'b'],
      ],
      'once',
    ],
    ['not a list', [{ tag: 5, value: 'a' }], ''],
  ])('refuses %s', (_what, input, message) => {
    const result = CustomTlvsSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).toContain(message);
  });
});
