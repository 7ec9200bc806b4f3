import { addressKey } from '../src/client-address';

describe('addressKey', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(addressKey('192.0.2.7')).toBe('192.0.2.7');
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address, in either spelling', () => {
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('::FFFF:c000:0207')).toBe('192.0.2.7');
    expect(addressKey('0:0:0:0:0:ffff:192.0.2.7')).toBe('192.0.2.7');
  });

  it('keys IPv6 clients by their /64, whatever the spelling', () => {
    const key = addressKey('2001:db8:1:2::5');
    expect(key).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe(key);
    expect(addressKey('2001:DB8:1:2:0:0:0:6')).toBe(key);
    expect(addressKey('2001:db8:1:2::5%eth0')).toBe(key);
    expect(addressKey('2001:db8:1:3::5')).not.toBe(key);
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1:2:3:4')).toBe('fe80:0:0:0::/64');
  });

  it('leaves what is not an address as it is', () => {
    expect(addressKey('not an address')).toBe('not an address');
  });
});
