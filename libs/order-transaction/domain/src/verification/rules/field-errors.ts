import { GatewayError } from '@gateway/contracts';
import { Money, MoneyError } from '@gateway/money';

/** `Value '<v>' is invalid. <reason>`, for values that are not sensitive (truncated). */
export function invalidValue(field: string, value: string, reason: string): GatewayError {
  return GatewayError.invalidField(field, 'INVALID', `Value '${value.slice(0, 50)}' is invalid. ${reason}`);
}

/** The same for values that may hold card data (EMV data, card numbers): never echoed. */
export function invalidSensitiveValue(field: string, reason: string): GatewayError {
  return GatewayError.invalidField(field, 'INVALID', `Value is invalid. ${reason}`);
}

export function missingField(field: string, reason: string): GatewayError {
  return GatewayError.invalidField(field, 'MISSING', `Missing parameter ${field}. ${reason}`);
}

export function unsupportedField(field: string, reason: string): GatewayError {
  return GatewayError.invalidField(field, 'UNSUPPORTED', `Parameter ${field} is not supported. ${reason}`);
}

/**
 * A request amount (DecIn) in the order currency, as Money: an amount with more decimals
 * than the currency's minor units is INVALID on the amount's own field.
 */
export function moneyField(field: string, amount: string, currency: string): Money {
  try {
    return Money.of(amount, currency);
  } catch (err) {
    if (err instanceof MoneyError && err.code === 'UNKNOWN_CURRENCY') {
      throw invalidValue('order.currency', currency, 'The currency is not an ISO 4217 currency code.');
    }
    if (err instanceof MoneyError) {
      throw invalidValue(field, amount, err.message);
    }
    throw err;
  }
}
