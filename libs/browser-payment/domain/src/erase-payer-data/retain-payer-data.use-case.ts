import type { BrowserPaymentPayerDataRepository, UnstrippedPayment } from '@gateway/browser-payment/data-access';
import { type AppLogger, forEachRetentionPage, retainOrder, type RetentionPassOptions } from '@gateway/platform';
import type { EraseBrowserPaymentPayerData } from './erase-payer-data.use-case';

/** What one run of the retention did, in counts (never data, never ids): its log line. */
export type BrowserPaymentRetentionReport = {
  /** Orders whose browser payments were stripped now. */
  erased: number;
  /** Orders with nothing left to strip, or with a payment step since the run read them. */
  unchanged: number;
  /** Orders passed because another of their payments is still under way: read again once it ends. */
  unfinished: number;
  /** Orders whose erasure failed: each logged, left for the next run. */
  failed: number;
};

/**
 * browser-payment's payer personal-data retention (docs/decisions/payer-personal-data.md, item 2,
 * amendment 2026-11-27): the orders of the payments whose journey is over and whose last step is
 * PERSONAL_DATA_RETENTION_DAYS old are stripped exactly as `payer-data erase` strips them
 * (EraseBrowserPaymentPayerData: one transaction per order, its payment rows locked), and their
 * payments marked stripped in the same transaction. A run reads the finished payments not marked,
 * by initiation, a page at a time, from the first, each order once. A payment under way is not
 * read; an order with one under way beside a finished one is refused by the erasure, left whole,
 * and read again by every run until that journey ends. An order that fails is logged, passed, and
 * read again by the next run. A run stops between orders when the process stops (an order cut off
 * by the shutdown committed nothing, and is done again). Replicas: as the ledger's
 * (RetainPayerData).
 */
export class RetainBrowserPaymentPayerData {
  constructor(
    private readonly repository: BrowserPaymentPayerDataRepository,
    private readonly erasure: Pick<EraseBrowserPaymentPayerData, 'execute'>,
    private readonly options: RetentionPassOptions,
    private readonly logger: AppLogger,
    private readonly now: () => number = Date.now,
  ) {}

  async run(stopping: () => boolean): Promise<BrowserPaymentRetentionReport> {
    const report: BrowserPaymentRetentionReport = { erased: 0, unchanged: 0, unfinished: 0, failed: 0 };
    const idleBefore = new Date(this.now() - this.options.retentionMs);
    // An order is done once a run, whichever of its payments names it first.
    const done = new Set<string>();
    await forEachRetentionPage(
      (after: UnstrippedPayment | null) => this.repository.unstrippedPayments(after, idleBefore, this.options.pageSize),
      async (payment) => {
        const order = JSON.stringify([payment.merchantId, payment.orderId]);
        if (!done.has(order)) {
          done.add(order);
          await retainOrder(
            payment,
            async () => {
              const { status } = await this.erasure.execute({ merchantId: payment.merchantId, orderId: payment.orderId, dryRun: false, retention: { idleBefore } });
              return status === 'ERASED' ? 'erased' : status === 'REFUSED' ? 'unfinished' : 'unchanged';
            },
            report,
            stopping,
            this.logger,
            "payer's personal data past retention not stripped from the order's browser payments: the next retention run tries it again",
          );
        }
      },
      this.options,
      stopping,
    );
    return report;
  }
}
