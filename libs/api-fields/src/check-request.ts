import { CUSTOM_FIELD_NAME } from './field-decorators';
import { FieldProblem, invalidValue, listOf, missingField, safeName, safeText, unsupportedField } from './field-problem';
import { CompiledField, CompiledSchema, compileSchema, CustomFieldsMeta, RequestClass } from './request-schema';

/**
 * The validation engine. Finds the FIRST problem of a request body, in this order
 * (docs/decisions/request-validation-order.md):
 *
 *   1. UNSUPPORTED: the first field the operation does not have, at any depth (arrays
 *      included), visiting keys depth first in alphabetical order;
 *   2. MISSING / INVALID: the first field, depth first in alphabetical order of names (array
 *      elements by index, 0-based), that is absent although REQUIRED (REQUIRED-within-group
 *      fields only when their group is present) or whose value fails its type;
 *   3. the class's stateless cross-field rules, in their declared order.
 *
 * Returns the typed instance (nested groups are instances of their classes; values are kept
 * as sent: amounts stay decimal strings) or the problem.
 */
export function checkRequest<T>(target: RequestClass<T>, body: unknown): T | FieldProblem {
  const schema = compileSchema(target);
  if (!isJsonObject(body)) {
    return new FieldProblem('', 'INVALID', 'The request body must be a JSON object.');
  }
  const unsupported = findUnsupported(schema, body, '');
  if (unsupported) {
    return unsupported;
  }
  const built = buildGroup(schema, body, '');
  if (built instanceof FieldProblem) {
    return built;
  }
  for (const rule of schema.rules) {
    const problem = (rule as (request: unknown) => FieldProblem | null)(built);
    if (problem) {
      return problem;
    }
  }
  return built as T;
}

type JsonObject = Record<string, unknown>;

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sortedKeys(object: JsonObject): string[] {
  const keys = Object.keys(object);
  return keys.length > 1 ? keys.sort() : keys;
}

function findUnsupported(schema: CompiledSchema, object: JsonObject, prefix: string): FieldProblem | null {
  for (const key of sortedKeys(object)) {
    const field = schema.byName.get(key);
    if (!field) {
      return unsupportedField(`${prefix}${safeName(key)}`);
    }
    const value = object[key];
    const kind = field.meta.kind;
    if (kind === 'group' && isJsonObject(value)) {
      const problem = findUnsupported(field.schema(), value, `${prefix}${key}.`);
      if (problem) return problem;
    } else if (kind === 'array' && Array.isArray(value)) {
      const nested = field.schema();
      for (let i = 0; i < value.length; i++) {
        const element = value[i];
        if (isJsonObject(element)) {
          const problem = findUnsupported(nested, element, `${prefix}${key}[${i}].`);
          if (problem) return problem;
        }
      }
    }
  }
  return null;
}

function buildGroup(schema: CompiledSchema, object: JsonObject, prefix: string): object | FieldProblem {
  const instance = new schema.target() as JsonObject;
  const within = prefix === '' ? undefined : prefix.slice(0, -1);
  for (const field of schema.fields) {
    const value = Object.prototype.hasOwnProperty.call(object, field.name) ? object[field.name] : undefined;
    if (value === undefined) {
      if (field.meta.required) return missingField(`${prefix}${field.name}`, within, requiredMembers(field));
      continue;
    }
    const built = buildField(field, value, `${prefix}${field.name}`);
    if (built instanceof FieldProblem) return built;
    instance[field.name] = built;
  }
  return instance;
}

function buildField(field: CompiledField, value: unknown, path: string): unknown {
  const meta = field.meta;
  switch (meta.kind) {
    case 'value': {
      const reason = meta.type.check(value);
      return reason === null ? value : invalidValue(path, value, reason, meta);
    }
    case 'group': {
      if (isJsonObject(value)) return buildGroup(field.schema(), value, `${path}.`);
      // An expiry sent as "0139" (the token response's form) or "1/39": say what the object holds.
      const members = requiredMembers(field);
      const reason = members.length > 0 ? `must be a JSON object with ${listOf(members)}` : 'must be a JSON object';
      return invalidValue(path, value, reason, { sensitive: true });
    }
    case 'array':
      return buildArray(field, value, path);
    case 'custom':
      return buildCustomFields(meta, value, path);
  }
}

/** The names of a group's REQUIRED fields (REQUIRED within the group), for explanations; none for other fields. */
function requiredMembers(field: CompiledField): string[] {
  return field.meta.kind === 'group' ? field.schema().fields.filter((f) => f.meta.required).map((f) => f.name) : [];
}

function buildArray(field: CompiledField, value: unknown, path: string): unknown[] | FieldProblem {
  if (!Array.isArray(value) || value.length === 0) {
    return invalidValue(path, value, 'must be a JSON array of at least one object', { sensitive: true });
  }
  const schema = field.schema();
  const out: unknown[] = new Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const elementPath = `${path}[${i}]`;
    const element = value[i];
    if (!isJsonObject(element)) {
      return invalidValue(elementPath, element, 'must be a JSON object', { sensitive: true });
    }
    const built = buildGroup(schema, element, `${elementPath}.`);
    if (built instanceof FieldProblem) return built;
    out[i] = built;
  }
  return out;
}

function buildCustomFields(meta: CustomFieldsMeta, value: unknown, path: string): Record<string, string> | FieldProblem {
  if (!isJsonObject(value)) {
    return invalidValue(path, value, 'must be a JSON object of custom fields', { sensitive: true });
  }
  const names = sortedKeys(value);
  if (names.length > meta.maxFields) {
    return invalidValue(path, value, `must hold at most ${meta.maxFields} custom fields`, { sensitive: true });
  }
  const out: Record<string, string> = {};
  for (const name of names) {
    const fieldPath = `${path}.${safeName(name)}`;
    if (!CUSTOM_FIELD_NAME.test(name)) {
      return new FieldProblem(
        fieldPath,
        'INVALID',
        `Field name '${safeText(name)}' is invalid. Custom field names are 1 to 99 characters from A-Z a-z 0-9.`,
      );
    }
    const text = value[name];
    const reason = meta.value.check(text);
    if (reason !== null) {
      return invalidValue(fieldPath, text, reason, {});
    }
    out[name] = text as string;
  }
  return out;
}
