/**
 * Responses carry keys in alphabetical order at every level, as the real gateway's do, and
 * replay detection compares canonical bodies: both need the same deterministic serialisation.
 */
export function sortKeysDeep<T>(value: T): T {
  if (Array.isArray(value)) {
    return value.map((item) => sortKeysDeep(item)) as T;
  }
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value as Record<string, unknown>).sort()) {
      const item = (value as Record<string, unknown>)[key];
      if (item !== undefined) {
        sorted[key] = sortKeysDeep(item);
      }
    }
    return sorted as T;
  }
  return value;
}

/** JSON with keys sorted at every level: equal for equal data, whatever the key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeysDeep(value));
}
