import { FieldProblem, invalidValue } from '@gateway/api-fields';
import {
  amountDecimalPlaces,
  Decimal,
  MAX_AGREEMENT_AMOUNT,
  MAX_AMOUNT,
  MAX_AMOUNT_DECIMAL_PLACES,
  minorUnits,
  parseDecimal,
  withinMaxAmount,
} from '@gateway/money';
import type { BrowserPaymentOrderBase, ConfirmBrowserPaymentRequest, InitiateBrowserPaymentRequest } from './browser-payment.requests';
import type { CaptureRequest, CardPaymentRequest } from './card-payment.requests';
import type { RefundRequest } from './refund.request';
import type { SaveTokenRequest } from './save-token.request';
import type { LineItem } from './shared-groups';
import type { VerifyRequest } from './verify.request';

/**
 * The stateless rules across fields (issue 3, item 4), run once every field has passed its
 * type. All arithmetic is exact decimal arithmetic (libs/money): never a JS number. Rules that
 * need state (refund limits, sessions, the initiate a confirm refers to) belong to the
 * services.
 */

interface Amount {
  path: string;
  value: string | undefined;
  /** The field's own largest amount either side of zero, where the spec gives it one. */
  maximum?: string;
}

// Amounts the API can answer: bounded, and within the currency's minor units ---------------------

/**
 * Every amount of the request is one the API can answer (docs/decisions/amount-bounds.md):
 * at most MAX_AMOUNT, the spec's DecOut maximum (item unit prices and unit tax, which may be
 * negative, at least its negative), and with at most the decimals ISO 4217 gives the currency,
 * never more than DecOut's 3. Each request class runs it through its `...AmountsAnswerable` rule.
 */
function answerableAmounts(currency: string | undefined, amounts: Amount[]): FieldProblem | null {
  const places = currency === undefined ? undefined : amountDecimalPlaces(currency);
  for (const { path, value, maximum = MAX_AMOUNT } of amounts) {
    if (value === undefined) {
      continue;
    }
    const amount = parseDecimal(value);
    if (!withinMaxAmount(amount, maximum)) {
      return invalidValue(path, value, amount.isNegative() ? `must be at least -${maximum}` : `must be at most ${maximum}`);
    }
    // No currency in this request (a confirm keeps its initiate's): the service checks places.
    if (currency !== undefined && places !== undefined && amount.decimalPlaces() > places) {
      return invalidValue(path, value, tooManyPlaces(currency, places));
    }
  }
  return null;
}

function tooManyPlaces(currency: string, places: number): string {
  // "at most 0 decimal places" reads as a riddle: JPY, KRW ... amounts are whole numbers.
  if (places === 0) return `must be a whole number for ${currency}, which has no minor unit`;
  const allowed = places === 1 ? '1 decimal place' : `${places} decimal places`;
  const units = minorUnits(currency);
  return units === places
    ? `must have at most ${allowed} for ${currency}`
    : `must have at most ${allowed} for ${currency}: ISO 4217 gives ${currency} ${units}, but the gateway answers amounts with at most ${MAX_AMOUNT_DECIMAL_PLACES}`;
}

function itemAmounts(prefix: string, items: LineItem[] | undefined): Amount[] {
  return (items ?? []).flatMap((item, i) => [
    { path: `${prefix}[${i}].unitPrice`, value: item.unitPrice },
    { path: `${prefix}[${i}].unitTaxAmount`, value: item.unitTaxAmount },
  ]);
}

function orderAmounts(order: BrowserPaymentOrderBase): Amount[] {
  return [
    { path: 'order.amount', value: order.amount },
    { path: 'order.itemAmount', value: order.itemAmount },
    { path: 'order.shippingAndHandlingAmount', value: order.shippingAndHandlingAmount },
    { path: 'order.taxAmount', value: order.taxAmount },
    ...itemAmounts('order.item', order.item),
    ...(order.tax ?? []).map((tax, i) => ({ path: `order.tax[${i}].amount`, value: tax.amount })),
  ];
}

/** Verify's and the card payments' agreement and external authentication amounts. */
function agreementAndAuthenticationAmounts(request: VerifyRequest | CardPaymentRequest): Amount[] {
  return [
    { path: 'agreement.maximumAmountPerPayment', value: request.agreement?.maximumAmountPerPayment, maximum: MAX_AGREEMENT_AMOUNT },
    { path: 'agreement.minimumAmountPerPayment', value: request.agreement?.minimumAmountPerPayment, maximum: MAX_AGREEMENT_AMOUNT },
    { path: 'authentication.amount', value: request.authentication?.amount },
  ];
}

export function refundAmountsAnswerable(request: RefundRequest): FieldProblem | null {
  const transaction = request.transaction;
  return answerableAmounts(transaction.currency, [
    { path: 'transaction.amount', value: transaction.amount },
    { path: 'transaction.taxAmount', value: transaction.taxAmount },
    ...itemAmounts('transaction.item', transaction.item),
  ]);
}

export function browserPaymentAmountsAnswerable(
  request: InitiateBrowserPaymentRequest | ConfirmBrowserPaymentRequest,
): FieldProblem | null {
  return request.order ? answerableAmounts(request.order.currency, orderAmounts(request.order)) : null;
}

export function cardPaymentAmountsAnswerable(request: CardPaymentRequest): FieldProblem | null {
  return answerableAmounts(request.order.currency, [...orderAmounts(request.order), ...agreementAndAuthenticationAmounts(request)]);
}

export function captureAmountsAnswerable(request: CaptureRequest): FieldProblem | null {
  const transaction = request.transaction;
  return answerableAmounts(transaction.currency, [
    { path: 'transaction.amount', value: transaction.amount },
    { path: 'transaction.taxAmount', value: transaction.taxAmount },
    ...itemAmounts('transaction.item', transaction.item),
  ]);
}

export function verifyAmountsAnswerable(request: VerifyRequest): FieldProblem | null {
  return answerableAmounts(request.order.currency, agreementAndAuthenticationAmounts(request));
}

// Refund and payment amounts are greater than zero --------------------------------------------

function positive(path: string, value: string | undefined): FieldProblem | null {
  return value !== undefined && !parseDecimal(value).greaterThan(0) ? invalidValue(path, value, 'must be greater than zero') : null;
}

export function refundAmountPositive(request: RefundRequest): FieldProblem | null {
  return positive('transaction.amount', request.transaction.amount);
}

export function initiateAmountPositive(request: InitiateBrowserPaymentRequest): FieldProblem | null {
  return positive('order.amount', request.order.amount);
}

export function cardPaymentAmountPositive(request: CardPaymentRequest): FieldProblem | null {
  return positive('order.amount', request.order.amount);
}

export function capturableAmountPositive(request: CaptureRequest): FieldProblem | null {
  return positive('transaction.amount', request.transaction.amount);
}

export function confirmAmountPositive(request: ConfirmBrowserPaymentRequest): FieldProblem | null {
  return positive('order.amount', request.order?.amount);
}

// A transaction's tax is part of its amount ----------------------------------------------------

/**
 * `transaction.taxAmount` of a CAPTURE or REFUND is the tax included in `transaction.amount`
 * (ledger.messages.ts), so it is at most that amount. Each request's tax is bounded by
 * MAX_AMOUNT alone otherwise, and a full refund's default tax, the sum of the taxes captured,
 * could then pass what the API answers and the tax column holds (a 500): within its amount,
 * that sum is within the order's captured total, which the ledger keeps within MAX_AMOUNT
 * (docs/decisions/amount-consistency-rules.md, amendment 2026-11-26). AUTHORIZE's and PAY's
 * order.taxAmount is a sub-total of order.amount already (rule 1 below).
 */
export function transactionTaxWithinAmount(request: RefundRequest | CaptureRequest): FieldProblem | null {
  const { amount, taxAmount } = request.transaction;
  if (amount === undefined || taxAmount === undefined || !parseDecimal(taxAmount).greaterThan(parseDecimal(amount))) {
    return null;
  }
  return invalidValue('transaction.taxAmount', taxAmount, `must be at most transaction.amount (${amount}): the tax is part of the amount`);
}

// Amount consistency (initiate and confirm) ----------------------------------------------------

/**
 * The spec's three amount consistency rules, in its order, on the amounts the request carries
 * (docs/decisions/amount-consistency-rules.md):
 *   1. order.amount and any sub-total given: the sub-totals given sum to order.amount;
 *   2. order.itemAmount and line items given: itemAmount = sum of quantity x unitPrice;
 *   3. order.taxAmount and line items with unitTaxAmount given: taxAmount = sum of
 *      quantity x unitTaxAmount.
 */
export function amountConsistency(request: InitiateBrowserPaymentRequest | ConfirmBrowserPaymentRequest): FieldProblem | null {
  return request.order ? orderAmountConsistency(request.order, true) : null;
}

/** AUTHORIZE and PAY give the whole order: the same three rules as an initiate. */
export function cardPaymentAmountConsistency(request: CardPaymentRequest): FieldProblem | null {
  return orderAmountConsistency(request.order, true);
}

/**
 * A confirm changes its initiate's amounts: a sub-total it does not give keeps its initiated
 * value, which only browser-payment knows. So rule 1 is checked here only when the confirm gives
 * all three sub-totals; browser-payment checks every rule again on the amounts as confirmed.
 */
export function confirmAmountConsistency(request: ConfirmBrowserPaymentRequest): FieldProblem | null {
  const order = request.order;
  if (!order) {
    return null;
  }
  const allSubTotals = [order.itemAmount, order.shippingAndHandlingAmount, order.taxAmount].every((value) => value !== undefined);
  return orderAmountConsistency(order, allSubTotals);
}

function orderAmountConsistency(order: BrowserPaymentOrderBase, checkSubTotals: boolean): FieldProblem | null {
  const subTotals = [
    ['order.itemAmount', order.itemAmount],
    ['order.shippingAndHandlingAmount', order.shippingAndHandlingAmount],
    ['order.taxAmount', order.taxAmount],
  ].filter((entry): entry is [string, string] => entry[1] !== undefined);
  if (checkSubTotals && order.amount !== undefined && subTotals.length > 0) {
    const sum = sumOf(subTotals.map(([, value]) => parseDecimal(value)));
    if (!sum.equals(parseDecimal(order.amount))) {
      const names = subTotals.map(([path]) => path).join(' + ');
      return invalidValue('order.amount', order.amount, `must equal ${names} (${sum.toFixed()})`);
    }
  }
  const items = order.item;
  if (items && order.itemAmount !== undefined) {
    const sum = sumOf(items.map((item) => parseDecimal(item.unitPrice).times(item.quantity)));
    if (!sum.equals(parseDecimal(order.itemAmount))) {
      return invalidValue('order.itemAmount', order.itemAmount, `must equal the sum of quantity x unitPrice of order.item (${sum.toFixed()})`);
    }
  }
  if (items && order.taxAmount !== undefined && items.some((item) => item.unitTaxAmount !== undefined)) {
    const sum = sumOf(items.map((item) => (item.unitTaxAmount === undefined ? parseDecimal('0') : parseDecimal(item.unitTaxAmount).times(item.quantity))));
    if (!sum.equals(parseDecimal(order.taxAmount))) {
      return invalidValue('order.taxAmount', order.taxAmount, `must equal the sum of quantity x unitTaxAmount of order.item (${sum.toFixed()})`);
    }
  }
  return null;
}

function sumOf(values: Decimal[]): Decimal {
  return values.reduce((sum, value) => sum.plus(value), parseDecimal('0'));
}

// Required only in context -------------------------------------------------------------------

/** Browser payment rule 2: provider_b needs the bank identifier the caller collected from the payer. */
export function providerBBankIdentifier(request: InitiateBrowserPaymentRequest): FieldProblem | null {
  const sourceOfFunds = request.sourceOfFunds;
  if (sourceOfFunds.type === 'PROVIDER_B' && !sourceOfFunds.provided?.provider_b) {
    return new FieldProblem(
      'sourceOfFunds.provided.provider_b.bankIdentifier',
      'MISSING',
      'Missing parameter sourceOfFunds.provided.provider_b.bankIdentifier. It is required when sourceOfFunds.type is PROVIDER_B.',
    );
  }
  return null;
}

/**
 * sourceOfFunds.type is REQUIRED on a token request, except that "with a token alone it may be
 * left unset": sourceOfFunds.token given and no provided details.
 */
export function sourceOfFundsTypeUnlessTokenOnly(request: SaveTokenRequest): FieldProblem | null {
  const sourceOfFunds = request.sourceOfFunds;
  const tokenOnly = sourceOfFunds.token !== undefined && sourceOfFunds.provided === undefined;
  if (sourceOfFunds.type === undefined && !tokenOnly) {
    return new FieldProblem(
      'sourceOfFunds.type',
      'MISSING',
      'Missing parameter sourceOfFunds.type. It is required unless only sourceOfFunds.token is given.',
    );
  }
  return null;
}
