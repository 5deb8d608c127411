import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isNonPublicAddress } from './outbound-address';

export class NonPublicAddressError extends Error {
  override name = 'NonPublicAddressError';
  readonly code = 'ENONPUBLIC';

  constructor(hostname: string) {
    super(`${hostname} resolves to no public address`);
  }
}

export type Resolver = (hostname: string, callback: (err: Error | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: Resolver = (hostname, callback) =>
  dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => callback(err, addresses ?? []));

/**
 * A `lookup` for outbound connections (net, tls, https) that resolves the host and hands the
 * socket only public addresses: the address checked is the address connected to, so a name
 * that resolves to a public address when checked and to 127.0.0.1 a moment later (DNS
 * rebinding) cannot reach the private one. `allowNonPublic` lets a test reach a local receiver.
 */
export function guardedLookup(options: { allowNonPublic: boolean; resolver?: Resolver }): LookupFunction {
  const resolve = options.resolver ?? systemResolver;
  return (hostname, lookupOptions, callback) => {
    resolve(hostname, (err, resolved) => {
      if (err) {
        callback(err as NodeJS.ErrnoException, '', 0);
        return;
      }
      const wanted = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : undefined;
      const usable = resolved.filter(
        (a) => (wanted === undefined || a.family === wanted) && (options.allowNonPublic || !isNonPublicAddress(a.address)),
      );
      if (usable.length === 0) {
        callback(new NonPublicAddressError(hostname) as unknown as NodeJS.ErrnoException, '', 0);
        return;
      }
      if (lookupOptions.all) {
        (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, usable);
      } else {
        callback(null, usable[0].address, usable[0].family);
      }
    });
  };
}
