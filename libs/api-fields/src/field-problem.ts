import { maskCardNumbers } from '@gateway/crypto';

export type ValidationType = 'INVALID' | 'MISSING' | 'UNSUPPORTED';

/**
 * The first thing wrong with a request: the spec's `error.field` (full request path),
 * `error.validationType` and an explanation a developer can act on. Explanations are built
 * only from field names, static reasons and, for fields that are not sensitive, the value.
 */
export class FieldProblem {
  constructor(
    readonly field: string,
    readonly validationType: ValidationType,
    readonly explanation: string,
  ) {}
}

export interface ProblemSubject {
  /** Never echo the value (card number, security code, track data, p2pe payload, cryptograms). */
  readonly sensitive?: boolean;
  /** How the explanation names the field ("Month must be between 1 and 12"); the field's name by default. */
  readonly label?: string;
}

const SHOWN_CHARS = 60;

/** `Value '13' is invalid. Month must be between 1 and 12.` */
export function invalidValue(
  field: string,
  value: unknown,
  reason: string,
  subject: ProblemSubject = {},
): FieldProblem {
  const label = subject.label ?? leafName(field);
  const shown = subject.sensitive ? undefined : showValue(value);
  const opening = shown === undefined ? 'Value is invalid.' : `Value '${shown}' is invalid.`;
  return new FieldProblem(field, 'INVALID', `${opening} ${label} ${reason}.`);
}

/**
 * `Missing parameter order.currency. It is required when order is present.` A missing group
 * names the fields it must hold, which the developer has to send with it:
 * `Missing parameter transaction. It must hold transaction.targetTransactionId.`
 */
export function missingField(field: string, within?: string, holds: readonly string[] = []): FieldProblem {
  const context = within ? ` It is required when ${within} is present.` : '';
  const members = holds.length > 0 ? ` It must hold ${listOf(holds.map((name) => `${field}.${name}`))}.` : '';
  return new FieldProblem(field, 'MISSING', `Missing parameter ${field}.${context}${members}`);
}

/** `a`, `a and b`, `a, b and c` (or `a, b or c`). */
export function listOf(names: readonly string[], conjunction: 'and' | 'or' = 'and'): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} ${conjunction} ${names[names.length - 1]}`;
}

export function unsupportedField(field: string): FieldProblem {
  return new FieldProblem(field, 'UNSUPPORTED', `Field ${field} is not supported for this operation.`);
}

/** The last name of a path: `number` for `sourceOfFunds.provided.card.number`, `item[2]` for an element. */
export function leafName(field: string): string {
  const dot = field.lastIndexOf('.');
  return dot < 0 ? field : field.slice(dot + 1);
}

/**
 * A value as an explanation may quote it: strings and scalars only (an object or array may hold
 * anything, card data included), control characters replaced, long text cut, and any digit
 * run that could hold a card number masked 6.4, should a merchant put one in the wrong field.
 */
export function showValue(value: unknown): string | undefined {
  if (typeof value === 'string') {
    return safeText(value);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) {
    return maskCardNumbers(String(value), 'keep-length');
  }
  return undefined;
}

/**
 * A field name from the request (an unknown key, a custom field's name) made safe for
 * error.field: controls replaced and card-like digit runs masked; error.field is cut at 100.
 */
export function safeName(name: string): string {
  return cutAfterMasking(name, 100, '');
}

/** A name or value from the request made safe to put in a response: see showValue. */
export function safeText(text: string): string {
  return cutAfterMasking(text, SHOWN_CHARS, '…');
}

const CONTROLS = /[\u0000-\u001f\u007f\ud800-\udfff]/g;

/**
 * Masked, then cut: cut first, a card number straddling the cut would leave its first digits,
 * too few to look like one. Masking keeps the length, and what the cut leaves of a run the mask
 * let through is one of the stretches it checked.
 */
function cutAfterMasking(text: string, length: number, mark: string): string {
  const masked = maskCardNumbers(text.replace(CONTROLS, '?'), 'keep-length');
  return masked.length > length ? `${masked.slice(0, length)}${mark}` : masked;
}
