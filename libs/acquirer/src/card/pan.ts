import { inspect } from 'node:util';

const DIGITS = /^[0-9]{9,19}$/;

/**
 * A primary account number that cannot leak by accident: JSON, string conversion, `inspect`
 * and the log scrubber (which walks own enumerable properties) all see the 6.4 mask only.
 * The digits live in a private field; `reveal()` is the one way to them, for the code that
 * must have them (the vault's encryption, a real acquirer's wire message, an authorised
 * UNMASK). PCI DSS 3.4: at most the first six and last four digits may be displayed.
 */
export class Pan {
  readonly #digits: string;

  /** The 6.4 form: `512345xxxxxx0008`. */
  readonly masked: string;

  private constructor(digits: string) {
    this.#digits = digits;
    this.masked = maskPan(digits);
  }

  /** From the request's digits (Digits(9-19)); the error never carries the value. */
  static of(digits: string): Pan {
    if (typeof digits !== 'string' || !DIGITS.test(digits)) {
      throw new TypeError('A card number is 9 to 19 digits.');
    }
    return new Pan(digits);
  }

  /** The issuer identification number (first six digits): public, allowed in responses. */
  get bin(): string {
    return this.#digits.slice(0, 6);
  }

  get lastFour(): string {
    return this.#digits.slice(-4);
  }

  /** The first `count` digits (at most 8, an 8-digit BIN), for BIN-range lookups. */
  prefix(count: number): string {
    return this.#digits.slice(0, Math.min(count, 8));
  }

  get length(): number {
    return this.#digits.length;
  }

  /** The full number. Never log or return it without the merchant's UNMASK permission. */
  reveal(): string {
    return this.#digits;
  }

  equals(other: Pan): boolean {
    return this.#digits === other.#digits;
  }

  toJSON(): string {
    return this.masked;
  }

  toString(): string {
    return this.masked;
  }

  [inspect.custom](): string {
    return `Pan(${this.masked})`;
  }
}

/**
 * First six and last four digits visible, the rest `x`. Short numbers (down to the spec's 9
 * digits) show fewer leading digits so that at least three stay hidden.
 */
export function maskPan(digits: string): string {
  const lead = Math.max(0, Math.min(6, digits.length - 4 - 3));
  const tail = Math.min(4, digits.length - lead - 3);
  return digits.slice(0, lead) + 'x'.repeat(digits.length - lead - tail) + digits.slice(digits.length - tail);
}
