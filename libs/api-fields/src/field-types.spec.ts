import fc from 'fast-check';
import { luhnCheckDigit } from '@gateway/crypto';
import { Money } from '@gateway/money';
import { FieldType } from './field-type';
import {
  alnumType,
  asciiType,
  base64Type,
  booleanType,
  cardNumberType,
  customDataType,
  dateTimeType,
  dateType,
  decInType,
  digitsType,
  digitValueType,
  emailType,
  expiryYearType,
  freeTextType,
  enumType,
  hexType,
  intType,
  ipAddressType,
  jsonTextType,
  letterType,
  postcodeZipType,
  protocolVersionType,
  stringType,
  telType,
  unlistedEnumType,
  upper3Type,
  urlType,
} from './field-types';

const accepts = (type: FieldType, value: unknown) => type.check(value) === null;

/** Numbers of other schemes' ranges built around the test card's digits, with their check digit (no real card). */
const withCheckDigit = (payload: string) => `${payload}${luhnCheckDigit(payload)}`;
const AMEX = withCheckDigit('37123450000000');
const VISA = withCheckDigit('412345000000000');
const DISCOVER = withCheckDigit('601145000000000');
const grouped = (digits: string, sizes: number[], separator: string) =>
  sizes.map((size, i) => digits.slice(sizes.slice(0, i).reduce((a, b) => a + b, 0), sizes.slice(0, i + 1).reduce((a, b) => a + b, 0))).join(separator);

/** Every type, with values written by hand from the spec's wording (not from the samples). */
const EXAMPLES: [string, FieldType, unknown[], unknown[]][] = [
  ['String(1-3)', stringType(1, 3), ['a', 'abc', 'äöü', '😀😀😀', 'a\tb'], ['', 'abcd', 'a\u0000', '\ud800', 1, null, true]],
  ['String(0-32)', stringType(0, 32), ['', 'x'.repeat(32)], ['x'.repeat(33)]],
  [
    'String(1-40) of custom data',
    customDataType(1, 40),
    ['{"site":"A1","at":1712345678901}', 'order 12345, 2026-11-26', 'x'.repeat(40), 'call +880 1712 345670', '12.50 13.75 14.00 15.25', '10.100.200.150'],
    ['5123450000000008', 'card 5123 4500 0000 0008', '{"pan":"5123-4500-0000-0008"}', 'pan 5123.4500.0000.0008', '5123_4500_0000_0008', '51 23 45 00 00 00 00 08', '', 'x'.repeat(41), 1],
  ],
  [
    'String(1-250) of free text',
    freeTextType(1, 250),
    [
      'Please leave at the back door',
      'Order 1234567890123456, reference 9876543210987654321',
      'paid at 1712345678901',
      'call +44 20 7946 0958 on 2026-11-26',
      'ref 51234500000000081234',
      'card ending 0008 (512345xxxxxx0008)',
      'invoice 1123450000000007',
      'x'.repeat(250),
    ],
    ['card 5123450000000008', 'pan: 5123 4500 0000 0008', `Amex ${grouped(AMEX, [4, 6, 5], ' ')}`, grouped(VISA, [4, 4, 4, 4], '-'), DISCOVER, '', 'x'.repeat(251), 1],
  ],
  ['ASCII(31-35)', asciiType(31, 35), ['A'.repeat(31), '~'.repeat(35)], ['A'.repeat(30), 'é'.repeat(31), 'A'.repeat(36)]],
  ['Alnum(1-40)', alnumType(1, 40), ['a', 'Z9'.repeat(20)], ['', 'a-b', 'a b', 'a'.repeat(41), 12]],
  ['Hex(20-20)', hexType(20, 20), ['0123456789abcdefABCD'], ['0123456789abcdefABC', '0123456789abcdefABCG']],
  ['Digits(9-19)', digitsType(9, 19), ['512345000', '5123450000000008'], ['51234500', '5'.repeat(20), '51234500000000O8', 5123450000000008]],
  [
    'Card number: Digits(9-19) passing Luhn',
    cardNumberType(),
    ['5123450000000008', '5123450000000016', '512345000008', '1123450000000007', '0000000000000000000'],
    ['5123450000000009', '5123450000000007', '512345000009', '51234500', '5'.repeat(20), '51234500000000O8', ' 5123450000000008', '5123 4500 0000 0008', 5123450000000008, null],
  ],
  ['Expiry year: Digits(2-2)', expiryYearType(), ['39', '00', '99'], ['2040', '9', '039', '3a', '', 39, null]],
  ['Digits(value 1-12)', digitValueType(1n, 12n), ['1', '01', '9', '12'], ['0', '13', '00', '001', 'x', '', 1, '-1']],
  ['Digits(value 0-999)', digitValueType(0n, 999n), ['0', '000', '999'], ['1000', '0000']],
  [
    'Digits(value 1-9999999999999999)',
    digitValueType(1n, 9999999999999999n),
    ['1', '9999999999999999'],
    ['0', '10000000000000000', 9999999999999999],
  ],
  ['DecIn', decInType(), ['0', '10', '10.5', '.5', '10.', '12345678901.99'], ['', '-1', '1e3', '1,5', ' 1', '1.2.3', '123456789012.34', 10.5]],
  ['DecIn(signed)', decInType({ signed: true }), ['-1', '-1234567890.99', '5'], ['--1', '1-', '-', '-123456789012.3']],
  ['Upper3', upper3Type(), ['USA', 'DEU'], ['US', 'usa', 'USAA', 'U1A']],
  ['Upper3 currency', upper3Type({ currency: true }), ['USD', 'JPY', 'BHD'], ['ZZZ', 'usd']],
  ['Email', emailType(), ['a@bc', 'payer@example.com', 'first.last+tag@sub.example.co.uk', 'jörg@bücher.de', 'a@[127.0.0.1]'], ['a@b', 'payer', '@example.com', 'a@', 'a..b@example.com', 'a b@example.com']],
  ['Tel', telType(), ['+1 2', '+44 20 7946 0000', '+353 12 345 678 9012'], ['+44 20 7946 00000 000', '44 20', '+44  20', '+4420', '+1234 56', '+44 20 ', '+44-20']],
  ['Date', dateType(), ['2024-02-29', '2000-02-29', '1999-12-31', '0001-01-01'], ['2023-02-29', '1900-02-29', '2024-04-31', '2024-00-10', '2024-1-1', '20240101', '0000-01-01']],
  [
    'DateTime',
    dateTimeType(),
    ['2024-02-29T23:59:59.999Z', '2024-01-01T00:00:00Z', '2024-01-01T00:00:00.1+05:30'],
    ['2024-01-01T24:00:00.000Z', '2024-01-01T00:60:00.000Z', '2024-01-01T00:00:00.000', '2024-01-01', '2024-02-30T00:00:00.000Z'],
  ],
  ['Url', urlType(), ['https://a.co', 'https://merchant.example/return?order=1'], ['https://a.c', 'http://merchant.example/return', 'ftp://merchant.example', 'https://a b.example', 'HTTPS//nothing.example']],
  ['Boolean', booleanType(), [true, false], ['true', 1, 0, null]],
  ['Int(1-9999)', intType(1, 9999), [1, 9999, 5.0], [0, 10000, 1.5, '5', null]],
  ['Base64(28|32)', base64Type({ exactly: [28, 32] }), ['A'.repeat(27) + '=', 'AAAA'.repeat(8)], ['A'.repeat(29), 'A'.repeat(31), '*'.repeat(28), '=' + 'A'.repeat(27)]],
  ['Base64(1-200)', base64Type({ min: 1, max: 200 }), ['AA==', 'A'.repeat(200)], ['', 'A'.repeat(201), 'A-B']],
  ['PostcodeZip', postcodeZipType(), ['1', 'SW1A 1AA', '12345-6789'], ['', '12345678901', 'SW1A_1AA']],
  [
    'IPv4',
    ipAddressType(),
    ['1.2.3.4', '255.255.255.255', '10.0.0.1', '192.168.001.001', '01.2.3.4', '000.000.000.000'],
    ['1.2.3', '1.2.3.4.5', '1.2.3.1234', '1..2.3', '1.2.3.', 'a.b.c.d', '1.2.3.4 ', ' 1.2.3.4', '1.2.3.٤', '::1', '', 16909060],
  ],
  ['Enum', enumType(['CARD', 'PROVIDER_A']), ['CARD', 'PROVIDER_A'], ['card', 'Card', 'PROVIDER_B', '']],
  ['Enum(*)', unlistedEnumType(), ['WALLET_X', 'A1'], ['wallet', '1A', '']],
  ['JSON(1-4000)', jsonTextType(1, 4000), ['{"a":1}', '1', '"x"'], ['{', '', "{'a':1}"]],
  ['protocolVersion', protocolVersionType(), ['2.2.0', '2'], ['2.2-0', '']],
  ['Letter', letterType(), ['Y', 'n'], ['YY', '1', '']],
];

describe('reasons a developer can act on', () => {
  it('names a JSON number sent for a digit or decimal string, and only then', () => {
    expect(decInType().check(10.5)).toBe('must be a JSON string holding a decimal number, not a number');
    expect(digitsType(2, 2).check(39)).toBe('must be a JSON string of digits, not a number');
    expect(digitValueType(1n, 12n).check(1)).toBe('must be a JSON string of digits, not a number');
    // null (a serializer writing an unset field), true, an object or an array is no number.
    for (const value of [null, true, {}, ['10.00']]) {
      expect([value, decInType().check(value)]).toEqual([value, 'must be a JSON string holding a decimal number']);
      expect([value, digitsType(2, 2).check(value)]).toEqual([value, 'must be a JSON string of digits']);
      expect([value, digitValueType(1n, 12n).check(value)]).toEqual([value, 'must be a JSON string of digits']);
      expect([value, cardNumberType().check(value)]).toEqual([value, 'must be a JSON string of digits']);
    }
  });

  it('names a string sent for an Int, and only then', () => {
    expect(intType(0, 99).check('5')).toBe('must be a JSON integer, not a string');
    expect(intType(0, 99).check(null)).toBe('must be a JSON integer');
    expect(intType(0, 99).check(true)).toBe('must be a JSON integer');
  });

  it('says an expiry year is the last two digits of the year, the full year being the usual mistake', () => {
    expect(expiryYearType().notation).toBe('Digits(2-2)');
    expect(expiryYearType().check('2039')).toBe("must be the last 2 digits of the year: '39' for 2039");
  });

  it('says a card number has no spaces or dashes, as a number copied from a card has', () => {
    for (const number of ['5123 4500 0000 0008', '5123-4500-0000-0008']) {
      expect(cardNumberType().check(number)).toBe('must be 9 to 19 characters from 0-9, without spaces or dashes');
    }
  });
});

describe.each(EXAMPLES)('%s', (_name, type, valid, invalid) => {
  it.each(valid.map((v) => [v]))('accepts %p', (value) => {
    expect(type.check(value)).toBeNull();
  });

  it.each(invalid.map((v) => [v]))('rejects %p with a reason', (value) => {
    expect(type.check(value)).toEqual(expect.stringMatching(/^must /));
  });

  it('agrees with its own samples: valid at each bound, invalid past them, and a wrong JSON type', () => {
    for (const value of type.samples.valid) expect([value, type.check(value)]).toEqual([value, null]);
    for (const value of type.samples.invalid) expect([value, accepts(type, value)]).toEqual([value, false]);
    expect(accepts(type, type.samples.wrongType)).toBe(false);
  });

  it('never puts the value in its reason', () => {
    for (const value of [...invalid, ...type.samples.invalid].filter((v): v is string => typeof v === 'string' && v.length > 3 && !['true', 'false'].includes(v))) {
      expect(type.check(value)).not.toContain(value);
    }
  });
});

describe('field types (properties)', () => {
  const codePoints = (s: string) => [...s].length;
  const forbidden = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

  it('String(a-b) accepts exactly the texts of a to b characters without control characters', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 20 }), fc.string({ unit: 'binary', maxLength: 45 }), (a, span, text) => {
        const type = stringType(a, a + span);
        const expected = codePoints(text) >= a && codePoints(text) <= a + span && !forbidden.test(text);
        expect(accepts(type, text)).toBe(expected);
      }),
    );
  });

  const charsetCases: [string, (min: number, max: number) => FieldType, string][] = [
    ['Alnum', alnumType, '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'],
    ['Hex', hexType, '0123456789abcdefABCDEF'],
    ['Digits', digitsType, '0123456789'],
    ['ASCII', asciiType, Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i)).join('')],
  ];
  it.each(charsetCases)('%s(a-b) accepts exactly the strings of its characters within the bounds', (_name, factory, alphabet) => {
    const chars = fc.constantFrom(...alphabet.split(''), '-', 'é', ' ', '_', 'G', 'z');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 10 }), fc.array(chars, { maxLength: 25 }), (a, span, list) => {
        const text = list.join('');
        const expected = list.length >= a && list.length <= a + span && list.every((c) => alphabet.includes(c));
        expect(accepts(factory(a, a + span), text)).toBe(expected);
      }),
    );
  });

  it('a card number is accepted with its check digit and refused with any other last digit', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{8,18}$/), fc.integer({ min: 1, max: 9 }), (payload, shift) => {
        const check = Number(luhnCheckDigit(payload));
        expect(accepts(cardNumberType(), `${payload}${check}`)).toBe(true);
        expect(accepts(cardNumberType(), `${payload}${(check + shift) % 10}`)).toBe(false);
      }),
    );
  });

  it('Digits with value bounds compares values exactly, leading zeros allowed', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 17n }), fc.integer({ min: 0, max: 3 }), (value, zeros) => {
        const type = digitValueType(1n, 9999999999999999n);
        const text = `${'0'.repeat(zeros)}${value}`;
        const expected = value >= 1n && value <= 9999999999999999n && text.length <= 16;
        expect(accepts(type, text)).toBe(expected);
        expect(accepts(type, Number(value))).toBe(false);
      }),
    );
  });

  it('DecIn accepts every decimal of at most 14 characters, and libs/money parses each one it accepts', () => {
    const decimal = fc
      .tuple(fc.boolean(), fc.stringMatching(/^[0-9]{1,12}$/), fc.option(fc.stringMatching(/^[0-9]{0,4}$/)))
      .map(([negative, int, frac]) => `${negative ? '-' : ''}${int}${frac === null ? '' : `.${frac}`}`);
    fc.assert(
      fc.property(decimal, (text) => {
        const unsigned = !text.startsWith('-') && text.length <= 14;
        expect(accepts(decInType(), text)).toBe(unsigned);
        expect(accepts(decInType({ signed: true }), text)).toBe(text.length <= 14);
        if (accepts(decInType({ signed: true }), text)) {
          expect(Money.of(text, 'CLF').toString()).toMatch(/^-?[0-9]/);
        }
      }),
    );
  });

  it('DecIn rejects anything that is not a decimal', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 14 }), (text) => {
        fc.pre(!/^-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/.test(text));
        expect(accepts(decInType({ signed: true }), text)).toBe(false);
      }),
    );
  });

  it('Upper3 accepts exactly three capital letters', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 5 }), (text) => {
        expect(accepts(upper3Type(), text)).toBe(/^[A-Z]{3}$/.test(text));
      }),
    );
  });

  it('Email accepts generated addresses of 4 to 254 characters', () => {
    fc.assert(
      fc.property(fc.emailAddress(), (address) => {
        fc.pre(address.length > 3);
        expect(accepts(emailType(), address)).toBe(address.length <= 254);
      }),
    );
  });

  it('Tel accepts E.123 numbers of at most 15 digits and nothing with more', () => {
    const digits = (min: number, max: number) => fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
    fc.assert(
      fc.property(digits(1, 3), fc.array(digits(1, 6), { minLength: 1, maxLength: 4 }), (country, groups) => {
        const number = `+${country} ${groups.join(' ')}`;
        const count = country.length + groups.join('').length;
        expect(accepts(telType(), number)).toBe(count <= 15);
      }),
    );
  });

  it('Date and DateTime accept every instant in their ISO 8601 format', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }), (date) => {
        const iso = date.toISOString();
        expect(accepts(dateTimeType(), iso)).toBe(true);
        expect(accepts(dateType(), iso.slice(0, 10))).toBe(true);
      }),
    );
  });

  it('Date rejects days past the end of their month', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1900, max: 2100 }), fc.integer({ min: 1, max: 12 }), (year, month) => {
        const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
        const pad = (n: number) => String(n).padStart(2, '0');
        expect(accepts(dateType(), `${year}-${pad(month)}-${pad(last)}`)).toBe(true);
        expect(accepts(dateType(), `${year}-${pad(month)}-${pad(last + 1)}`)).toBe(false);
      }),
    );
  });

  it('Url accepts https URLs longer than 11 characters and refuses other schemes', () => {
    fc.assert(
      fc.property(fc.webUrl({ validSchemes: ['https', 'http'], withQueryParameters: true }), (url) => {
        expect(accepts(urlType(), url)).toBe(url.startsWith('https://') && url.length > 11 && url.length <= 2048);
      }),
    );
  });

  it('Boolean accepts only JSON true and false', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(accepts(booleanType(), value)).toBe(typeof value === 'boolean');
      }),
    );
  });

  it('Int accepts only JSON integers within its bounds', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -20, max: 20 }), fc.double({ noNaN: true }), fc.string()), (value) => {
        expect(accepts(intType(4, 12), value)).toBe(typeof value === 'number' && Number.isInteger(value) && value >= 4 && value <= 12);
      }),
    );
  });

  it('Base64 of length 28 or 32 accepts encodings of 19 to 24 bytes of those lengths only', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 40 }), (bytes) => {
        const text = Buffer.from(bytes).toString('base64');
        expect(accepts(base64Type({ exactly: [28, 32] }), text)).toBe(text.length === 28 || text.length === 32);
      }),
    );
  });

  it('device.ipAddress accepts every IPv4 address in dotted decimal, leading zeros too', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.boolean(), (address, padded) => {
        const written = padded ? address.split('.').map((group) => group.padStart(3, '0')).join('.') : address;
        expect(accepts(ipAddressType(), written)).toBe(true);
      }),
    );
  });

  it("device.ipAddress is exactly the spec's form nnn.nnn.nnn.nnn: four parts of 1 to 3 digits, each 0-255 (7 to 15 characters)", () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[0-9]{0,4}$/), { minLength: 3, maxLength: 5 }), (groups) => {
        const text = groups.join('.');
        const form = groups.length === 4 && groups.every((group) => group.length >= 1 && group.length <= 3 && Number(group) <= 255);
        expect(accepts(ipAddressType(), text)).toBe(form);
        if (form) expect(text.length >= 7 && text.length <= 15).toBe(true);
      }),
    );
    expect(accepts(ipAddressType(), '999.999.999.999')).toBe(false);
  });

  it('PostcodeZip accepts 1 to 10 characters of 0-9 a-z A-Z space and dash', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (text) => {
        expect(accepts(postcodeZipType(), text)).toBe(/^[0-9a-zA-Z -]{1,10}$/.test(text));
      }),
    );
  });

  it('enumerations are case sensitive', () => {
    const values = ['ACQUIRER', 'BASIC', 'NONE'];
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...values), fc.constantFrom(...values).map((v) => v.toLowerCase()), fc.string()), (value) => {
        expect(accepts(enumType(values), value)).toBe(values.includes(value));
      }),
    );
  });
});
