import { BlockList, isIP } from 'node:net';

/**
 * Where the gateway may send a request a merchant chose the address of (webhook
 * notifications): public unicast addresses only. Everything else reaches the gateway's own
 * network, a cloud metadata service or nothing useful (server-side request forgery).
 */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard
  // Transition forms that reach an IPv4 address of their own choosing through a relay or
  // translator (one the gateway's network may run): 6to4, Teredo, local-use NAT64. Deprecated
  // or local, so no merchant's receiver needs them; the well-known NAT64 prefix is judged by
  // the IPv4 address it carries (EMBEDDED_IPV4).
  ['2002::', 16], // 6to4
  ['2001::', 32], // Teredo
  ['64:ff9b:1::', 48], // local-use NAT64
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
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
