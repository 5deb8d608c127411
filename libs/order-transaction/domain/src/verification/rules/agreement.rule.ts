import type { Agreement } from '@gateway/contracts';
import { MAX_AGREEMENT_AMOUNT } from '@gateway/money';
import { invalid, missing, moneyField } from '../../request-errors/request-errors';

/** The earliest time zone is UTC-12: a date that is "today" anywhere is not in the past. */
const EARLIEST_UTC_OFFSET_MS = 12 * 60 * 60 * 1000;

/**
 * The spec's agreement rules, checked before the acquirer is called: `startDate` is not in
 * the past, a RECURRING agreement states `amountVariability`, amounts are valid in the order
 * currency (minor units). Two consistency checks a merchant would expect as well: the
 * minimum amount does not exceed the maximum, and the agreement does not expire before it
 * starts. `agreement` is the one the operation runs on: a later payment's has the established
 * agreement's terms filled in (docs/decisions/agreements.md). `reusedStartDate`: its start date
 * is the established agreement's, not the request's, and is naturally in the past by now; only
 * a start date the request gives must not be.
 */
export function checkAgreement(
  agreement: Agreement | undefined,
  currency: string,
  now: Date,
  { reusedStartDate = false }: { reusedStartDate?: boolean } = {},
): void {
  if (!agreement) {
    return;
  }
  if (!reusedStartDate && agreement.startDate !== undefined && agreement.startDate < earliestToday(now)) {
    throw invalid(
      'agreement.startDate',
      agreement.startDate,
      'The agreement start date must not be in the past.',
    );
  }
  if (agreement.type === 'RECURRING' && agreement.amountVariability === undefined) {
    throw missing(
      'agreement.amountVariability',
      'Recurring agreements must state whether the amount is FIXED or VARIABLE.',
    );
  }
  checkAmounts(agreement, currency);
  if (
    agreement.startDate !== undefined &&
    agreement.expiryDate !== undefined &&
    agreement.expiryDate < agreement.startDate
  ) {
    throw invalid(
      'agreement.expiryDate',
      agreement.expiryDate,
      'The agreement cannot expire before its start date.',
    );
  }
}

function checkAmounts(agreement: Agreement, currency: string): void {
  const minimum =
    agreement.minimumAmountPerPayment === undefined
      ? undefined
      : moneyField(
          'agreement.minimumAmountPerPayment',
          agreement.minimumAmountPerPayment,
          'order.currency',
          currency,
          MAX_AGREEMENT_AMOUNT,
        );
  const maximum =
    agreement.maximumAmountPerPayment === undefined
      ? undefined
      : moneyField(
          'agreement.maximumAmountPerPayment',
          agreement.maximumAmountPerPayment,
          'order.currency',
          currency,
          MAX_AGREEMENT_AMOUNT,
        );
  if (minimum && maximum && minimum.greaterThan(maximum)) {
    throw invalid(
      'agreement.minimumAmountPerPayment',
      agreement.minimumAmountPerPayment!,
      'The minimum amount per payment cannot exceed the maximum amount per payment.',
    );
  }
}

/** yyyy-mm-dd of the current date in the earliest time zone (ISO dates compare as strings). */
function earliestToday(now: Date): string {
  return new Date(now.getTime() - EARLIEST_UTC_OFFSET_MS).toISOString().slice(0, 10);
}
