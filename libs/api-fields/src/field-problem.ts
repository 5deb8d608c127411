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
export function invalidValue(field: string, value: unknown, reason: string, subject: ProblemSubject = {}): FieldProblem {
  const label = subject.label ?? leafName(field);
  const shown = subject.sensitive ? undefined : showValue(value);
  const opening = shown === undefined ? 'Value is invalid.' : `Value '${shown}' is invalid.`;
  return new FieldProblem(field, 'INVALID', `${opening} ${label} ${reason}.`);
}

export function missingField(field: string, within?: string): FieldProblem {
  const context = within ? ` It is required when ${within} is present.` : '';
  return new FieldProblem(field, 'MISSING', `Missing parameter ${field}.${context}`);
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
 * run that could be a card number masked 6.4, should a merchant put one in the wrong field.
 */
export function showValue(value: unknown): string | undefined {
  if (typeof value === 'string') {
    return safeText(value);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) {
    return maskCardNumbers(String(value));
  }
  return undefined;
}

/**
 * A field name from the request (an unknown key, a custom field's name) made safe for
 * error.field: controls replaced and card-like digit runs masked; error.field is cut at 100.
 */
export function safeName(name: string): string {
  return maskCardNumbers((name.length > 100 ? name.slice(0, 100) : name).replace(/[\u0000-\u001f\u007f\ud800-\udfff]/g, '?'));
}

/** A name or value from the request made safe to put in a response: see showValue. */
export function safeText(text: string): string {
  const cut = text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text;
  return maskCardNumbers(cut.replace(/[\u0000-\u001f\u007f\ud800-\udfff]/g, '?'));
}

const DIGIT_RUN = /[0-9]{13,19}/g;

export function maskCardNumbers(text: string): string {
  if (text.length < 13) {
    return text;
  }
  return text.replace(DIGIT_RUN, (run) => (passesLuhn(run) ? `${run.slice(0, 6)}${'x'.repeat(run.length - 10)}${run.slice(-4)}` : run));
}

export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 0x30;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}
