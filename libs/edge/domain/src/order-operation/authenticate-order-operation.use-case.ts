import { Inject, Injectable } from '@nestjs/common';
import { Lease } from '@gateway/locking';
import { APP_LOGGER, AppLogger } from '@gateway/platform';
import { AuthenticatedMerchant, AuthenticateMerchant, PresentedCredentials } from '../authenticate-merchant/authenticate-merchant.use-case';
import { ORDER_LOCK_OPTIONS, OrderLockOptions } from './dispatch-order-operation.use-case';
import { OrderLocks } from './order-locks';

export interface AuthenticatedOrderOperation {
  authenticated: AuthenticatedMerchant;
  /** The order's lock when the first try got it; the caller releases it once the operation is done. */
  lease: Lease | null;
}

/**
 * An order operation's credentials and throttle, as every request's (AuthenticateMerchant), with
 * the order lock's first try sent in the same tick as the throttle's admission: ioredis writes
 * the two commands together and their replies come back together, one Redis round trip before
 * the service is asked where admission, then the lock, took two
 * (docs/decisions/authentication-throttling.md, amendment 2026-11-26 (4)).
 *
 * The throttle decides first, as before: a refused request's lease is released before the
 * refusal is answered, so it holds no lock once answered; its admission is the same single
 * command as ever, so it takes no throttle slot it did not take before. An order id the
 * controller will refuse (400) is not tried; a busy order (no lease) is waited for by
 * DispatchOrderOperation once the request is checked, as before.
 */
@Injectable()
export class AuthenticateOrderOperation {
  constructor(
    private readonly authenticate: AuthenticateMerchant,
    private readonly locks: OrderLocks,
    @Inject(ORDER_LOCK_OPTIONS) private readonly lockOptions: OrderLockOptions,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async execute(credentials: PresentedCredentials, orderId: string | null): Promise<AuthenticatedOrderOperation> {
    const authenticated = await this.authenticate.checkCredentials(credentials);
    // Both commands are on their way before either is awaited.
    const admitted = this.authenticate.admit(authenticated, credentials.clientAddress);
    const firstTry = orderId === null ? Promise.resolve(null) : this.locks.firstTry(authenticated.merchant.id, orderId, this.lockOptions.ttlMs);
    const [admission, tried] = await Promise.allSettled([admitted, firstTry]);
    const lease = tried.status === 'fulfilled' ? tried.value : null;
    if (admission.status === 'rejected') {
      if (lease) {
        await lease.release().catch((err: unknown) => this.logger.warn({ err }, 'order lock release failed; the lease lapses at its expiry'));
      }
      throw admission.reason;
    }
    return { authenticated, lease };
  }
}
