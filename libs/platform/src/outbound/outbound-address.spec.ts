import { LookupAddress } from 'node:dns';
import { guardedLookup, NonPublicAddressError, Resolver } from './guarded-lookup';
import { isNonPublicAddress, isNonPublicHost } from './outbound-address';

describe('isNonPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    // 6to4 of 10.0.0.1, Teredo, local-use NAT64 of 127.0.0.1: an IPv4 address behind each.
    '2002:a00:1::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '64:ff9b:1::7f00:1',
    // An address in each range of NON_PUBLIC_IPV4/IPV6 not covered above (198.19.x: the /15's upper half).
    '192.0.0.170',
    '192.0.2.1',
    '192.88.99.1',
    '198.18.0.1',
    '198.19.255.254',
    '198.51.100.7',
    '203.0.113.9',
    '100.127.255.254',
    '100::1',
    '2001:db8::1',
    'not-an-address',
  ])('refuses %s', (address) => {
    expect(isNonPublicAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '2001:4860::8888', '64:ff9b::808:808'])('allows %s', (address) => {
    expect(isNonPublicAddress(address)).toBe(false);
  });
});

describe('isNonPublicHost (request time, no DNS)', () => {
  const hostOf = (url: string) => new URL(url).hostname;

  it.each([
    'https://127.0.0.1/hook',
    'https://localhost:8443/hook',
    'https://api.localhost/hook',
    'https://[::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://2130706433/hook',
    'https://0x7f.1/hook',
    'https://10.0.0.5/hook',
    'https://169.254.169.254/latest/meta-data',
  ])('refuses %s', (url) => {
    expect(isNonPublicHost(hostOf(url))).toBe(true);
  });

  it.each(['https://merchant.example/hook', 'https://93.184.216.34/hook', 'https://[2606:4700::1111]/hook'])('allows %s', (url) => {
    expect(isNonPublicHost(hostOf(url))).toBe(false);
  });
});

describe('guardedLookup (delivery time)', () => {
  const resolverOf =
    (answers: Record<string, LookupAddress[]>): Resolver =>
    (hostname, callback) =>
      callback(null, answers[hostname] ?? []);

  function lookup(resolver: Resolver, hostname: string, allowNonPublic = false, all = false) {
    return new Promise<{ err: Error | null; address: unknown }>((resolve) =>
      guardedLookup({ allowNonPublic, resolver })(hostname, { all }, (err, address) => resolve({ err, address })),
    );
  }

  it('hands the socket the public address only, whatever else the name resolves to', async () => {
    const resolver = resolverOf({
      'mixed.example': [
        { address: '10.0.0.7', family: 4 },
        { address: '93.184.216.34', family: 4 },
      ],
    });
    expect(await lookup(resolver, 'mixed.example')).toEqual({ err: null, address: '93.184.216.34' });
    expect(await lookup(resolver, 'mixed.example', false, true)).toEqual({ err: null, address: [{ address: '93.184.216.34', family: 4 }] });
  });

  it('refuses a name that resolves only to private or loopback addresses', async () => {
    const resolver = resolverOf({ 'rebind.example': [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }] });
    const { err } = await lookup(resolver, 'rebind.example');
    expect(err).toBeInstanceOf(NonPublicAddressError);
  });

  it('checks every resolution, so a name that changes to a private address (DNS rebinding) is refused then', async () => {
    let calls = 0;
    const rebinding: Resolver = (_hostname, callback) =>
      callback(null, [{ address: calls++ === 0 ? '93.184.216.34' : '169.254.169.254', family: 4 }]);
    expect((await lookup(rebinding, 'flip.example')).address).toBe('93.184.216.34');
    expect((await lookup(rebinding, 'flip.example')).err).toBeInstanceOf(NonPublicAddressError);
  });

  it('lets explicit test configuration reach a local receiver', async () => {
    const resolver = resolverOf({ localhost: [{ address: '127.0.0.1', family: 4 }] });
    expect(await lookup(resolver, 'localhost', true)).toEqual({ err: null, address: '127.0.0.1' });
  });
});
