import { holdsCardNumber, holdsSchemeCardNumber, passesLuhn } from '@gateway/crypto';
import { isKnownCurrency } from '@gateway/money';
import { FieldType, jsonTypeReason, wrongTypeReason } from './field-type';

/**
 * The spec's field types. Each factory builds its reasons and samples once; `check` is the
 * per-request path. Lengths count characters (Unicode code points), not UTF-16 units.
 */

const STRING_REASON = jsonTypeReason('string');

/** Characters no text field may hold: C0 controls other than tab, LF, CR (Postgres refuses NUL). */
function isForbiddenControl(code: number): boolean {
  return code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d;
}

/**
 * Code points in `text`, or -1 when it holds a forbidden control character or a lone
 * surrogate (neither can be stored or shown safely).
 */
export function textLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (code > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) {
        return -1;
      }
      i++;
    } else if (isForbiddenControl(code)) {
      return -1;
    }
    count++;
  }
  return count;
}

function lengthPhrase(min: number, max: number): string {
  return min === max ? `exactly ${min}` : `${min} to ${max}`;
}

function repeat(char: string, count: number): string {
  return char.repeat(Math.max(0, count));
}

/** Lengths just outside [min, max] that a string can have. */
function pastBounds(min: number, max: number, char: string): string[] {
  return [...(min > 0 ? [repeat(char, min - 1)] : []), repeat(char, max + 1)];
}

/** String(a-b): any characters, length a to b. */
export function stringType(min: number, max: number): FieldType {
  const reason = `must be ${lengthPhrase(min, max)} characters`;
  const controlReason = 'must not contain control characters';
  return {
    notation: `String(${min}-${max})`,
    json: 'string',
    check(value) {
      if (typeof value !== 'string') return STRING_REASON;
      // Code points never exceed UTF-16 units, nor are fewer than half of them.
      if (value.length < min || value.length > 2 * max) return reason;
      const length = textLength(value);
      if (length < 0) return controlReason;
      return length < min || length > max ? reason : null;
    },
    samples: {
      valid: [repeat('x', min), repeat('é', max)],
      invalid: [...pastBounds(min, max, 'x'), ...(max >= 1 ? ['\u0000'] : [])],
      wrongType: 1,
    },
  };
}

/**
 * String(a-b) that holds no card number: the custom data fields, of which the spec says
 * "sensitive data is rejected" (transaction.acquirer.customData) or "no sensitive data"
 * (agreement.customData, externalTokenProvider.customData). The gateway keeps them as they are
 * (the ledger's stored responses, the vault's token), so a card number there would be stored in
 * clear. A card number is what the log scrubber masks: 13-19 digits passing Luhn, alone or in
 * groups as a person writes them (crypto's holdsCardNumber). Security codes and other sensitive
 * data cannot be told from other text, so only card numbers are refused. The explanation masks
 * the number it echoes.
 */
export function customDataType(min: number, max: number): FieldType {
  const text = stringType(min, max);
  const reason = 'must not hold card data (a card number): the spec rejects sensitive data here';
  return {
    ...text,
    check(value) {
      return text.check(value) ?? (holdsCardNumber(value as string) ? reason : null);
    },
    samples: { ...text.samples, invalid: [...text.samples.invalid, 'card 5123450000000008', 'card 5123.4500.0000.0008'] },
  };
}

/**
 * String(a-b) of text written for people (order description, customer and merchant notes, line
 * item names and descriptions) that holds no card number of a major scheme. The gateway keeps
 * these as sent (the ledger's order and stored responses, the browser payment, the webhook
 * outbox, a session) and shows them back (retrieval, notifications, the payer's page), so a card
 * number put there by mistake would be stored and shown in clear. The test is narrower than the
 * custom data fields' (crypto's holdsSchemeCardNumber: 13-19 digits as a person writes them,
 * passing Luhn, with a scheme's prefix and length) because these fields may quote numbers;
 * references, ids and custom fields are not checked at all (docs/decisions/card-numbers-in-free-text.md).
 */
export function freeTextType(min: number, max: number): FieldType {
  const text = stringType(min, max);
  const reason = 'must not hold a card number: send the card in sourceOfFunds.provided.card, where it is kept encrypted';
  return {
    ...text,
    check(value) {
      return text.check(value) ?? (holdsSchemeCardNumber(value as string) ? reason : null);
    },
    samples: { ...text.samples, invalid: [...text.samples.invalid, 'card 5123450000000008', 'call back about 5123 4500 0000 0008'] },
  };
}

/**
 * A string whose characters all match `allowed` (a character class, no anchors), of length
 * min to max: the base of ASCII, Alnum, Hex, Digits and the other character-set types.
 */
function charsetType(options: {
  notation: string;
  allowed: string;
  min: number;
  max: number;
  describe: string;
  samples: { validChars: [string, string]; invalidChar: string };
  wrongType?: unknown;
  typeReason?: (value: unknown) => string;
  /** What the explanation says of a string of the wrong characters or length; the charset rule by default. */
  reason?: string;
}): FieldType {
  const pattern = new RegExp(`^[${options.allowed}]{${options.min},${options.max}}$`);
  const reason = options.reason ?? `must be ${lengthPhrase(options.min, options.max)} characters from ${options.describe}`;
  const typeReason = options.typeReason;
  const { validChars, invalidChar } = options.samples;
  return {
    notation: options.notation,
    json: 'string',
    check(value) {
      if (typeof value !== 'string') return typeReason ? typeReason(value) : STRING_REASON;
      return pattern.test(value) ? null : reason;
    },
    samples: {
      valid: [repeat(validChars[0], options.min), repeat(validChars[1], options.max)],
      invalid: [
        ...pastBounds(options.min, options.max, validChars[0]),
        validChars[0].repeat(Math.max(0, options.min - 1)) + invalidChar,
      ],
      wrongType: options.wrongType ?? 1,
    },
  };
}

/** ASCII(a-b): printable ASCII (space to '~'). */
export function asciiType(min: number, max: number): FieldType {
  return charsetType({
    notation: `ASCII(${min}-${max})`,
    allowed: '\\x20-\\x7e',
    min,
    max,
    describe: 'printable ASCII',
    samples: { validChars: ['A', '~'], invalidChar: 'é' },
  });
}

/** Alnum(a-b): 0-9 a-z A-Z. */
export function alnumType(min: number, max: number): FieldType {
  return charsetType({
    notation: `Alnum(${min}-${max})`,
    allowed: '0-9a-zA-Z',
    min,
    max,
    describe: '0-9 a-z A-Z',
    samples: { validChars: ['a', 'Z'], invalidChar: '-' },
  });
}

/** Hex(a-b): 0-9 a-f A-F. */
export function hexType(min: number, max: number): FieldType {
  return charsetType({
    notation: `Hex(${min}-${max})`,
    allowed: '0-9a-fA-F',
    min,
    max,
    describe: '0-9 a-f A-F',
    samples: { validChars: ['0', 'F'], invalidChar: 'g' },
  });
}

const DIGITS_TYPE_REASON = wrongTypeReason('a JSON string of digits', 'number');

/** Digits(a-b): a string of 0-9 of length a to b. A JSON number is INVALID. */
export function digitsType(min: number, max: number, reason?: string): FieldType {
  return charsetType({
    notation: `Digits(${min}-${max})`,
    allowed: '0-9',
    min,
    max,
    describe: '0-9',
    samples: { validChars: ['0', '9'], invalidChar: 'a' },
    wrongType: Number(repeat('1', Math.max(1, min))),
    typeReason: DIGITS_TYPE_REASON,
    reason,
  });
}

/**
 * A card's expiry year (`sourceOfFunds.provided.card.expiry.year`): the spec's Digits(2-2), the
 * year being 2000 + value. Integrations most often send the full year ("2039"), so the rule is
 * said as the two digits to send.
 */
export function expiryYearType(): FieldType {
  return digitsType(2, 2, "must be the last 2 digits of the year: '39' for 2039");
}

/**
 * A card number (`sourceOfFunds.provided.card.number`): the spec's Digits(9-19), whose last digit
 * is its check digit (ISO/IEC 7812's Luhn check). A number failing it is mistyped or no card
 * number; the gateway refuses it before any acquirer, vault or session sees it, as a real
 * gateway does (docs/decisions/card-number-check-digit.md). The check is one pass over at most
 * 19 characters after the charset test; the reason never holds the number.
 */
export function cardNumberType(): FieldType {
  // A number copied as printed on the card or shown to the payer has spaces or dashes.
  const digits = digitsType(9, 19, 'must be 9 to 19 characters from 0-9, without spaces or dashes');
  const reason = 'must pass the card number check (Luhn): the number is mistyped or is not a card number';
  return {
    ...digits,
    check(value) {
      return digits.check(value) ?? (passesLuhn(value as string) ? null : reason);
    },
    samples: {
      // The bounds with a check digit (000000000 passes: every digit sum is 0), and the test
      // card with its check digit broken.
      valid: ['000000000', '9999999999999999998'],
      invalid: [...digits.samples.invalid, '5123450000000009'],
      wrongType: digits.samples.wrongType,
    },
  };
}

/**
 * Digits with value bounds (quantity 1 to 9999999999999999, month 1 to 12, sequence number
 * 0-999). Leading zeros are accepted ("05" is May) up to the length of the maximum; values are
 * compared as digit strings, since 9999999999999999 is past the integers a double holds.
 */
export function digitValueType(min: bigint, max: bigint): FieldType {
  const maxDigits = max.toString().length;
  const pattern = new RegExp(`^[0-9]{1,${maxDigits}}$`);
  const minText = min.toString();
  const maxText = max.toString();
  const reason = `must be between ${minText} and ${maxText}`;
  const charsReason = `must be a string of digits (0-9) with a value between ${minText} and ${maxText}`;
  return {
    notation: `Digits(value ${minText}-${maxText})`,
    json: 'string',
    check(value) {
      if (typeof value !== 'string') return DIGITS_TYPE_REASON(value);
      if (!pattern.test(value)) return charsReason;
      const digits = stripLeadingZeros(value);
      return compareDigits(digits, minText) < 0 || compareDigits(digits, maxText) > 0 ? reason : null;
    },
    samples: {
      valid: [minText, maxText],
      invalid: [...(min > 0n ? [(min - 1n).toString()] : []), (max + 1n).toString(), 'x'],
      wrongType: Number(min),
    },
  };
}

function stripLeadingZeros(digits: string): string {
  let i = 0;
  while (i < digits.length - 1 && digits.charCodeAt(i) === 0x30) i++;
  return i === 0 ? digits : digits.slice(i);
}

function compareDigits(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * DecIn: characters 0-9 and '.', a valid decimal number, 1-14 characters; `signed` also allows
 * a leading '-' (item price and item tax). The decimal syntax is exactly what libs/money
 * parses, so a validated amount always becomes Money.
 */
export function decInType(options: { signed?: boolean } = {}): FieldType {
  const signed = options.signed === true;
  const pattern = signed ? /^-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/ : /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/;
  const reason = signed
    ? "must be a decimal number of 1 to 14 characters from 0-9, '.' and a leading '-'"
    : "must be a decimal number of 1 to 14 characters from 0-9 and '.'";
  const typeReason = wrongTypeReason('a JSON string holding a decimal number', 'number');
  return {
    notation: signed ? 'DecIn(signed)' : 'DecIn',
    json: 'string',
    check(value) {
      if (typeof value !== 'string') return typeReason(value);
      return value.length >= 1 && value.length <= 14 && pattern.test(value) ? null : reason;
    },
    samples: {
      valid: ['1', '12345678901.99', ...(signed ? ['-1234567890.99'] : [])],
      invalid: ['', '123456789012.34', '1.2.3', '1e5', ...(signed ? ['--1'] : ['-1'])],
      wrongType: 10.5,
    },
  };
}

/** Upper3: A-Z, exactly 3. With `currency`, also one of the ISO 4217 codes libs/money knows. */
export function upper3Type(options: { currency?: boolean } = {}): FieldType {
  const reason = 'must be exactly 3 upper-case letters A-Z';
  const currencyReason = 'must be an ISO 4217 currency code';
  return {
    notation: 'Upper3',
    json: 'string',
    check(value) {
      if (typeof value !== 'string') return STRING_REASON;
      if (!/^[A-Z]{3}$/.test(value)) return reason;
      return options.currency && !isKnownCurrency(value) ? currencyReason : null;
    },
    samples: options.currency
      ? { valid: ['USD', 'EUR'], invalid: ['US', 'USDD', 'usd', 'ZZZ'], wrongType: 840 }
      : { valid: ['USA', 'DEU'], invalid: ['US', 'USAA', 'usa'], wrongType: 840 },
  };
}

/**
 * Email: longer than 3 characters, a generous subset of RFC 2822: a dot-atom local part
 * (letters of any script allowed), '@', and a domain of dot-separated labels or an address
 * literal. At most 254 characters, the longest address SMTP can deliver to.
 */
const EMAIL =
  /^[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?)*|\[[0-9A-Fa-f:.]+\])$/u;

export function emailType(): FieldType {
  const reason = 'must be an email address of 4 to 254 characters';
  return {
    notation: 'Email',
    json: 'string',
    check(value) {
      if (typeof value !== 'string') return STRING_REASON;
      return value.length > 3 && value.length <= 254 && EMAIL.test(value) ? null : reason;
    },
    samples: {
      valid: ['a@bc', `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`],
      invalid: ['a@b', 'payer.example.com', 'a@@b.com', `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`],
      wrongType: 1,
    },
  };
}

/**
 * Tel (ITU-T E.123): '+', a country code of 1-3 digits, one space, the national number with
 * single spaces allowed; at most 15 digits in total.
 */
const TEL = /^\+[0-9]{1,3} [0-9]+(?: [0-9]+)*$/;

export function telType(): FieldType {
  const reason =
    "must be an E.123 number: '+', a country code of 1 to 3 digits, one space, the national number (single spaces allowed), at most 15 digits";
  return {
    notation: 'Tel',
    json: 'string',
    check(value) {
      if (typeof value !== 'string') return STRING_REASON;
      if (value.length > 30 || !TEL.test(value)) return reason;
      let digits = 0;
      for (let i = 0; i < value.length; i++) {
        const code = value.charCodeAt(i);
        if (code >= 0x30 && code <= 0x39) digits++;
      }
      return digits <= 15 ? null : reason;
    },
    samples: {
      valid: ['+1 2', '+353 12 345 678 9012'],
      invalid: ['+353 12 345 678 90123', '1 2345', '+1234 5', '+1  2', '+12'],
      wrongType: 12345,
    },
  };
}

/**
 * A real calendar date (2024-02-29 yes, 2023-02-29 no). The Gregorian calendar has no year 0
 * (1 BC precedes AD 1), nor has Postgres: an agreement's dates are date columns
 * (docs/decisions/agreements.md, amendment 2026-11-27).
 */
function isCalendarDate(year: number, month: number, day: number): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const days = [31, year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return day <= days[month - 1];
}

const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

/** Date: ISO 8601 yyyy-mm-dd, a real calendar date. */
export function dateType(): FieldType {
  const reason = 'must be a date in the format yyyy-mm-dd';
  return {
    notation: 'Date',
    json: 'string',
    check(value) {
      if (typeof value !== 'string') return STRING_REASON;
      const match = DATE.exec(value);
      return match && isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3])) ? null : reason;
    },
    samples: { valid: ['2024-02-29', '1999-12-31'], invalid: ['2023-02-29', '2024-13-01', '24-01-01', '2024-1-01'], wrongType: 20240101 },
  };
}

/**
 * DateTime: ISO 8601 YYYY-MM-DDThh:mm:ss.SSSZ. The spec's own format is accepted, and so are
 * the ISO 8601 variants an integration's date library produces for the same instant: 0 to 3
 * fraction digits and a numeric offset instead of Z.
 */
const DATE_TIME = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])(?:\.[0-9]{1,3})?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])$/;

export function dateTimeType(): FieldType {
  const reason = 'must be a date and time in the format YYYY-MM-DDThh:mm:ss.SSSZ';
  return {
    notation: 'DateTime',
    json: 'string',
    check(value) {
      if (typeof value !== 'string') return STRING_REASON;
      const match = DATE_TIME.exec(value);
      return match && isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3])) ? null : reason;
    },
    samples: {
      valid: ['2024-02-29T23:59:59.999Z', '2024-01-01T00:00:00+01:00'],
      invalid: ['2024-02-30T00:00:00.000Z', '2024-01-01 00:00:00.000Z', '2024-01-01T24:00:00.000Z', '2024-01-01'],
      wrongType: 1704067200000,
    },
  };
}

/**
 * Url: begins with https and is longer than 11 characters, and is an absolute URL with a host
 * and no whitespace. At most 2048 characters (the spec's longest URI elsewhere).
 */
export function urlType(): FieldType {
  const reason = 'must be an https URL of 12 to 2048 characters';
  return {
    notation: 'Url',
    json: 'string',
    check(value) {
      if (typeof value !== 'string') return STRING_REASON;
      if (value.length <= 11 || value.length > 2048 || !value.startsWith('https://') || /\s/.test(value)) return reason;
      return URL.canParse(value) ? null : reason;
    },
    samples: {
      valid: ['https://a.co', `https://merchant.example/${'p'.repeat(2048 - 25)}`],
      invalid: ['https://a.c', 'http://merchant.example/return', `https://merchant.example/${'p'.repeat(2048 - 24)}`, 'https://exa mple.com'],
      wrongType: true,
    },
  };
}

/** Boolean: JSON true or false; the string "true" is INVALID. */
export function booleanType(): FieldType {
  const reason = jsonTypeReason('boolean');
  return {
    notation: 'Boolean',
    json: 'boolean',
    check(value) {
      return value === true || value === false ? null : reason;
    },
    samples: { valid: [true, false], invalid: [], wrongType: 'true' },
  };
}

/** Int: a JSON integer (not a string), zero or positive, within the stated bounds. */
export function intType(min: number, max: number): FieldType {
  const reason = `must be an integer between ${min} and ${max}`;
  const typeReason = wrongTypeReason('a JSON integer', 'string');
  return {
    notation: `Int(${min}-${max})`,
    json: 'integer',
    check(value) {
      if (typeof value !== 'number') return typeReason(value);
      return Number.isInteger(value) && value >= min && value <= max ? null : reason;
    },
    samples: { valid: [min, max], invalid: [...(min > 0 ? [min - 1] : []), max + 1, min + 0.5], wrongType: String(min) },
  };
}

/**
 * Base64: the standard alphabet with '=' padding only at the end; either one of a set of exact
 * lengths (3-D Secure tokens: 28 or 32) or a length range.
 */
export function base64Type(length: { exactly: number[] } | { min: number; max: number }): FieldType {
  const fits =
    'exactly' in length
      ? (n: number) => length.exactly.includes(n)
      : (n: number) => n >= length.min && n <= length.max;
  const lengths = 'exactly' in length ? length.exactly.join(' or ') : `${length.min} to ${length.max}`;
  const reason = `must be Base64 of length ${lengths}`;
  const validLengths = 'exactly' in length ? length.exactly : [length.min, length.max];
  const invalidLengths = 'exactly' in length ? [Math.min(...length.exactly) - 1, Math.max(...length.exactly) + 1] : [...(length.min > 0 ? [length.min - 1] : []), length.max + 1];
  return {
    notation: 'exactly' in length ? `Base64(${length.exactly.join('|')})` : `Base64(${length.min}-${length.max})`,
    json: 'string',
    check(value) {
      if (typeof value !== 'string') return STRING_REASON;
      return fits(value.length) && /^[A-Za-z0-9+/]*={0,2}$/.test(value) ? null : reason;
    },
    samples: {
      valid: validLengths.map((n) => base64Sample(n)),
      invalid: [...invalidLengths.map((n) => base64Sample(n)), `${base64Sample(validLengths[0] - 1)}*`],
      wrongType: 1,
    },
  };
}

function base64Sample(length: number): string {
  return length >= 2 ? `${'A'.repeat(length - 1)}=` : 'A'.repeat(Math.max(0, length));
}

/** postcodeZip: 0-9 a-z A-Z, space and '-', 1 to 10 characters. */
export function postcodeZipType(): FieldType {
  return charsetType({
    notation: 'PostcodeZip',
    allowed: '0-9a-zA-Z -',
    min: 1,
    max: 10,
    describe: "0-9 a-z A-Z, space and '-'",
    samples: { validChars: ['1', 'A'], invalidChar: '#' },
  });
}

/**
 * device.ipAddress (token, verify): String(7-15) in the form nnn.nnn.nnn.nnn: an IPv4 address,
 * four parts of one to three digits, each 0-255, leading zeros allowed as the form writes them
 * ("192.168.001.001"); four such parts are always 7 to 15 characters. (Refund's device.ipAddress
 * is a plain String(7-15): the spec gives it no form.)
 */
const IPV4_PART = '(?:25[0-5]|2[0-4][0-9]|[01]?[0-9]?[0-9])';
const IPV4 = new RegExp(`^${IPV4_PART}\\.${IPV4_PART}\\.${IPV4_PART}\\.${IPV4_PART}$`);

export function ipAddressType(): FieldType {
  const reason = 'must be an IPv4 address nnn.nnn.nnn.nnn: four parts of 1 to 3 digits, each 0-255 (7 to 15 characters)';
  return {
    notation: 'IPv4',
    json: 'string',
    check(value) {
      if (typeof value !== 'string') return STRING_REASON;
      return IPV4.test(value) ? null : reason;
    },
    samples: {
      valid: ['1.2.3.4', '192.168.001.001', '255.255.255.255'],
      invalid: ['1.2.3', '256.1.1.1', '1.2.3.4.5', '1.2.3.1234', '1.2.3.a', '1.2.3.4 '],
      wrongType: 16909060,
    },
  };
}

/** A case-sensitive enumeration. */
export function enumType(values: readonly string[]): FieldType {
  const allowed = new Set(values);
  const reason = `must be one of ${values.join(', ')} (case sensitive)`;
  return {
    notation: `Enum(${[...values].sort().join('|')})`,
    json: 'string',
    check(value) {
      if (typeof value !== 'string') return STRING_REASON;
      return allowed.has(value) ? null : reason;
    },
    samples: {
      valid: [...values],
      invalid: [values[0].toLowerCase() === values[0] ? `${values[0]}X` : values[0].toLowerCase(), 'NOT_A_VALUE'],
      wrongType: 1,
    },
  };
}

/**
 * An enumeration whose values the spec does not show (brand names are omitted from it):
 * accepted in the shape every enumeration value of the API has, an upper-case identifier.
 */
export function unlistedEnumType(): FieldType {
  const reason = "must be an enumeration value: 1 to 50 characters from A-Z, 0-9 and '_', starting with a letter";
  return {
    notation: 'Enum(*)',
    json: 'string',
    check(value) {
      if (typeof value !== 'string') return STRING_REASON;
      return /^[A-Z][A-Z0-9_]{0,49}$/.test(value) ? null : reason;
    },
    samples: { valid: ['A', `A${'_'.repeat(49)}`], invalid: ['', 'lower_case', `A${'B'.repeat(50)}`], wrongType: 1 },
  };
}

/** JSON text of a bounded length (3-D Secure custom data): a string that parses as JSON. */
export function jsonTextType(min: number, max: number): FieldType {
  const text = stringType(min, max);
  const reason = `must be JSON text of ${lengthPhrase(min, max)} characters`;
  return {
    notation: `JSON(${min}-${max})`,
    json: 'string',
    check(value) {
      if (text.check(value) !== null) return typeof value === 'string' ? reason : STRING_REASON;
      try {
        JSON.parse(value as string);
        return null;
      } catch {
        return reason;
      }
    },
    samples: { valid: ['1', `"${'x'.repeat(max - 2)}"`], invalid: ['{', `"${'x'.repeat(max - 1)}"`], wrongType: 1 },
  };
}

/** 3-D Secure protocol version: 0-9 a-z A-Z '.', 1-20 characters. */
export function protocolVersionType(): FieldType {
  return charsetType({
    notation: 'Chars(0-9a-zA-Z.)(1-20)',
    allowed: '0-9a-zA-Z.',
    min: 1,
    max: 20,
    describe: "0-9 a-z A-Z and '.'",
    samples: { validChars: ['2', 'a'], invalidChar: '-' },
  });
}

/** A single letter a-z A-Z (3-D Secure transaction status). */
export function letterType(): FieldType {
  return charsetType({
    notation: 'Letter',
    allowed: 'a-zA-Z',
    min: 1,
    max: 1,
    describe: 'a-z A-Z',
    samples: { validChars: ['Y', 'n'], invalidChar: '1' },
  });
}
