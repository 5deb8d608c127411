import { addressSource, throttleKeys } from './request-throttle';

describe('addressSource: what an address counts failures against', () => {
  it.each([
    ['192.0.2.7', '192.0.2.7'],
    // A dual-stack listener's IPv4 peer, in each spelling: the IPv4 address itself.
    ['::ffff:192.0.2.7', '192.0.2.7'],
    ['::FFFF:192.0.2.7', '192.0.2.7'],
    ['0:0:0:0:0:ffff:c000:207', '192.0.2.7'],
    // An IPv6 address: its /64, however it is written.
    ['2001:db8:77:1::1', '2001:db8:77:1::/64'],
    ['2001:db8:77:1:ffff:ffff:ffff:ffff', '2001:db8:77:1::/64'],
    ['2001:0DB8:0077:0001:0:0:0:abcd', '2001:db8:77:1::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['2001:db8:77:1::192.0.2.7', '2001:db8:77:1::/64'],
    // Not an address (the throttle's contract tests name theirs): as it is.
    ['a-1234', 'a-1234'],
  ])('%s -> %s', (address, source) => {
    expect(addressSource(address)).toBe(source);
  });

  it('keys the failures of every address of one /64 alike, and of another /64 apart', () => {
    expect(throttleKeys.addressFailures('2001:db8:77:1::1')).toBe(
      throttleKeys.addressFailures('2001:db8:77:1:8000::2'),
    );
    expect(throttleKeys.addressFailures('2001:db8:77:1::1')).not.toBe(
      throttleKeys.addressFailures('2001:db8:77:2::1'),
    );
  });
});
