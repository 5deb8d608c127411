import { JsonObject } from '@gateway/contracts';
import { canonicalJson } from '@gateway/platform';

export interface ResponseContext {
  merchantId: string;
  version: number;
  /** The merchant's `correlationId`, echoed as sent. */
  correlationId?: string;
}

/**
 * The fields the edge adds to every operation response (`merchant`, `version`, the echoed
 * `correlationId`), and the serialisation of all responses: keys in alphabetical order at
 * every level, as the real gateway sends them.
 */
export function renderResponse(body: JsonObject, context: ResponseContext): string {
  const full: JsonObject = { ...body, merchant: context.merchantId, version: String(context.version) };
  if (context.correlationId !== undefined) {
    full.correlationId = context.correlationId;
  }
  return canonicalJson(full);
}

/** The time format of every response: YYYY-MM-DDThh:mm:ss.SSSZ. */
export function timeOfRecord(at: Date = new Date()): string {
  return at.toISOString();
}

/**
 * Another operation holds the order: processed (201) but refused, and nothing was created,
 * so the merchant may retry with the same transaction id.
 */
export function lockFailureBody(orderId: string, transactionId: string): JsonObject {
  return {
    order: { id: orderId },
    response: { gatewayCode: 'LOCK_FAILURE' },
    result: 'FAILURE',
    timeOfRecord: timeOfRecord(),
    transaction: { id: transactionId },
  };
}
