import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Admission control at the edge, shared by every edge replica (Redis) or held in the process
 * (standalone), behind one contract:
 * - failed authentications are counted per merchant and per client address in a fixed window;
 *   once either count reaches its limit, that merchant or address is blocked for the block
 *   period, whatever it sends, the right password included, so guessing gains nothing;
 * - a merchant's request rate is limited to its profile's `rateLimitPerSecond` (GCRA: a burst
 *   of one second's worth, then one request per 1/rate seconds).
 */
export interface ThrottleLimits {
  failuresPerMerchant: number;
  failuresPerAddress: number;
  /** The window failures are counted in, from the first one. */
  failureWindowMs: number;
  /** How long a merchant or address stays blocked once it reaches its limit. */
  blockMs: number;
}

export type ThrottleReason = 'AUTHENTICATION_FAILURES' | 'RATE_LIMIT';

export type ThrottleVerdict = { throttled: false } | { throttled: true; reason: ThrottleReason; retryAfterMs: number };

export interface AdmitRequest {
  merchantId: string;
  /** The client's address (behind a trusted proxy, the one it forwarded). */
  address: string;
  /**
   * Password authentication is refused while its merchant or address is blocked. A client
   * certificate is not: it cannot be guessed, and a merchant under a password attack keeps
   * working over its certificate.
   */
  subjectToFailureBlock: boolean;
  /** The merchant's request rate limit; 0 for none. */
  ratePerSecond: number;
}

export interface FailedAuthentication {
  /**
   * The merchant id the credentials claim, whether or not it exists: counting only existing ids
   * would block those alone and so tell an attacker which ids exist. Absent when no id could be
   * read (a malformed header). Keys expire with their window or block, so guessed ids cannot
   * fill the store for long; the in-memory throttle also caps its entries.
   */
  merchantId?: string;
  address: string;
}

export interface RequestThrottle {
  /** After valid credentials: may the request proceed? */
  admit(request: AdmitRequest): Promise<ThrottleVerdict>;
  /**
   * After invalid credentials: counts the failure. Throttled when the merchant or address had
   * already reached its limit, so the attempts past the limit are answered like the right
   * password would be (SERVER_BUSY), and an attacker learns nothing from them.
   */
  recordFailure(failure: FailedAuthentication): Promise<ThrottleVerdict>;
}

export const REQUEST_THROTTLE = Symbol('REQUEST_THROTTLE');

export const NOT_THROTTLED: ThrottleVerdict = Object.freeze({ throttled: false });

export function throttled(reason: ThrottleReason, retryAfterMs: number): ThrottleVerdict {
  return { throttled: true, reason, retryAfterMs: Math.max(1, Math.ceil(retryAfterMs)) };
}

export const throttleKeys = {
  merchantFailures: (merchantId: string) => `throttle:fail:merchant:${merchantId}`,
  addressFailures: (address: string) => `throttle:fail:address:${addressSource(address)}`,
  merchantRate: (merchantId: string) => `throttle:rate:${merchantId}`,
};

/**
 * The source an address's failures count against. An IPv4 address is itself (an IPv4-mapped
 * IPv6 one, as a dual-stack listener reports IPv4 peers, its IPv4 address); an IPv6 address is its
 * /64, the block a single host or site is given and can send from at will: counted per address,
 * each guess from a new address of it would go unlimited
 * (docs/decisions/authentication-throttling.md, amendment 2026-11-27 (3)). Anything that is not an
 * address (a test's name) is kept as it is.
 */
export function addressSource(address: string): string {
  const unzoned = address.split('%')[0];
  if (isIP(unzoned) !== 6) {
    return address;
  }
  const parsed = ipaddr.IPv6.parse(unzoned);
  if (parsed.isIPv4MappedAddress()) {
    return parsed.toIPv4Address().toString();
  }
  return `${parsed.parts
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
