import { describe, expect, it } from 'vitest';
import { addressScope } from '#shared/domain/throttles.ts';

describe('the client address a throttle counts', () => {
  it('is an IPv4 address as it is, also when mapped into IPv6', () => {
    expect(addressScope('198.51.100.7')).toBe('198.51.100.7');
    expect(addressScope('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(addressScope('::FFFF:127.0.0.1')).toBe('127.0.0.1');
  });

  it("is an IPv6 address's /64, however it is written", () => {
    const scope = '2001:db8:abcd:12::/64';
    for (const a of [
      '2001:db8:abcd:12::1',
      '2001:0db8:abcd:0012:ffff:ffff:ffff:ffff',
      '2001:DB8:ABCD:12:1:2:3:4',
      '2001:db8:abcd:12::1%eth0',
    ]) {
      expect(addressScope(a)).toBe(scope);
    }
    expect(addressScope('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressScope('::1')).toBe('0:0:0:0::/64');
    expect(addressScope('2001:db8:abcd:13::1')).not.toBe(scope);
  });

  it('leaves anything else as it is', () => {
    expect(addressScope('')).toBe('');
    expect(addressScope('not an address')).toBe('not an address');
  });
});
