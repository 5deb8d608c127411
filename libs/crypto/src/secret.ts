import { timingSafeEqual } from 'node:crypto';
import { inspect } from 'node:util';
import { passesLuhn } from './luhn';

const REDACTED = '[REDACTED]';

/**
 * A value that must never reach a log line, a JSON body or an error message by accident (keys,
 * card numbers, security codes). The value lives in a private field, which JSON.stringify,
 * util.inspect, pino, Object.keys, spreads and structuredClone cannot see; toJSON, toString and
 * inspect print a mask. Only `reveal()` returns it, so every place that handles the clear value
 * can be found with grep.
 */
export class Secret<T> {
  readonly #value: T;

  constructor(value: T) {
    this.#value = value;
  }

  reveal(): T {
    return this.#value;
  }

  /** What logs, JSON and string conversions show instead of the value. */
  protected mask(): string {
    return REDACTED;
  }

  toJSON(): string {
    return this.mask();
  }

  toString(): string {
    return this.mask();
  }

  [Symbol.toPrimitive](): string {
    return this.mask();
  }

  [inspect.custom](): string {
    return `${this.constructor.name}(${this.mask()})`;
  }
}

export class InvalidPanError extends TypeError {
  override name = 'InvalidPanError';

  constructor() {
    // Never the value: this message may be logged.
    super('a card number is 9 to 19 digits');
  }
}

const PAN = /^[0-9]{9,19}$/;

/**
 * A primary account number. Shows itself only masked (first six and last four digits, the most
 * PCI DSS allows to display), so a PAN that slips into a log call or a response body leaks no
 * more than the masked form responses carry anyway.
 */
export class Pan extends Secret<string> {
  private constructor(digits: string) {
    super(digits);
  }

  static of(digits: string): Pan {
    if (!PAN.test(digits)) {
      throw new InvalidPanError();
    }
    return new Pan(digits);
  }

  /** The first six digits (the BIN/IIN): not sensitive on their own. */
  get bin(): string {
    return this.reveal().slice(0, 6);
  }

  get lastFour(): string {
    return this.reveal().slice(-4);
  }

  /** The first `count` digits (at most 8, an 8-digit BIN), for BIN-range lookups. */
  prefix(count: number): string {
    return this.reveal().slice(0, Math.min(count, 8));
  }

  get length(): number {
    return this.reveal().length;
  }

  get masked(): string {
    return maskPan(this.reveal());
  }

  passesLuhn(): boolean {
    return passesLuhn(this.reveal());
  }

  /** Constant-time in the digits. */
  equals(other: Pan): boolean {
    const a = Buffer.from(this.reveal());
    const b = Buffer.from(other.reveal());
    return a.length === b.length && timingSafeEqual(a, b);
  }

  protected override mask(): string {
    return this.masked;
  }
}

/**
 * 6.4 masking (`512345xxxxxx0008`). For numbers shorter than 13 digits the visible prefix
 * shrinks so that at least three digits stay hidden (6.4 of a 10-digit number would show all
 * of it): the same rule as the acquirer connector's masking, so a card reads the same in every
 * response.
 */
export function maskPan(digits: string): string {
  const prefix = Math.max(0, Math.min(6, digits.length - 7));
  return `${digits.slice(0, prefix)}${'x'.repeat(digits.length - prefix - 4)}${digits.slice(-4)}`;
}
