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
