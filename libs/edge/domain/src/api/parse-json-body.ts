import { GatewayError, JsonObject } from '@gateway/contracts';
import secureJsonParse from 'secure-json-parse';

/**
 * The body as JSON, parsed by us (after authentication and path checks, as the order of
 * checks requires). `__proto__` and `constructor.prototype` keys are refused outright: they
 * have no meaning in the API and are how prototype pollution starts.
 */
export function parseJsonBody(raw: unknown): JsonObject {
  const text = typeof raw === 'string' ? raw : Buffer.isBuffer(raw) ? raw.toString('utf8') : '';
  if (text.trim() === '') {
    throw unparsable('The request body is empty; a JSON object is expected.');
  }
  let parsed: unknown;
  try {
    parsed = secureJsonParse.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    throw unparsable('The request body is not valid JSON.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw unparsable('The request body must be a JSON object.');
  }
  return parsed as JsonObject;
}

function unparsable(explanation: string): GatewayError {
  return new GatewayError('UNPARSABLE_REQUEST', { explanation });
}
