import type { BrowserPaymentPayerDataRepository, PaymentPayerData } from '@gateway/browser-payment/data-access';
import { returnUrlKept, withoutPersonalData } from '@gateway/contracts';
import type { AppLogger, EraseOrderCommand, OrderErasure } from '@gateway/platform';

/**
 * What the erasure did to one order's browser payments, in counts: never the data. NOT_FOUND:
 * the merchant has no browser payment on the order. REFUSED: one of them is not over yet, and
 * nothing of the order is changed.
 */
export interface BrowserPaymentPayerDataErasure extends OrderErasure {
  status: 'ERASED' | 'WOULD_ERASE' | 'UNCHANGED' | 'NOT_FOUND' | 'REFUSED';
  /** Payments whose request, return URL or provider details held personal data. */
  payments: number;
  /** Payments whose journey is not over (a REFUSED order's reason). */
  unfinished: number;
}

/**
 * `payer-data erase` in browser-payment (docs/decisions/payer-personal-data.md, item 3): strips a
 * payer's personal data from the browser payments of an order when the merchant forwards the
 * payer's erasure request: the fields the log scrubber hides (contracts' withoutPersonalData)
 * from the stored request and the provider's details of the payer's account, and the user info,
 * query and fragment of the return URL, in the column as in the request (returnUrlKept). Kept: ids, amounts, currency, status, result and
 * gateway code, the provider and its reference, the order's description, items and amounts,
 * the masked account, the times. One database transaction per order holding its payment rows.
 *
 * A payment whose journey is not over (result PENDING) still needs what it keeps: its request
 * for the merchant's confirm and the ledger's record of it, its return URL for the payer's way
 * back. Its order is refused, nothing of it changed, until the journey ends (the payer's return
 * and the provider's answer, the merchant's confirm, or the expiry sweep's TIMED_OUT). The step
 * that ends it already wrote the request without the payer's data (PaymentSteps, keptAtEnd); what
 * is left here is the provider's details and the return URL, and the request of a payment that
 * ended before that was so.
 */
export class EraseBrowserPaymentPayerData {
  constructor(
    private readonly repository: BrowserPaymentPayerDataRepository,
    private readonly logger: AppLogger,
  ) {}

  execute({ merchantId, orderId, dryRun, retention }: EraseOrderCommand): Promise<BrowserPaymentPayerDataErasure> {
    return this.repository.transaction(async (records) => {
      const payments = await records.payments(merchantId, orderId, !dryRun);
      const answer = (status: BrowserPaymentPayerDataErasure['status'], counts: { payments?: number; unfinished?: number } = {}): BrowserPaymentPayerDataErasure => ({
        merchantId,
        orderId,
        status,
        payments: 0,
        unfinished: 0,
        ...counts,
      });
      if (payments.length === 0) {
        return answer('NOT_FOUND');
      }
      const unfinished = payments.filter((payment) => payment.result === 'PENDING').length;
      if (unfinished > 0) {
        return answer('REFUSED', { unfinished });
      }
      if (retention && payments.some((payment) => payment.updatedAt >= retention.idleBefore)) {
        // A step since the retention read the order (a capture at the provider): not past retention any more.
        return answer('UNCHANGED');
      }
      const stripped = payments.flatMap(strippedPayment);
      if (stripped.length === 0) {
        if (retention && !dryRun) {
          await records.markStripped(merchantId, orderId);
        }
        return answer('UNCHANGED');
      }
      if (dryRun) {
        return answer('WOULD_ERASE', { payments: stripped.length });
      }
      for (const payment of stripped) {
        await records.write(payment);
      }
      // The lasting record that the erasure was done: ids and counts, as the command prints them
      // (the retention job's record is its run's counts, and its mark on the payments).
      if (retention) {
        await records.markStripped(merchantId, orderId);
      } else {
        this.logger.info({ merchantId, orderId, payments: stripped.length }, "payer's personal data erased from the order's browser payments");
      }
      return answer('ERASED', { payments: stripped.length });
    });
  }
}

/** The payment without its payer's data, or nothing when it held none (erased before, or never given). */
function strippedPayment(payment: PaymentPayerData): PaymentPayerData[] {
  const request = withoutPersonalData(payment.request);
  const providerDetails = payment.providerDetails === null ? null : withoutPersonalData(payment.providerDetails);
  const returnUrl = returnUrlKept(payment.returnUrl);
  const changed = request !== payment.request || providerDetails !== payment.providerDetails || returnUrl !== payment.returnUrl;
  return changed ? [{ ...payment, request, providerDetails, returnUrl }] : [];
}
