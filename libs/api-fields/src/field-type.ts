/**
 * One of the spec's field types (the Conventions table and the types the field tables use).
 *
 * `check` runs on every request field, so it does no allocation on the happy path and
 * returns a reason built when the type was created: reasons never contain the value, which
 * is what lets a sensitive field (card number, security code) be reported without echoing it.
 */
export interface FieldType {
  /**
   * The type in a canonical spec notation (`String(1-40)`, `Digits(value 1-12)`, `Enum(A|B)`),
   * compared with the spec's own text by tools/scripts/field-coverage.ts.
   */
  readonly notation: string;
  /** The JSON type the value must have: a number where the spec says a string is INVALID. */
  readonly json: 'string' | 'boolean' | 'integer';
  /** null when the value is valid; otherwise what is wrong, phrased after a subject ("must be ..."). */
  check(value: unknown): string | null;
  /** Values for tests and docs: valid at each bound, invalid past each bound, a wrong JSON type. */
  readonly samples: FieldSamples;
}

export interface FieldSamples {
  readonly valid: readonly unknown[];
  readonly invalid: readonly unknown[];
  readonly wrongType: unknown;
}

export function jsonTypeReason(json: FieldType['json']): string {
  switch (json) {
    case 'string':
      return 'must be a JSON string';
    case 'boolean':
      return 'must be JSON true or false';
    case 'integer':
      return 'must be a JSON integer';
  }
}

/**
 * The reasons of a wrong JSON type, for the types a merchant's serializer gets wrong one way:
 * a digit or decimal string sent as a JSON number, an integer sent as a string. That mistake
 * is named ("..., not a number"); any other JSON type (null, true, an object, an array) gets the
 * plain rule, since the explanation already quotes the value, and "not a number" of a null
 * would send the developer looking for a number they never sent. Built once per type.
 */
export function wrongTypeReason(expected: string, usualMistake: 'number' | 'string'): (value: unknown) => string {
  const plain = `must be ${expected}`;
  const named = `${plain}, not a ${usualMistake}`;
  return (value) => (typeof value === usualMistake ? named : plain);
}
