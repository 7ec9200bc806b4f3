import { sourceAddress } from '../src/sender-address';

describe('sourceAddress', () => {
  it.each([
    ['MyBrand', 5, 0, 'MyBrand'],
    ['Bank 24', 5, 0, 'Bank 24'],
    ['+41791234567', 1, 1, '41791234567'],
    ['41791234567', 1, 1, '41791234567'],
    ['123456789', 1, 1, '123456789'],
    ['72345', 3, 0, '72345'],
    ['123', 3, 0, '123'],
    ['12345678', 3, 0, '12345678'],
    ['12', 0, 1, '12'],
  ])('%s is TON %d, NPI %d, sent as %s', (from, ton, npi, addr) => {
    expect(sourceAddress(from)).toEqual({ ton, npi, addr });
  });

  it('leaves an absent sender to the SMSC', () => {
    expect(sourceAddress(null)).toEqual({ ton: 0, npi: 0, addr: '' });
  });
});
