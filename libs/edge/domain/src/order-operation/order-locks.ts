import { Inject, Injectable } from '@nestjs/common';
import { GatewayError } from '@gateway/contracts';
import { AcquireOptions, Lease, LOCK_SERVICE, LockService } from '@gateway/locking';
import { APP_LOGGER, AppLogger, Metrics } from '@gateway/platform';

/**
 * The per-order lock every operation on an order takes (ARCHITECTURE 4.9), the merchant's
 * operations and the payer's browser-payment steps alike. Null when another holder kept it for
 * the whole wait; SERVER_BUSY when the lock store is unavailable, since no operation may run
 * unserialised.
 */
@Injectable()
export class OrderLocks {
  constructor(
    @Inject(LOCK_SERVICE) private readonly locks: LockService,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly metrics: Metrics,
  ) {}

  async acquire(merchantId: string, orderId: string, options: AcquireOptions): Promise<Lease | null> {
    const started = process.hrtime.bigint();
    let lease: Lease | null;
    try {
      lease = await this.locks.acquire(`${merchantId}:${orderId}`, options);
    } catch (err) {
      this.logger.warn({ err }, 'order lock unavailable');
      throw GatewayError.serverBusy();
    }
    this.metrics.lockWait.observe({ outcome: lease ? 'acquired' : 'timeout' }, Number(process.hrtime.bigint() - started) / 1e9);
    return lease;
  }

  /**
   * One try, for the gateway's own steps (the expired payment sweep): null when the order is
   * busy, which is not a merchant's LOCK_FAILURE and is not counted as one.
   */
  tryAcquire(merchantId: string, orderId: string, ttlMs: number): Promise<Lease | null> {
    return this.locks.acquire(`${merchantId}:${orderId}`, { waitMs: 0, ttlMs });
  }

  release(lease: Lease): void {
    lease.release().catch((err: unknown) => this.logger.warn({ err }, 'order lock release failed'));
  }
}
