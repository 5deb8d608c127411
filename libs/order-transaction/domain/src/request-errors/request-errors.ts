import { showValue } from '@gateway/api-fields';
import { GatewayError } from '@gateway/contracts';
import { Money, MoneyError } from '@gateway/money';

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
 * currency's field, an amount with more decimals than the currency's minor units on the
 * amount's own.
 */
export function moneyField(amountField: string, amount: string, currencyField: string, currency: string): Money {
  try {
    return Money.of(amount, currency);
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
