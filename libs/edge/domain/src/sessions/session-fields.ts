import { CompiledField, compileSchema, CompiledSchema, RequestClass } from '@gateway/api-fields';
import { isJsonObject, jsonObjectAt } from '@gateway/contracts';
import type { ExplicitCardFields, JsonObject } from '@gateway/contracts';

/** The fields of a session update that are not kept as session values. */
const NOT_KEPT = ['correlationId', 'session'];

export interface SessionChange {
  /** Values to keep (merged into the session's), card details removed. */
  fields: JsonObject;
  /** Card details to seal, when the update gave any. */
  card?: ExplicitCardFields;
}

/** Splits a validated session update into kept values and card details (sealed, never kept). */
export function sessionChangeOf(body: JsonObject): SessionChange {
  const fields = structuredClone(body);
  for (const key of NOT_KEPT) {
    delete fields[key];
  }
  const sourceOfFunds = jsonObjectAt(fields, 'sourceOfFunds');
  const provided = jsonObjectAt(sourceOfFunds, 'provided');
  const card = jsonObjectAt(provided, 'card');
  if (!sourceOfFunds || !provided || !card) {
    return { fields };
  }
  delete provided.card;
  if (Object.keys(provided).length === 0) {
    delete sourceOfFunds.provided;
  }
  // Card details make the session's source of funds a card, unless the merchant said otherwise.
  sourceOfFunds.type ??= 'CARD';
  return { fields, card: card as ExplicitCardFields };
}

/** `update` over `base`: objects merged key by key, anything else (values, arrays) replaced. */
export function mergeValues(base: JsonObject, update: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(update)) {
    const existing = out[key];
    out[key] = isJsonObject(existing) && isJsonObject(value) ? mergeValues(existing, value) : value;
  }
  return out;
}

/**
 * The session's values an operation accepts, as its request class declares them: a session can
 * hold fields of several operations, and each operation takes only its own.
 */
export function valuesFor(target: RequestClass, values: JsonObject): JsonObject {
  return project(compileSchema(target), values);
}

/** Whether the operation's request class has the given dotted path (`sourceOfFunds.provided.card`). */
export function acceptsPath(target: RequestClass, path: string): boolean {
  let schema: CompiledSchema | undefined = compileSchema(target);
  for (const name of path.split('.')) {
    const field: CompiledField | undefined = schema?.byName.get(name);
    if (!field) {
      return false;
    }
    schema = field.meta.kind === 'group' ? field.schema() : undefined;
  }
  return true;
}

function project(schema: CompiledSchema, values: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(values)) {
    const field = schema.byName.get(key);
    if (!field) {
      continue;
    }
    if (field.meta.kind === 'group' && isJsonObject(value)) {
      const nested = project(field.schema(), value);
      if (Object.keys(nested).length > 0) {
        out[key] = nested;
      }
    } else {
      out[key] = value;
    }
  }
  return out;
}
