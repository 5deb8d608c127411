import type { JsonObject } from './messages/operation.messages';

/** Whether `value` is a JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `value` when it is a JSON object; otherwise undefined. */
export function asJsonObject(value: unknown): JsonObject | undefined {
  return isJsonObject(value) ? value : undefined;
}

/**
 * The JSON object at `path` below `root` (`root` itself for an empty path), or undefined when a
 * step is missing or is not an object: `jsonObjectAt(body, 'sourceOfFunds', 'provided', 'card')`.
 */
export function jsonObjectAt(root: unknown, ...path: string[]): JsonObject | undefined {
  let node = asJsonObject(root);
  for (const key of path) {
    node = asJsonObject(node?.[key]);
  }
  return node;
}
