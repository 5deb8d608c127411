import { GatewayError } from '../errors';
import { JsonObject } from '../messages';
import { isOrderApiOperation, ORDER_API_OPERATIONS, OrderApiOperation } from '../subjects';

/**
 * Reads `apiOperation` from an order operation body: MISSING when absent, INVALID when it is
 * not one of the operations this gateway serves on that path.
 */
export function readApiOperation(body: JsonObject): OrderApiOperation {
  const value = body.apiOperation;
  if (value === undefined || value === null) {
    throw GatewayError.invalidField('apiOperation', 'MISSING', 'Missing parameter apiOperation.');
  }
  if (!isOrderApiOperation(value)) {
    const shown = typeof value === 'string' ? value.slice(0, 50) : JSON.stringify(value).slice(0, 50);
    throw GatewayError.invalidField(
      'apiOperation',
      'INVALID',
      `Value '${shown}' is invalid. apiOperation must be one of ${ORDER_API_OPERATIONS.join(', ')}.`,
    );
  }
  return value;
}
