import { GatewayError, JsonObject } from '@gateway/contracts';
import { JsonProblem, parseStrictJson } from './strict-json.parser';

export const JSON_BODY_LIMITS = Symbol('JSON_BODY_LIMITS');

export interface JsonBodyLimits {
  /** Deepest nesting of objects and arrays accepted; the body itself is level 1. */
  maxDepth: number;
}

// `fatal`: bytes that are not UTF-8 are refused, never turned into U+FFFD behind our back.
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The body as a JSON object, parsed by us (after authentication and path checks, as the order
 * of checks requires): UTF-8 only, strict JSON, no duplicate or prototype-polluting keys, no
 * number we could not carry exactly, nesting bounded (see strict-json.parser.ts). Every
 * refusal is a 400 INVALID_REQUEST whose explanation says what is wrong and where, without
 * quoting the body (it may hold card data).
 */
export function parseJsonBody(raw: unknown, limits: JsonBodyLimits): JsonObject {
  const text = decode(raw);
  if (text.trim() === '') {
    throw unparsable('The request body is empty; a JSON object is expected.');
  }
  let parsed: unknown;
  try {
    parsed = parseStrictJson(text, limits);
  } catch (err) {
    if (err instanceof JsonProblem) {
      throw refusal(err);
    }
    throw err;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw unparsable('The request body must be a JSON object.');
  }
  return parsed as JsonObject;
}

function decode(raw: unknown): string {
  if (typeof raw === 'string') {
    return raw;
  }
  if (raw instanceof Uint8Array) {
    try {
      return UTF8.decode(raw);
    } catch {
      throw unparsable('The request body is not valid UTF-8 text.');
    }
  }
  return '';
}

function refusal(problem: JsonProblem): GatewayError {
  switch (problem.kind) {
    case 'SYNTAX':
      return unparsable(`The request body is not valid JSON: ${problem.detail} at character ${problem.offset + 1}.`);
    case 'TOO_DEEP':
      return unparsable(`The request body is nested more than ${problem.detail} levels deep.`);
    case 'DUPLICATE_KEY':
      return GatewayError.invalidField(
        problem.path,
        'INVALID',
        `Field ${problem.path} is given more than once; each field may appear only once in its object.`,
      );
    case 'FORBIDDEN_KEY':
      return GatewayError.invalidField(
        problem.path,
        'UNSUPPORTED',
        `Field name '${problem.detail}' is not allowed: no field of this API has that name.`,
      );
    case 'IMPRECISE_NUMBER':
      if (problem.path === '') {
        return unparsable('The request body must be a JSON object.');
      }
      // The digits are not quoted: the JSON layer cannot tell a card number from an amount.
      return GatewayError.invalidField(
        problem.path,
        'INVALID',
        `Value is invalid. ${problem.path} is a JSON number that cannot be read exactly (${problem.detail}); send amounts and identifiers as JSON strings.`,
      );
  }
}

function unparsable(explanation: string): GatewayError {
  return new GatewayError('UNPARSABLE_REQUEST', { explanation });
}
