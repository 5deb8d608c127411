import type { PayerDataRepository, UnstrippedOrder } from '@gateway/order-transaction/data-access';
import { type AppLogger, forEachRetentionPage, retainOrder, type RetentionPassOptions } from '@gateway/platform';
import type { ErasePayerData } from './erase-payer-data.use-case';

/** What one run of the retention did, in counts (never data, never ids): its log line. */
export type LedgerRetentionReport = {
  /** Orders stripped now. */
  erased: number;
  /**
   * Orders with nothing to strip (never given any, or stripped on a payer's request), in use again
   * since they were read, or held at that moment by another transaction (passed, not waited for).
   */
  unchanged: number;
  /** Orders whose erasure failed: each logged, left for the next run. */
  failed: number;
};

/**
 * The ledger's payer personal-data retention (docs/decisions/payer-personal-data.md, item 2,
 * amendment 2026-11-27): the orders whose last operation is PERSONAL_DATA_RETENTION_DAYS old are
 * stripped exactly as `payer-data erase` strips them on request (ErasePayerData: one transaction
 * per order on its locked row, its notifications held against the dispatcher, a deadlock victim
 * run again), and marked stripped in the same transaction. A run reads the orders not marked, by
 * creation, a page at a time, from the first: a stripped order is read no more until its next
 * operation clears the mark, and an order that fails (a webhook delivery of it in flight, which
 * a run does not wait for; a statement timeout) is logged, passed, and read again by the next
 * run. A run stops between orders when the process stops (an order cut off by the shutdown
 * committed nothing, and is done again).
 *
 * An order whose row another transaction holds is passed, not waited for: an operation being
 * recorded (the order is in use) or another replica stripping it. So replicas run it side by side,
 * each order stripped by the one that took its row first, and the run never queues behind a live
 * operation's lock (amendment 2026-11-28).
 */
export class RetainPayerData {
  constructor(
    private readonly repository: PayerDataRepository,
    private readonly erasure: Pick<ErasePayerData, 'execute'>,
    private readonly options: RetentionPassOptions,
    private readonly logger: AppLogger,
    private readonly now: () => number = Date.now,
  ) {}

  async run(stopping: () => boolean): Promise<LedgerRetentionReport> {
    const report: LedgerRetentionReport = { erased: 0, unchanged: 0, failed: 0 };
    const idleBefore = new Date(this.now() - this.options.retentionMs);
    await forEachRetentionPage(
      (after: UnstrippedOrder | null) => this.repository.unstrippedOrders(after, idleBefore, this.options.pageSize),
      (order) =>
        retainOrder(
          order,
          async () => {
            const { status } = await this.erasure.execute({ merchantId: order.merchantId, orderId: order.orderId, dryRun: false, retention: { idleBefore } });
            // NOT_FOUND cannot be (the order was just read, and orders are never deleted): counted as nothing to strip.
            return status === 'ERASED' ? 'erased' : 'unchanged';
          },
          report,
          stopping,
          this.logger,
          "payer's personal data past retention not stripped from the order: the next retention run tries it again",
        ),
      this.options,
      stopping,
    );
    return report;
  }
}
