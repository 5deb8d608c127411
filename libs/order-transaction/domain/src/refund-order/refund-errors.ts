import { showValue } from '@gateway/api-fields';
import { GatewayError } from '@gateway/contracts';

/**
 * A refund's business rejections in the spec's error shape (400, `error.field`,
 * `error.validationType`), worded like the edge's field validation. Values are quoted through
 * showValue, which masks anything that looks like a card number.
 */
export function invalid(field: string, value: string, reason: string): GatewayError {
  return GatewayError.invalidField(field, 'INVALID', `Value '${showValue(value)}' is invalid. ${reason}`);
}

/** The same for card data: the value is never repeated. */
export function invalidSensitive(field: string, reason: string): GatewayError {
  return GatewayError.invalidField(field, 'INVALID', `Value is invalid. ${reason}`);
}

export function missing(field: string, reason: string): GatewayError {
  return GatewayError.invalidField(field, 'MISSING', `Missing parameter ${field}. ${reason}`);
}

export function unsupported(field: string, reason: string): GatewayError {
  return GatewayError.invalidField(field, 'UNSUPPORTED', `Field ${field} is not supported here. ${reason}`);
}
