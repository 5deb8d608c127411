import { BlockList, isIP } from 'node:net';

// Where the gateway may send a request a merchant chose the address of (webhook
// notifications): public unicast addresses only. Everything else reaches the gateway's own
// network, a cloud metadata service or nothing useful (server-side request forgery).

/** A network address and its prefix length: `10.0.0.0` and 8 for 10.0.0.0/8. */
export interface AddressRange {
  readonly network: string;
  readonly prefix: number;
}

/** IPv4 ranges that are not public unicast. The dispatcher's egress policy excepts each (k8s manifest spec). */
export const NON_PUBLIC_IPV4: readonly AddressRange[] = [
  { network: '0.0.0.0', prefix: 8 }, // "this network"
  { network: '10.0.0.0', prefix: 8 }, // private
  { network: '100.64.0.0', prefix: 10 }, // carrier-grade NAT
  { network: '127.0.0.0', prefix: 8 }, // loopback
  { network: '169.254.0.0', prefix: 16 }, // link-local, cloud metadata (169.254.169.254)
  { network: '172.16.0.0', prefix: 12 }, // private
  { network: '192.0.0.0', prefix: 24 }, // IETF protocol assignments
  { network: '192.0.2.0', prefix: 24 }, // documentation
  { network: '192.88.99.0', prefix: 24 }, // 6to4 relay anycast
  { network: '192.168.0.0', prefix: 16 }, // private
  { network: '198.18.0.0', prefix: 15 }, // benchmarking
  { network: '198.51.100.0', prefix: 24 }, // documentation
  { network: '203.0.113.0', prefix: 24 }, // documentation
  { network: '224.0.0.0', prefix: 4 }, // multicast
  { network: '240.0.0.0', prefix: 4 }, // reserved, broadcast
];

/**
 * IPv6 ranges that are not public unicast, beside the forms that carry an IPv4 address
 * (`EMBEDDED_IPV4`, judged by that address). The dispatcher's egress policy excepts each.
 */
export const NON_PUBLIC_IPV6: readonly AddressRange[] = [
  { network: '::', prefix: 128 }, // unspecified
  { network: '::1', prefix: 128 }, // loopback
  { network: '100::', prefix: 64 }, // discard
  // Transition forms that reach an IPv4 address of their own choosing through a relay or
  // translator (one the gateway's network may run): 6to4, Teredo, local-use NAT64. Deprecated
  // or local, so no merchant's receiver needs them; the well-known NAT64 prefix is judged by
  // the IPv4 address it carries (EMBEDDED_IPV4).
  { network: '2002::', prefix: 16 }, // 6to4
  { network: '2001::', prefix: 32 }, // Teredo
  { network: '64:ff9b:1::', prefix: 48 }, // local-use NAT64
  { network: '2001:db8::', prefix: 32 }, // documentation
  { network: 'fc00::', prefix: 7 }, // unique local
  { network: 'fe80::', prefix: 10 }, // link-local
  { network: 'ff00::', prefix: 8 }, // multicast
];

const NOT_PUBLIC = new BlockList();
for (const { network, prefix } of NON_PUBLIC_IPV4) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const { network, prefix } of NON_PUBLIC_IPV6) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** IPv6 forms that carry an IPv4 address: judged by that address. */
const EMBEDDED_IPV4 = [/^::ffff:(?:0:)?(\d+\.\d+\.\d+\.\d+)$/i, /^64:ff9b::(\d+\.\d+\.\d+\.\d+)$/i, /^::(\d+\.\d+\.\d+\.\d+)$/];

/** True for anything but a public unicast address (an unparsable address counts as not public). */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) {
    return NOT_PUBLIC.check(address, 'ipv4');
  }
  if (family === 6) {
    const embedded = embeddedIpv4(address);
    if (embedded) {
      return NOT_PUBLIC.check(embedded, 'ipv4');
    }
    return NOT_PUBLIC.check(address, 'ipv6');
  }
  return true;
}

/**
 * A URL host that names a non-public address without any DNS lookup: an IP literal (the URL
 * parser has already turned decimal, octal and hex IPv4 forms into dotted quads) or a
 * `localhost` name. Hosts that only resolve to such addresses are caught at delivery time.
 */
export function isNonPublicHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (isIP(host) !== 0) {
    return isNonPublicAddress(host);
  }
  return host === 'localhost' || host.endsWith('.localhost');
}

function embeddedIpv4(address: string): string | null {
  const expanded = mappedHexToDotted(address);
  for (const pattern of EMBEDDED_IPV4) {
    const match = pattern.exec(expanded);
    if (match) {
      return match[1];
    }
  }
  return null;
}

/** `::ffff:7f00:1` (how the URL parser writes an IPv4-mapped address) as `::ffff:127.0.0.1`. */
function mappedHexToDotted(address: string): string {
  const match = /^(::ffff:|64:ff9b::|::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!match) {
    return address;
  }
  const high = parseInt(match[2], 16);
  const low = parseInt(match[3], 16);
  return `${match[1]}${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}
