import { showValue } from '@gateway/api-fields';
import { GatewayError } from '@gateway/contracts';
import { MAX_AMOUNT, Money, MoneyError } from '@gateway/money';

/**
 * An order operation's business rejections in the spec's error shape (400, `error.field`,
 * `error.validationType`), worded like the edge's field validation. Values are quoted through
 * showValue, which cuts them short and masks anything that looks like a card number.
 */
export function invalid(field: string, value: string, reason: string): GatewayError {
  return GatewayError.invalidField(field, 'INVALID', `Value '${showValue(value)}' is invalid. ${reason}`);
}

/** The same for card data (card numbers, EMV data): the value is never repeated. */
export function invalidSensitive(field: string, reason: string): GatewayError {
  return GatewayError.invalidField(field, 'INVALID', `Value is invalid. ${reason}`);
}

export function missing(field: string, reason: string): GatewayError {
  return GatewayError.invalidField(field, 'MISSING', `Missing parameter ${field}. ${reason}`);
}

export function unsupported(field: string, reason: string): GatewayError {
  return GatewayError.invalidField(field, 'UNSUPPORTED', `Field ${field} is not supported here. ${reason}`);
}

/**
 * A request amount (DecIn) in a currency, as Money: an unknown currency is INVALID on the
 * currency's field; an amount with more decimals than the currency's minor units (at most 3,
 * what the API answers), or beyond the largest amount the API answers, on the amount's own.
 * The edge's request rules refuse these first; this is the second line for a message from
 * anywhere, so no amount column can overflow (docs/decisions/amount-bounds.md). `maximum`:
 * another bound the spec gives the field (agreement amounts per payment, MAX_AGREEMENT_AMOUNT).
 */
export function moneyField(
  amountField: string,
  amount: string,
  currencyField: string,
  currency: string,
  maximum = MAX_AMOUNT,
): Money {
  try {
    return Money.ofRequest(amount, currency, maximum);
  } catch (err) {
    if (err instanceof MoneyError && err.code === 'UNKNOWN_CURRENCY') {
      throw invalid(currencyField, currency, 'The currency is not an ISO 4217 currency code.');
    }
    if (err instanceof MoneyError) {
      throw invalid(amountField, amount, err.message);
    }
    throw err;
  }
}
