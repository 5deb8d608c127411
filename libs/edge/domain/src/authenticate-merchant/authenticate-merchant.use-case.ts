import { Inject, Injectable } from '@nestjs/common';
import { AuthMethod, GatewayError, newSupportCode } from '@gateway/contracts';
import { ApiPasswordPeppers } from '@gateway/crypto';
import { FailedAuthentication, MerchantEntity, REQUEST_THROTTLE, RequestThrottle, ThrottleVerdict } from '@gateway/edge/data-access';
import { APP_LOGGER, AppLogger, Metrics } from '@gateway/platform';
import type { Counter } from 'prom-client';
import { MerchantDirectory } from '../merchants/merchant-directory';
import { parseBasicAuthorization } from './basic-authorization';
import { CertificateRefusal, certificateProblemAt, certificateStanding, ClientCertificate } from './client-certificate';

/** The configured ApiPasswordPeppers (API_PASSWORD_PEPPERS, API_PASSWORD_PEPPER). */
export const API_PASSWORD_PEPPERS = Symbol('API_PASSWORD_PEPPERS');
export const AUTHENTICATION_OPTIONS = Symbol('AUTHENTICATION_OPTIONS');

export interface AuthenticationOptions {
  /** TLS_CLIENT_CERT=require: a request without a client certificate is not authenticated. */
  requireCertificate: boolean;
}

export interface AuthenticatedMerchant {
  merchant: MerchantEntity;
  method: AuthMethod;
}

/** What a request presents; the guard gathers it from the headers and the connection. */
export interface PresentedCredentials {
  /** The Authorization header, if any. */
  authorization?: string;
  /** The client certificate of the TLS connection or of the trusted proxy's header, if any. */
  certificate?: ClientCertificate | 'UNREADABLE';
  /** Where the request comes from (behind a trusted proxy, the address it forwarded). */
  clientAddress: string;
  /** The merchant id of the path, as sent: a certificate alone is checked against it. */
  pathMerchantId: string;
}

/** The stored hash a password matched, and whether it is to be re-hashed under the current pepper. */
interface MatchedPassword {
  which: 'passwordHash' | 'previousPasswordHash';
  stored: string;
  rehash: boolean;
}
const MERCHANT_ID = /^[0-9A-Za-z_-]{1,40}$/;

/**
 * The spec's two ways to authenticate, and how they combine
 * (docs/decisions/certificate-authentication.md):
 * - HTTP Basic: user `merchant.<merchantId>`, the merchant's API password. Every way of getting
 *   it wrong is the same 401, so the answer reveals nothing, and counts as a failure for the
 *   merchant and the client address; past their limit both are throttled (503), the right
 *   password included.
 * - A client certificate (TLS, or the header of a trusted proxy): trusted CA, in its validity
 *   period, registered by the merchant and not revoked; anything else is 403 with a support
 *   code, the reason logged. A certificate names no merchant: it is checked against the
 *   merchant of the Basic user if there is one, else the path's.
 * Both presented: both must hold, for the same merchant; the method is CERTIFICATE.
 * Then: a disabled merchant is 403; the merchant's request rate limit applies to all.
 */
@Injectable()
export class AuthenticateMerchant {
  private readonly failureCount: Counter<string>;
  private readonly throttledCount: Counter<string>;
  private readonly rehashCount: Counter<string>;
  /** Hashes this replica is re-hashing or re-hashed: a burst of requests before the profile is read again re-hashes once. */
  private readonly rehashing = new Set<string>();

  constructor(
    private readonly directory: MerchantDirectory,
    @Inject(API_PASSWORD_PEPPERS) private readonly peppers: ApiPasswordPeppers,
    @Inject(REQUEST_THROTTLE) private readonly throttle: RequestThrottle,
    @Inject(AUTHENTICATION_OPTIONS) private readonly options: AuthenticationOptions,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    metrics: Metrics,
  ) {
    this.failureCount = metrics.counter(
      'gateway_edge_authentication_failures_total',
      'Refused credentials at the edge by reason (wrong password, unknown merchant, certificate problem).',
      ['reason'],
    );
    this.throttledCount = metrics.counter('gateway_edge_throttled_requests_total', 'Requests answered SERVER_BUSY by the throttle, by reason.', [
      'reason',
    ]);
    this.rehashCount = metrics.counter(
      'gateway_edge_api_password_rehashes_total',
      'API password hashes re-hashed under the current pepper after authenticating under an older one (pepper rotation).',
    );
  }

  async execute(credentials: PresentedCredentials): Promise<AuthenticatedMerchant> {
    const certificate = this.usableCertificate(credentials);
    if (!certificate && (this.options.requireCertificate || credentials.authorization === undefined)) {
      // Nothing (or not enough) presented: the challenge, not counted as a failure, since
      // clients may send credentials only once challenged.
      throw invalidCredentials();
    }
    const byPassword = credentials.authorization === undefined ? null : await this.checkPassword(credentials);
    const authenticated = certificate
      ? await this.checkCertificate(certificate, byPassword?.id ?? credentials.pathMerchantId, byPassword, credentials.clientAddress)
      : byPassword!;
    if (authenticated.status !== 'ENABLED') {
      if (!certificate) {
        await this.refuseIfPasswordBlocked(authenticated.id, credentials.clientAddress);
      }
      const supportCode = newSupportCode();
      this.logger.warn({ supportCode, merchantId: authenticated.id }, 'disabled merchant refused');
      throw new GatewayError('REQUEST_REJECTED', { supportCode });
    }
    const verdict = await this.guarded(() =>
      this.throttle.admit({
        merchantId: authenticated.id,
        address: credentials.clientAddress,
        subjectToFailureBlock: !certificate,
        ratePerSecond: authenticated.settings.rateLimitPerSecond ?? 0,
      }),
    );
    if (verdict.throttled) {
      throw this.throttledError(verdict);
    }
    return { merchant: authenticated, method: certificate ? 'CERTIFICATE' : 'PASSWORD' };
  }

  /** The certificate presented, if any, once it is known to be readable, trusted and current. */
  private usableCertificate(credentials: PresentedCredentials): ClientCertificate | undefined {
    const { certificate } = credentials;
    if (certificate === undefined) {
      return undefined;
    }
    const problem = certificate === 'UNREADABLE' ? 'UNREADABLE' : certificateProblemAt(certificate, Date.now());
    if (problem || certificate === 'UNREADABLE') {
      throw this.refuseCertificate(problem ?? 'UNREADABLE', certificate, credentials.pathMerchantId);
    }
    return certificate;
  }

  private async checkPassword(credentials: PresentedCredentials): Promise<MerchantEntity> {
    const presentedAt = Date.now();
    const basic = parseBasicAuthorization(credentials.authorization);
    if (!basic) {
      return this.failed('MALFORMED', { address: credentials.clientAddress });
    }
    const cached = await this.directory.find(basic.merchantId);
    const matchedCached = this.passwordMatches(cached, basic.password);
    if (matchedCached) {
      await this.rehashIfOld(cached!, matchedCached, basic.password);
      return cached!;
    }
    // During a block the answer is the block's 503 whatever the password, and the right one gets
    // it at once: a refusal must not wait for the re-read below then, or the time it takes would
    // tell a wrong password from the right one (amendment 2026-11-27 (4)). Not counted: a guess
    // during a block learns nothing, and the work is the right password's (an HMAC, one read).
    await this.refuseIfPasswordBlocked(basic.merchantId, credentials.clientAddress);
    // Refused by a profile that may be older than the merchant's new password (or than the
    // merchant): judged again by one read since the request came before it counts as a failure.
    // An unknown id takes the same path (and HMACs) as a wrong password, so timing tells neither apart.
    const merchant = await this.storedSince(basic.merchantId, presentedAt, cached);
    const matches = this.passwordMatches(merchant, basic.password);
    if (!merchant) {
      // Counted against the claimed id like a wrong password, so the throttle's answers do not
      // tell which merchant ids exist either (docs/decisions/authentication-throttling.md,
      // amendment 2026-11-26).
      return this.failed('UNKNOWN_MERCHANT', { merchantId: basic.merchantId, address: credentials.clientAddress });
    }
    if (!matches) {
      return this.failed('WRONG_PASSWORD', { merchantId: merchant.id, address: credentials.clientAddress });
    }
    await this.rehashIfOld(merchant, matches, basic.password);
    return merchant;
  }

  /** The database unavailable for the re-read: the cached profile decides, and the failure counts as it always did. */
  private async storedSince(merchantId: string, since: number, cached: MerchantEntity | null): Promise<MerchantEntity | null> {
    try {
      return await this.directory.storedSince(merchantId, since);
    } catch (err) {
      this.logger.warn({ err, merchantId }, 'merchant profile could not be re-read for a refused password; the cached one decides');
      return cached;
    }
  }

  /** Counts the failure; 401, or 503 once the merchant or the address is past its limit. */
  private async failed(reason: string, failure: FailedAuthentication): Promise<never> {
    this.failureCount.inc({ reason });
    const verdict = await this.guarded(() => this.throttle.recordFailure(failure));
    throw verdict.throttled ? this.throttledError(verdict) : invalidCredentials();
  }

  /** `known`: the merchant whose password the request also presented, and matched. */
  private async checkCertificate(certificate: ClientCertificate, merchantId: string, known: MerchantEntity | null, address: string): Promise<MerchantEntity> {
    const merchant = known ?? (MERCHANT_ID.test(merchantId) ? await this.directory.find(merchantId) : null);
    const standing = merchant ? certificateStanding(merchant.settings.clientCertificates, certificate) : 'UNREGISTERED';
    if (standing !== 'REGISTERED') {
      if (known) {
        await this.refuseIfPasswordBlocked(known.id, address);
      }
      throw this.refuseCertificate(standing, certificate, merchantId);
    }
    return merchant!;
  }

  private refuseCertificate(reason: CertificateRefusal, certificate: ClientCertificate | 'UNREADABLE', merchantId: string): GatewayError {
    const supportCode = newSupportCode();
    this.failureCount.inc({ reason: `CERTIFICATE_${reason}` });
    const described =
      certificate === 'UNREADABLE'
        ? undefined
        : { source: certificate.source, fingerprint: certificate.fingerprint, subject: certificate.subject.slice(0, 300) };
    this.logger.warn(
      { supportCode, reason, certificate: described, merchantId: MERCHANT_ID.test(merchantId) ? merchantId : '(not a merchant id)' },
      'client certificate refused',
    );
    return new GatewayError('REQUEST_REJECTED', { supportCode });
  }

  /**
   * While the merchant or the address is blocked for failed passwords, every answer to a password
   * is the block's 503, the right password's included, so nothing tells a guess right or wrong
   * (docs/decisions/authentication-throttling.md, amendments 2026-11-27 (2) and (4)): checked
   * before a refusal only the right password reaches (its merchant disabled, or a certificate that
   * merchant did not register sent with it), and before a refused password waits for the profile's
   * re-read. The blocks are only read (no rate: nothing changes); the success path keeps its
   * single round trip.
   */
  private async refuseIfPasswordBlocked(merchantId: string, address: string): Promise<void> {
    const verdict = await this.guarded(() => this.throttle.admit({ merchantId, address, subjectToFailureBlock: true, ratePerSecond: 0 }));
    if (verdict.throttled) {
      throw this.throttledError(verdict);
    }
  }

  private throttledError(verdict: Extract<ThrottleVerdict, { throttled: true }>): GatewayError {
    this.throttledCount.inc({ reason: verdict.reason });
    return new GatewayError('THROTTLED', {
      explanation:
        verdict.reason === 'RATE_LIMIT'
          ? "The merchant's request rate limit is exceeded. Please retry later."
          : 'Too many failed authentication attempts. Please retry later.',
      retryAfterSeconds: Math.ceil(verdict.retryAfterMs / 1000),
    });
  }

  /**
   * The throttle's store (Redis) unavailable: refuse rather than authenticate unthrottled,
   * which would open brute force for as long as Redis is away. Order operations need Redis
   * for their lock anyway, and readiness takes the replica out of rotation meanwhile.
   */
  private async guarded(call: () => Promise<ThrottleVerdict>): Promise<ThrottleVerdict> {
    try {
      return await call();
    } catch (err) {
      this.logger.warn({ err }, 'request throttle unavailable');
      throw GatewayError.serverBusy();
    }
  }

  /** No merchant costs the same HMAC as a wrong password, so timing does not tell which merchant ids exist. */
  private passwordMatches(merchant: MerchantEntity | null, password: string): MatchedPassword | undefined {
    if (!merchant) {
      this.peppers.checkAgainstDummy(password);
      return undefined;
    }
    if (merchant.passwordHash) {
      const check = this.peppers.check(password, merchant.passwordHash);
      if (check.matches) {
        return { which: 'passwordHash', stored: merchant.passwordHash, rehash: check.rehash };
      }
    }
    if (
      merchant.previousPasswordHash !== null &&
      merchant.previousPasswordExpiresAt !== null &&
      merchant.previousPasswordExpiresAt.getTime() > Date.now()
    ) {
      const check = this.peppers.check(password, merchant.previousPasswordHash);
      if (check.matches) {
        return { which: 'previousPasswordHash', stored: merchant.previousPasswordHash, rehash: check.rehash };
      }
    }
    return undefined;
  }

  /**
   * A password that matched a hash under an older pepper is stored again under the current one
   * (docs/decisions/api-passwords-as-keyed-hashes.md, amendment 2026-11-26 (2)): one conditional
   * update, on the first authentication after the rotation, so the old pepper can be dropped once
   * no merchant holds a hash under it. The previous password (keep-previous window) is re-hashed
   * when it is the one used. A failure is logged and leaves the old hash, which still works.
   */
  private async rehashIfOld(merchant: MerchantEntity, matched: MatchedPassword, password: string): Promise<void> {
    if (!matched.rehash || this.rehashing.has(matched.stored)) {
      return;
    }
    if (this.rehashing.size > 10_000) {
      this.rehashing.clear();
    }
    this.rehashing.add(matched.stored);
    try {
      if (await this.directory.replacePasswordHash(merchant.id, matched.which, matched.stored, this.peppers.hash(password))) {
        this.rehashCount.inc();
      }
    } catch (err) {
      this.rehashing.delete(matched.stored);
      this.logger.warn({ err, merchantId: merchant.id }, 'API password could not be re-hashed under the current pepper; the next authentication tries again');
    }
  }
}

export function invalidCredentials(): GatewayError {
  return new GatewayError('INVALID_CREDENTIALS', { explanation: 'Invalid credentials.' });
}
