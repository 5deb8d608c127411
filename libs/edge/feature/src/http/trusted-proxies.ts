import { BlockList } from 'node:net';
import { parseAddressList } from '../edge.config';

/**
 * TRUSTED_PROXIES: the addresses whose forwarded headers the edge believes (X-Forwarded-For
 * for the client's address, and the client certificate header). Checked against the TCP peer
 * of the connection, never against anything the request says about itself.
 */
export class TrustedProxies {
  readonly entries: string[];
  private readonly ranges = new BlockList();

  constructor(list: string) {
    const ranges = parseAddressList(list);
    if (!ranges) {
      throw new Error(`TRUSTED_PROXIES is not a list of addresses: ${list}`);
    }
    for (const range of ranges) {
      this.ranges.addSubnet(range.address, range.prefix, range.family);
    }
    this.entries = ranges.map((r) => `${r.address}/${r.prefix}`);
  }

  includes(address: string | undefined): boolean {
    if (!address || this.entries.length === 0) {
      return false;
    }
    // A dual-stack listener reports IPv4 peers as IPv4-mapped IPv6 addresses.
    const plain = address.startsWith('::ffff:') && address.includes('.') ? address.slice('::ffff:'.length) : address;
    return this.ranges.check(plain, plain.includes(':') ? 'ipv6' : 'ipv4');
  }
}
