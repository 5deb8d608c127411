import Decimal from 'decimal.js';
import { amountDecimalPlaces, MAX_AMOUNT_DECIMAL_PLACES, minorUnits } from './currencies';

/**
 * An exact decimal amount in a currency. Amounts arrive as the request's decimal strings and
 * leave as JSON numbers rendered from the exact decimal; no arithmetic ever happens in binary
 * floating point. Arithmetic only combines amounts of the same currency.
 */
const D = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -40, toExpPos: 40 });

const DECIMAL = /^-?(\d+(\.\d*)?|\.\d+)$/;

/**
 * The largest amount the API answers (the spec's DecOut, max 1000000000000; item unit prices
 * and unit tax go down to its negative). A request amount beyond it is refused on its own
 * field: the amount columns, numeric(17,4), hold less than 10^13, and nothing larger could be
 * answered anyway (docs/decisions/amount-bounds.md).
 */
export const MAX_AMOUNT = '1000000000000';

/**
 * Agreement amounts per payment have the spec's own range: the verify response answers them
 * "up to 99999999999999", the largest 14-character DecIn. They are kept in the order's details,
 * never in an amount column.
 */
export const MAX_AGREEMENT_AMOUNT = '99999999999999';

/** Whether the amount lies within `maximum` either side of zero (MAX_AMOUNT unless said). */
export function withinMaxAmount(amount: Decimal, maximum: string = MAX_AMOUNT): boolean {
  return amount.abs().lessThanOrEqualTo(maximum);
}

/** Money.zero's instances, by known currency. */
const ZEROS = new Map<string, Money>();

export class Money {
  private constructor(
    readonly amount: Decimal,
    readonly currency: string,
  ) {}

  /**
   * From a decimal string (the spec's DecIn). Throws MoneyError when the text is not a
   * decimal, the currency is unknown, or the amount has more decimals than the currency's
   * minor units.
   */
  static of(amount: string, currency: string): Money {
    const value = parseDecimal(amount);
    const units = minorUnits(currency);
    if (units === undefined) {
      throw new MoneyError('UNKNOWN_CURRENCY', `Unknown currency '${currency}'.`);
    }
    if (value.decimalPlaces() > units) {
      throw new MoneyError(
        'TOO_MANY_DECIMALS',
        units === 0
          ? `${currency} amounts are whole numbers: ${currency} has no minor unit.`
          : `${currency} amounts have at most ${units} decimal place${units === 1 ? '' : 's'}.`,
      );
    }
    return new Money(value, currency);
  }

  /**
   * A request amount as Money: Money.of, and no more than the API can answer: within `maximum`
   * either side of zero, and at most 3 decimal places even where ISO 4217 gives the currency 4
   * (CLF, UYW). Throws MoneyError OUT_OF_RANGE or TOO_MANY_DECIMALS. The services' second line
   * behind the request rules, so a message from anywhere cannot overflow an amount column.
   */
  static ofRequest(amount: string, currency: string, maximum: string = MAX_AMOUNT): Money {
    const money = Money.of(amount, currency);
    if (!withinMaxAmount(money.amount, maximum)) {
      throw new MoneyError('OUT_OF_RANGE', money.isNegative() ? `Amounts are at least -${maximum}.` : `Amounts are at most ${maximum}.`);
    }
    const places = amountDecimalPlaces(currency)!;
    if (money.amount.decimalPlaces() > places) {
      throw new MoneyError(
        'TOO_MANY_DECIMALS',
        `${currency} amounts have at most ${places} decimal places: ISO 4217 gives ${currency} ${minorUnits(currency)}, but the gateway answers amounts with at most ${MAX_AMOUNT_DECIMAL_PLACES}.`,
      );
    }
    return money;
  }

  /** Zero in the currency: one instance per currency, as Money is immutable (sums start from it many times per record). */
  static zero(currency: string): Money {
    let zero = ZEROS.get(currency);
    if (zero === undefined) {
      if (minorUnits(currency) === undefined) {
        throw new MoneyError('UNKNOWN_CURRENCY', `Unknown currency '${currency}'.`);
      }
      zero = new Money(new D(0), currency);
      ZEROS.set(currency, zero);
    }
    return zero;
  }

  plus(other: Money): Money {
    this.sameCurrency(other);
    return new Money(this.amount.plus(other.amount), this.currency);
  }

  minus(other: Money): Money {
    this.sameCurrency(other);
    return new Money(this.amount.minus(other.amount), this.currency);
  }

  times(quantity: string | number | bigint): Money {
    return new Money(this.amount.times(new D(quantity.toString())), this.currency);
  }

  /**
   * Multiplied by an exact decimal `factor` ('1.15'), rounded down (toward zero) to the decimal
   * places an amount of the currency may have (amountDecimalPlaces: its minor units, at most 3),
   * so the result is an amount a request can carry and never more than the exact product: for a
   * limit derived from an amount (the most a confirm may charge above what the payer approved).
   */
  timesRoundedDown(factor: string): Money {
    const places = amountDecimalPlaces(this.currency) ?? MAX_AMOUNT_DECIMAL_PLACES;
    return new Money(this.amount.times(parseDecimal(factor)).toDecimalPlaces(places, D.ROUND_DOWN), this.currency);
  }

  compare(other: Money): -1 | 0 | 1 {
    this.sameCurrency(other);
    return this.amount.comparedTo(other.amount) as -1 | 0 | 1;
  }

  equals(other: Money): boolean {
    return this.currency === other.currency && this.amount.equals(other.amount);
  }

  greaterThan(other: Money): boolean {
    return this.compare(other) > 0;
  }

  lessThan(other: Money): boolean {
    return this.compare(other) < 0;
  }

  isZero(): boolean {
    return this.amount.isZero();
  }

  isPositive(): boolean {
    return this.amount.greaterThan(0);
  }

  isNegative(): boolean {
    return this.amount.isNegative() && !this.amount.isZero();
  }

  /** The exact decimal, with the currency's minor units ("10.50" for USD, "100" for JPY). */
  toFixed(): string {
    return this.amount.toFixed(minorUnits(this.currency) ?? 2);
  }

  /** The exact decimal without trailing zeros ("10.5"). */
  toString(): string {
    return this.amount.toFixed();
  }

  /**
   * For a JSON response. Amounts are bounded (at most 13 integer and 4 fraction digits), well
   * inside the 15 significant digits a double renders exactly, so the number printed is the
   * decimal itself, with no binary artefacts.
   */
  toJSON(): number {
    const text = this.amount.toFixed();
    // A finite amount is the decimal its text parses back to: checked as decimalToJsonNumber
    // checks that text, without parsing it again.
    return this.amount.isFinite() ? jsonNumberOf(this.amount, text) : decimalToJsonNumber(text);
  }

  private sameCurrency(other: Money): void {
    if (other.currency !== this.currency) {
      throw new MoneyError('CURRENCY_MISMATCH', `Cannot combine ${this.currency} and ${other.currency}.`);
    }
  }
}

export type MoneyErrorCode = 'NOT_A_DECIMAL' | 'UNKNOWN_CURRENCY' | 'TOO_MANY_DECIMALS' | 'OUT_OF_RANGE' | 'CURRENCY_MISMATCH';

export class MoneyError extends Error {
  constructor(
    readonly code: MoneyErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'MoneyError';
  }
}

export function parseDecimal(text: string): Decimal {
  if (typeof text !== 'string' || !DECIMAL.test(text)) {
    throw new MoneyError('NOT_A_DECIMAL', `'${String(text).slice(0, 20)}' is not a decimal number.`);
  }
  return new D(text);
}

/** Sums decimal strings exactly. */
export function sumDecimals(values: string[]): string {
  return values.reduce((sum, v) => sum.plus(parseDecimal(v)), new D(0)).toFixed();
}

/**
 * A decimal string as a JSON number. Refuses values that a double would not render back
 * exactly (more than 15 significant digits), rather than silently rounding money.
 */
export function decimalToJsonNumber(text: string): number {
  const value = parseDecimal(text);
  return jsonNumberOf(value, text, value.toFixed());
}

/** decimalToJsonNumber of `value`, parsed from `text`; `fixed` is value.toFixed(). */
function jsonNumberOf(value: Decimal, text: string, fixed: string = text): number {
  if (value.precision(true) > 15) {
    throw new MoneyError('NOT_A_DECIMAL', `${text} has more significant digits than a JSON number carries exactly.`);
  }
  const number = Number(fixed);
  return Object.is(number, -0) ? 0 : number;
}

/**
 * A line item's quantity (an Int of up to 16 digits) as a response shows it: a JSON number
 * while the number is exact (up to 2^53), else its digits without leading zeros rather than a
 * silently rounded number.
 */
export function quantityToJson(digits: string): number | string {
  const value = Number(digits);
  return Number.isSafeInteger(value) ? value : digits.replace(/^0+(?=\d)/, '');
}

export { Decimal };
