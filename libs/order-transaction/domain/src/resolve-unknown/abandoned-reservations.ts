import { Inject, Injectable } from '@nestjs/common';
import { isJsonObject, JsonObject, MerchantMode } from '@gateway/contracts';
import { LedgerRepository, TransactionRow, UnknownInquiries } from '@gateway/order-transaction/data-access';
import { APP_LOGGER, AppLogger } from '@gateway/platform';
import { ABANDONED_RESERVATION_AFTER, isAbandonedReservation } from './resolution';

/**
 * Card reservations abandoned PENDING (their process died between the reservation and its
 * completion), noticed where a read of the ledger meets one: the merchant's retry of the
 * operation, any other operation on the order (both through BeginOperation's read), a GET of the
 * transaction or the order. Each is queued for the UNKNOWN inquiries (InquireUnknown), with the
 * merchant's mode from the request's profile, which the ledger keeps nowhere for a reservation.
 * The check runs on rows the read already holds; the queue's INSERT is the only write, and only
 * when an abandoned reservation is met (docs/decisions/unknown-resolution.md, amendment of
 * 2026-11-26). Never fails the request that met it: a failed INSERT is logged and tried again
 * by the next read that meets the reservation.
 */
@Injectable()
export class AbandonedReservations {
  constructor(
    private readonly inquiries: UnknownInquiries,
    private readonly ledger: LedgerRepository,
    @Inject(ABANDONED_RESERVATION_AFTER) private readonly afterMs: number,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /** Whether `transaction`, as read at `now`, is an abandoned card reservation. */
  isAbandoned(transaction: TransactionRow, now: Date = new Date()): boolean {
    return isAbandonedReservation(transaction, now, this.afterMs);
  }

  /**
   * A GET answered a stored PENDING body for `transactionId`: the order's transactions are read
   * (two reads, only on this path) and each abandoned reservation among them queued. Never throws.
   */
  async noticeOnRetrieval(merchant: { id: string; mode: MerchantMode }, orderId: string, transactionId: string): Promise<void> {
    try {
      const apiOperation = await this.ledger.operationOf(merchant.id, orderId, transactionId);
      const seen = apiOperation ? await this.ledger.findForBegin(merchant.id, orderId, transactionId, apiOperation) : null;
      if (seen) {
        await this.notice(merchant, orderId, seen.contents.transactions);
      }
    } catch (err) {
      this.logger.warn({ err, merchantId: merchant.id, orderId, transactionId }, 'order not checked for abandoned card reservations');
    }
  }

  /** Queues for inquiry each of the order's `transactions` that is an abandoned card reservation. */
  async notice(merchant: { id: string; mode: MerchantMode }, orderId: string, transactions: readonly TransactionRow[], now: Date = new Date()): Promise<void> {
    for (const transaction of transactions) {
      if (!this.isAbandoned(transaction, now)) {
        continue;
      }
      const key = { merchantId: merchant.id, orderId, transactionId: transaction.transactionId };
      try {
        const added = await this.inquiries.addAbandoned({ ...key, merchantMode: merchant.mode, recordedAt: transaction.updatedAt });
        if (!added) {
          continue;
        }
        this.logger.warn(
          { ...key, apiOperation: transaction.apiOperation, since: transaction.updatedAt.toISOString() },
          'card reservation abandoned PENDING: queued for an inquiry at the acquirer',
        );
      } catch (err) {
        this.logger.warn({ err, ...key }, 'card reservation abandoned PENDING not queued for inquiry; the next read that meets it tries again');
      }
    }
  }
}

/**
 * Whether a stored response is a card reservation's PENDING body (what a GET answers while it is
 * open, or for ever once abandoned). Not a refund request awaiting approval nor a payment waiting
 * at its provider, which merchants poll and which can never be abandoned card reservations: a GET
 * of those reads nothing more.
 */
export function answersPending(body: JsonObject): boolean {
  const { response, sourceOfFunds, transaction } = body;
  return (
    body.result === 'PENDING' &&
    isJsonObject(response) &&
    response.gatewayCode === 'PENDING' &&
    isJsonObject(sourceOfFunds) &&
    sourceOfFunds.type === 'CARD' &&
    !(isJsonObject(transaction) && transaction.type === 'REFUND_REQUEST')
  );
}
