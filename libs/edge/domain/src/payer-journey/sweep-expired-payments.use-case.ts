import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  ExpiredPayment,
  ExpiredPaymentsCursor,
  ExpiredPaymentsQuery,
  ExpiredPaymentsReply,
  SettleExpiredPaymentMessage,
  SettleExpiredPaymentReply,
  SettlementOutcome,
  SUBJECTS,
} from '@gateway/contracts';
import { APP_LOGGER, AppLogger, MessageBus, runWithRequestContext } from '@gateway/platform';
import { MerchantDirectory, toMerchantContext } from '../merchants/merchant-directory';
import { OrderLocks } from '../order-operation/order-locks';
import { PAYER_JOURNEY_OPTIONS, PayerJourneyOptions } from './dispatch-payer-journey.use-case';

/** Due payments asked for at a time; a sweep asks for the next page while pages come back full. */
export const EXPIRED_PAYMENTS_BATCH = 100;

/** What one sweep did: settlement outcomes, orders busy (left for the next sweep) and failures (logged). */
export type SweepReport = Record<SettlementOutcome | 'BUSY' | 'FAILED', number>;

/**
 * The gateway's own step on browser payments whose redirect token expired before the journey
 * ended (browser-payment's SettleExpiredPayments says what settling does). The edge does it
 * because it owns the per-order lock every change to an order runs under (ARCHITECTURE 4.9):
 * it asks which payments are due, locks each one's order without waiting (a busy order is
 * left for the next sweep), and sends the settlement with the lock's fencing token, authMethod
 * GATEWAY. Every edge replica sweeps; two reaching the same payment are serialised by the lock,
 * and the second finds it no longer due.
 */
@Injectable()
export class SweepExpiredPayments {
  constructor(
    private readonly bus: MessageBus,
    private readonly locks: OrderLocks,
    private readonly merchants: MerchantDirectory,
    @Inject(PAYER_JOURNEY_OPTIONS) private readonly options: PayerJourneyOptions,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /**
   * One sweep: page by page through every payment due, until a page comes back short or
   * `shouldStop` says so. Paging on from the last payment seen (not asking for the first ones
   * again) keeps payments left busy or failing from holding back those after them.
   */
  async sweep(shouldStop: () => boolean = () => false): Promise<SweepReport> {
    const report: SweepReport = { COMPLETED: 0, RETURNED: 0, TIMED_OUT: 0, DISCARDED: 0, NOT_DUE: 0, BUSY: 0, FAILED: 0 };
    let after: ExpiredPaymentsCursor | undefined;
    let page: ExpiredPayment[];
    do {
      const query: ExpiredPaymentsQuery = { requestId: randomUUID(), limit: EXPIRED_PAYMENTS_BATCH, ...(after ? { after } : {}) };
      ({ payments: page } = await this.bus.request<ExpiredPaymentsReply>(SUBJECTS.browserPayment.expiredDue, query));
      for (const payment of page) {
        if (shouldStop()) return report;
        report[await this.settle(payment)]++;
      }
      after = cursorAfter(page);
    } while (after !== undefined && page.length === EXPIRED_PAYMENTS_BATCH && !shouldStop());
    return report;
  }

  /**
   * Under a request id of its own, on every line this settlement writes here (the bus's "service
   * unavailable" and support codes included) as in browser-payment and the ledger, which get it
   * in the envelope.
   */
  private settle(payment: ExpiredPayment): Promise<keyof SweepReport> {
    const requestId = randomUUID();
    return runWithRequestContext({ requestId, merchantId: payment.merchantId }, () => this.settleAs(requestId, payment));
  }

  private async settleAs(requestId: string, payment: ExpiredPayment): Promise<keyof SweepReport> {
    try {
      const merchant = await this.merchants.find(payment.merchantId);
      if (!merchant) {
        // The admin commands never delete a merchant; a row removed by hand leaves no one to record for.
        this.logger.warn({ requestId, ...payment }, 'expired browser payment of an unknown merchant left as it is');
        return 'FAILED';
      }
      const lease = await this.locks.tryAcquire(merchant.id, payment.orderId, this.options.ttlMs);
      if (!lease) {
        return 'BUSY';
      }
      try {
        const message: SettleExpiredPaymentMessage = {
          envelope: {
            merchant: toMerchantContext(merchant),
            apiVersion: this.options.apiVersion,
            requestId,
            authMethod: 'GATEWAY',
            fencingToken: lease.fencingToken,
          },
          paymentId: payment.paymentId,
        };
        const { outcome } = await this.bus.request<SettleExpiredPaymentReply>(SUBJECTS.browserPayment.expiredSettle, message);
        this.logger.info({ requestId, ...payment, outcome }, 'expired browser payment settled');
        return outcome;
      } finally {
        this.locks.release(lease);
      }
    } catch (err) {
      this.logger.warn({ requestId, ...payment, err }, 'expired browser payment not settled; the next sweep tries again');
      return 'FAILED';
    }
  }
}

/**
 * Where the next page starts: after the page's last payment. None when the page came from a
 * browser-payment of a release that does not page (a rolling deploy): it answers no
 * `tokenExpiresAt` and ignores `after`, so asking again would return the same page, and payments
 * left busy or failing on it would keep the sweep asking until the edge stops. Their next sweep
 * tries them again (docs/decisions/message-compatibility-across-a-roll.md).
 */
function cursorAfter(page: ExpiredPayment[]): ExpiredPaymentsCursor | undefined {
  const last = page.at(-1);
  return last?.tokenExpiresAt === undefined ? undefined : { tokenExpiresAt: last.tokenExpiresAt, paymentId: last.paymentId };
}
