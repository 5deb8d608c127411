import { Decimal, minorUnits, Money } from '@gateway/money';
import type { ExpiryOutcome } from './expiry-outcomes';

/**
 * The test acquirer's partial approvals (docs/test-acquirer.md). An AUTHORIZE or PAY whose
 * amount, written in the currency's minor units, ends in `51` finds the test issuer short of
 * funds: 51 is ISO 8583's "insufficient funds", so the magic value reads as the answer it
 * gives. The issuer then approves half the amount, rounded down to the currency's minor units
 * (10.51 USD → 5.25, 1051 JPY → 525, 1.051 BHD → 0.525), if the merchant accepts a partial
 * approval (`order.acceptPartialAmount`), and declines with INSUFFICIENT_FUNDS otherwise:
 * the spec's "if supported it must be true or the transaction is rejected".
 */
export const PARTIAL_APPROVAL_MINOR_UNITS_SUFFIX = '51';

/** The share of the amount the test issuer approves: a decimal, never a binary fraction. */
export const PARTIAL_APPROVAL_FRACTION = new Decimal('0.5');

export const PARTIALLY_APPROVED: ExpiryOutcome = {
  gatewayCode: 'PARTIALLY_APPROVED',
  acquirerCode: '10',
  acquirerMessage: 'Approved for partial amount',
  issuerAnswered: true,
};

export const INSUFFICIENT_FUNDS: ExpiryOutcome = {
  gatewayCode: 'INSUFFICIENT_FUNDS',
  acquirerCode: '51',
  acquirerMessage: 'Insufficient funds',
  issuerAnswered: true,
};

export interface AmountOutcome {
  readonly outcome: ExpiryOutcome;
  readonly approvedAmount: Money;
}

/**
 * What the issuer makes of the amount once the card itself would be approved; undefined when
 * the amount is not the magic one (the card's outcome stands, for the full amount).
 */
export function amountOutcome(amount: Money, acceptPartialAmount: boolean): AmountOutcome | undefined {
  if (!isPartialApprovalAmount(amount)) {
    return undefined;
  }
  if (!acceptPartialAmount) {
    return { outcome: INSUFFICIENT_FUNDS, approvedAmount: amount };
  }
  return { outcome: PARTIALLY_APPROVED, approvedAmount: partialAmount(amount) };
}

/** The amount in minor units ends in 51: "10.51" USD, "1051" JPY, "10.051" BHD. */
export function isPartialApprovalAmount(amount: Money): boolean {
  return amount.toFixed().replace('.', '').endsWith(PARTIAL_APPROVAL_MINOR_UNITS_SUFFIX);
}

/** Rounded down: an issuer short of funds never approves more than it said it would. */
function partialAmount(amount: Money): Money {
  const exponent = minorUnits(amount.currency) ?? 0;
  const approved = amount.amount
    .times(PARTIAL_APPROVAL_FRACTION)
    .toDecimalPlaces(exponent, Decimal.ROUND_DOWN);
  return Money.of(approved.toFixed(), amount.currency);
}
