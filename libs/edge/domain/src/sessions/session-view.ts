import { CompiledField, compileSchema, CompiledSchema } from '@gateway/api-fields';
import { isJsonObject, LineItem, SessionUpdateRequest } from '@gateway/contracts';
import type { JsonObject, JsonValue } from '@gateway/contracts';
import type { StoredSession } from '@gateway/edge/data-access';
import { decimalToJsonNumber, quantityToJson } from '@gateway/money';
import { mergeValues } from './session-fields';

/**
 * A session as its responses show it: the values it holds, the card as the vault masked it
 * (never more: the edge has nothing more), and `session.{id, updateStatus, version}`. Amounts
 * and line item quantities are shown as every response shows them (ARCHITECTURE 4.5): JSON
 * numbers, while the session keeps the strings it was given, which fill operations.
 */
export function sessionView(session: StoredSession): JsonObject {
  const card: JsonObject = session.card ? { sourceOfFunds: { provided: { card: session.card.masked } } } : {};
  return {
    ...mergeValues(forResponse(compileSchema(SessionUpdateRequest), session.fields), card),
    result: 'SUCCESS',
    session: { id: session.id, updateStatus: session.updateStatus, version: session.version },
  };
}

/** The values with each DecIn a number (every one of at most 14 characters, so exact) and each quantity an Int. */
function forResponse(schema: CompiledSchema, values: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(values)) {
    const field = schema.byName.get(key);
    out[key] = field ? valueForResponse(schema, field, value) : value;
  }
  return out;
}

function valueForResponse(schema: CompiledSchema, field: CompiledField, value: JsonValue): JsonValue {
  const meta = field.meta;
  if (meta.kind === 'group' && isJsonObject(value)) {
    return forResponse(field.schema(), value);
  }
  if (meta.kind === 'array' && Array.isArray(value)) {
    return value.map((entry) => (isJsonObject(entry) ? forResponse(field.schema(), entry) : entry));
  }
  if (meta.kind !== 'value' || typeof value !== 'string') {
    return value;
  }
  if (meta.type.notation.startsWith('DecIn')) {
    return amountForResponse(value);
  }
  return schema.target === LineItem && field.name === 'quantity' ? quantityToJson(value) : value;
}

/** Every stored DecIn passed the update's check; one that somehow did not is shown as it is kept, never a 500. */
function amountForResponse(text: string): JsonValue {
  try {
    return decimalToJsonNumber(text);
  } catch {
    return text;
  }
}
