import { normalizeSmscId, parseSmscUrl, relativeValidity } from '../src';

describe('parseSmscUrl', () => {
  it('reads every parameter, percent-decoding the credentials', () => {
    expect(
      parseSmscUrl(
        'smpp://user%40x:p%3As%2Fs@smsc.example:2776?window=20&throughput=100.5&system_type=VMA&source_ton=1&source_npi=1&dest_ton=0&dest_npi=0&response_timeout_ms=5000&enquire_link_ms=15000&id_format=hex&receipt_id_format=decimal&on_no_answer=resend',
      ),
    ).toEqual({
      host: 'smsc.example',
      port: 2776,
      systemId: 'user@x',
      password: 'p:s/s',
      systemType: 'VMA',
      window: 20,
      throughput: 100.5,
      sourceTon: 1,
      sourceNpi: 1,
      destTon: 0,
      destNpi: 0,
      responseTimeoutMs: 5000,
      enquireLinkMs: 15000,
      idFormat: 'hex',
      receiptIdFormat: 'decimal',
      onNoAnswer: 'resend',
    });
  });

  it('has defaults for everything but host and credentials', () => {
    expect(parseSmscUrl('smpp://a:b@h')).toEqual({
      host: 'h',
      port: 2775,
      systemId: 'a',
      password: 'b',
      systemType: '',
      window: 50,
      throughput: 0,
      // Unset: chosen per message from the sender's form (sender-address.ts).
      sourceTon: undefined,
      sourceNpi: undefined,
      destTon: 1,
      destNpi: 1,
      responseTimeoutMs: 10_000,
      enquireLinkMs: 30_000,
      idFormat: 'auto',
      receiptIdFormat: 'auto',
      onNoAnswer: 'unknown',
    });
    expect(parseSmscUrl('smpp://a:b@[::1]:1234')).toMatchObject({ host: '::1', port: 1234 });
  });

  it.each([
    ['smpp://a:b@h?on_no_answer=retry', /on_no_answer/],
    ['smpp://a:b@h?window=0', /window/],
    ['smpp://a:b@h?window=abc', /window/],
    ['smpp://a:b@h?throughput=-1', /throughput/],
    ['smpp://a:b@h?dest_ton=256', /dest_ton/],
    ['smpp://a:b@h?response_timeout_ms=1.5', /response_timeout_ms/],
    ['smpp://a:b@h?enquire_link_ms=10', /enquire_link_ms/],
    ['smpp://a:b@h?id_format=octal', /id_format/],
    ['smpp://a:b@h?receipt_id_format=x', /receipt_id_format/],
    ['smpp://a:b@h?colour=red', /colour/],
    ['smpp://abcdefghijklmnop:b@h', /system_id/],
    ['smpp://a:b%zz@h', /password/],
    ['http://a:b@h', /smpp/],
    ['not a url', /URL/],
  ])('%s is refused, naming what is wrong', (url, message) => {
    expect(() => parseSmscUrl(url)).toThrow(message);
  });
});

describe('SMSC ids', () => {
  it('normalises hex, decimal, case and leading zeros to one form', () => {
    expect(normalizeSmscId('A0000001')).toBe(normalizeSmscId('2684354561'));
    expect(normalizeSmscId('a0000001')).toBe('2684354561');
    expect(normalizeSmscId('00a0000001')).toBe('2684354561');
    expect(normalizeSmscId('0042')).toBe('42');
    expect(normalizeSmscId(' 42\0')).toBe('42');
    expect(normalizeSmscId('msg-XYZ')).toBe('msg-xyz');
  });

  it('follows the declared format where digits alone are ambiguous', () => {
    expect(normalizeSmscId('10', 'hex')).toBe('16');
    expect(normalizeSmscId('1F', 'hex')).toBe('31');
    expect(normalizeSmscId('10', 'decimal')).toBe('10');
    expect(normalizeSmscId('10', 'auto')).toBe('10');
  });
});

describe('relativeValidity', () => {
  it('writes SMPP relative time, capped at 99 days', () => {
    expect(relativeValidity(90)).toBe('000000013000000R');
    expect(relativeValidity(2 * 1440 + 3 * 60 + 4)).toBe('000002030400000R');
    expect(relativeValidity(10_000_000)).toBe('000099235900000R');
    expect(relativeValidity(90)).toHaveLength(16);
  });
});
