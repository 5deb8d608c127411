import { inspect } from 'node:util';

const DIGITS = /^[0-9]{3,4}$/;

/**
 * A card security code (CVC2/CVV2/CID). PCI DSS 3.2 forbids storing it after authorisation,
 * so it only travels with the request that uses it; like Pan it prints as a placeholder.
 */
export class SecurityCode {
  readonly #digits: string;

  private constructor(digits: string) {
    this.#digits = digits;
  }

  static of(digits: string): SecurityCode {
    if (typeof digits !== 'string' || !DIGITS.test(digits)) {
      throw new TypeError('A card security code is 3 or 4 digits.');
    }
    return new SecurityCode(digits);
  }

  get length(): number {
    return this.#digits.length;
  }

  /** The digits, for the acquirer's message (and the test acquirer's magic values). */
  reveal(): string {
    return this.#digits;
  }

  toJSON(): string {
    return '[REDACTED]';
  }

  toString(): string {
    return '[REDACTED]';
  }

  [inspect.custom](): string {
    return 'SecurityCode([REDACTED])';
  }
}
