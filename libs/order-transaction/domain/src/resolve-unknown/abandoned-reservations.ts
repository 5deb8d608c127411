import { Inject, Injectable } from '@nestjs/common';
import { isJsonObject, JsonObject, MerchantMode } from '@gateway/contracts';
import { LedgerRepository, TransactionRow, UnknownInquiries } from '@gateway/order-transaction/data-access';
import { APP_LOGGER, AppLogger, Metrics } from '@gateway/platform';
import type { Counter } from 'prom-client';
import { ABANDONED_RESERVATION_AFTER, isAbandonedReservation } from './resolution';

export const ABANDONED_RESERVATIONS_QUEUED_METRIC = 'gateway_abandoned_reservations_queued_total';

/**
 * The most of the ledger, by creation time, one step of the sweep reads: its normal window is
 * the sweep's interval (a minute); a cursor left behind (an upgrade starting from the oldest
 * reservation, the sweep turned off a while) is caught up an hour at a time, each step one
 * bounded bitmap scan of the BRIN on created_at.
 */
export const SWEEP_WINDOW_MS = 3_600_000;

/** What one sweep did: SKIPPED while another replica's sweep holds the cursor. */
export type AbandonedSweep = { outcome: 'SWEPT'; queued: number; sweptTo: Date; behind: boolean } | { outcome: 'SKIPPED' };

/**
 * Card reservations abandoned PENDING (their process died between the reservation and its
 * completion), noticed where a read of the ledger meets one: the merchant's retry of the
 * operation, any other operation on the order (both through BeginOperation's read), a GET of the
 * transaction or the order. Each is queued for the UNKNOWN inquiries (InquireUnknown), with the
 * merchant's mode from the request's profile, which the ledger keeps nowhere for a reservation.
 * The check runs on rows the read already holds; the queue's INSERT, one statement for all the
 * order's abandoned reservations, is the only write, and only when one is met
 * (docs/decisions/unknown-resolution.md, amendment of 2026-11-26). Never fails the request that
 * met it: a failed INSERT is logged and tried again by the next read that meets the reservation.
 * Those nobody reads again are found by the sweep (`sweep`, run by AbandonedReservationSweeper).
 */
@Injectable()
export class AbandonedReservations {
  private readonly queuedCount: Counter<string>;
  /** Whether this process has said its sweep cannot summarise the BRIN it reads (once: it would every minute). */
  private unsummarisedWarned = false;
  /** Whether this process has said its sweep's summary of the BRIN failed (once, with the first reason). */
  private summaryFailureWarned = false;

  constructor(
    private readonly inquiries: UnknownInquiries,
    private readonly ledger: LedgerRepository,
    @Inject(ABANDONED_RESERVATION_AFTER) private readonly afterMs: number,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    metrics: Metrics,
  ) {
    this.queuedCount = metrics.counter(
      ABANDONED_RESERVATIONS_QUEUED_METRIC,
      'Card reservations abandoned PENDING queued for an inquiry at the acquirer, by who found them: a read that met one (READ) or the periodic sweep (SWEEP).',
      ['source'],
      [{ source: 'READ' }, { source: 'SWEEP' }],
    );
  }

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

  /** Queues for inquiry, in one statement, the order's `transactions` that are abandoned card reservations; none: nothing is done. */
  async notice(merchant: { id: string; mode: MerchantMode }, orderId: string, transactions: readonly TransactionRow[], now: Date = new Date()): Promise<void> {
    const abandoned = transactions.filter((transaction) => this.isAbandoned(transaction, now));
    if (abandoned.length === 0) {
      return;
    }
    try {
      const added = new Set(
        await this.inquiries.addAbandoned(
          merchant,
          orderId,
          abandoned.map((t) => ({ transactionId: t.transactionId, recordedAt: t.updatedAt })),
        ),
      );
      for (const transaction of abandoned.filter((t) => added.has(t.transactionId))) {
        this.logger.warn(
          { merchantId: merchant.id, orderId, transactionId: transaction.transactionId, apiOperation: transaction.apiOperation, since: transaction.updatedAt.toISOString() },
          'card reservation abandoned PENDING: queued for an inquiry at the acquirer',
        );
      }
      this.queuedCount.inc({ source: 'READ' }, added.size);
    } catch (err) {
      const transactionIds = abandoned.map((t) => t.transactionId);
      this.logger.warn({ err, merchantId: merchant.id, orderId, transactionIds }, 'card reservation abandoned PENDING not queued for inquiry; the next read that meets it tries again');
    }
  }

  /**
   * A step of the sweep: queues the card reservations created in the window after the sweep's
   * cursor that are still PENDING (UnknownInquiries.sweepAbandoned: the same rule, in SQL), the
   * window ending ABANDONED_RESERVATION_AFTER_MS before the database's clock and spanning
   * SWEEP_WINDOW_MS at most. One replica sweeps at a time; the others skip. Throws when the
   * database cannot be reached: the cursor has not moved, the next sweep tries again.
   */
  async sweep(): Promise<AbandonedSweep> {
    const swept = await this.inquiries.sweepAbandoned({ afterMs: this.afterMs, windowMs: SWEEP_WINDOW_MS });
    if (!swept) {
      return { outcome: 'SKIPPED' };
    }
    const { queued, sweptTo, behind, summarises, summaryFailure } = swept;
    if (!summarises && !this.unsummarisedWarned) {
      this.unsummarisedWarned = true;
      this.logger.warn(
        { index: 'order_transaction.transactions_created_at_brin_idx' },
        "the sweep cannot summarise the BRIN it reads (the service's role does not own order_transaction.transactions): each step reads every page inserted since the last VACUUM; make the role the table's owner, or VACUUM it often",
      );
    }
    if (summaryFailure !== null && !this.summaryFailureWarned) {
      this.summaryFailureWarned = true;
      this.logger.warn(
        { index: 'order_transaction.transactions_created_at_brin_idx', reason: summaryFailure },
        'the sweep could not summarise the BRIN it reads: it sweeps without the summary, each step reading every page inserted since the last VACUUM; restore the index (IndexTransactionCreation1765200000000) and the role\'s ownership of order_transaction.transactions',
      );
    }
    if (queued.length > 0) {
      this.queuedCount.inc({ source: 'SWEEP' }, queued.length);
      this.logger.warn(
        {
          queued: queued.length,
          oldest: queued.reduce((oldest, q) => (q.recordedAt < oldest ? q.recordedAt : oldest), queued[0].recordedAt).toISOString(),
          transactions: queued.slice(0, 20).map((q) => `${q.merchantId}/${q.orderId}/${q.transactionId}`),
          sweptTo: sweptTo.toISOString(),
        },
        'card reservations abandoned PENDING found by the sweep: queued for an inquiry at the acquirer',
      );
    }
    return { outcome: 'SWEPT', queued: queued.length, sweptTo, behind };
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
