import fc from 'fast-check';
import { holdsCardNumber, holdsSchemeCardNumber, isSchemeCardNumber, maskCardNumbers } from './card-number-masking';
import { luhnCheckDigit } from './luhn';

describe('maskCardNumbers', () => {
  it('masks a card number 6.4 in either form and leaves other numbers readable', () => {
    expect(maskCardNumbers('card 5123450000000008 declined', 'keep-length')).toBe(
      'card 512345xxxxxx0008 declined',
    );
    expect(maskCardNumbers('card 5123450000000008 declined', 'short')).toBe('card 512345…0008 declined');
    // 13 digits that fail Luhn: an epoch in milliseconds, not a card number.
    expect(maskCardNumbers('retry at 1712345678901', 'short')).toBe('retry at 1712345678901');
    expect(maskCardNumbers('at 2026-11-25 16:40:25.123', 'short')).toBe('at 2026-11-25 16:40:25.123');
  });

  it('masks the shortest card numbers, of 13 digits', () => {
    // The test card's first six and last four around three zeros: 13 digits that pass Luhn.
    expect(maskCardNumbers('card 5123450000000 declined', 'keep-length')).toBe('card 512345xxx0000 declined');
    expect(maskCardNumbers('5123450000000', 'short')).toBe('512345…0000');
  });

  it('masks a card number written in groups, keeping its separators where the length is kept', () => {
    expect(maskCardNumbers('pan 5123 4500 0000 0008.', 'keep-length')).toBe('pan 5123 45xx xxxx 0008.');
    expect(maskCardNumbers('pan 5123-4500-0000-0008', 'keep-length')).toBe('pan 5123-45xx-xxxx-0008');
    expect(maskCardNumbers('pan 5123 4500 0000 0008', 'short')).toBe('pan 512345…0008');
  });

  it.each([
    ['dots', 'pan 5123.4500.0000.0008', 'pan 5123.45xx.xxxx.0008'],
    ['slashes', 'pan 5123/4500/0000/0008', 'pan 5123/45xx/xxxx/0008'],
    ['underscores', 'pan 5123_4500_0000_0008', 'pan 5123_45xx_xxxx_0008'],
    ['double spaces', 'pan 5123  4500  0000  0008', 'pan 5123  45xx  xxxx  0008'],
    ['spaced dashes', 'pan 5123 - 4500 - 0000 - 0008', 'pan 5123 - 45xx - xxxx - 0008'],
    ['pairs', 'pan 51 23 45 00 00 00 00 08', 'pan 51 23 45 xx xx xx 00 08'],
    ['pairs and dots', 'pan 51.23.45.00.00.00.00.08', 'pan 51.23.45.xx.xx.xx.00.08'],
    ['the American Express layout', 'pan 3782.822463.10005', 'pan 3782.82xxxx.x0005'],
    ['groups of four, the last one shorter', 'pan 4111/1111/1111/1111/003', 'pan 4111/11xx/xxxx/xxx1/003'],
  ])('masks a card number written with %s, as a person writes one', (_how, text, masked) => {
    expect(maskCardNumbers(text, 'keep-length')).toBe(masked);
    expect(holdsCardNumber(text)).toBe(true);
  });

  // Most of these (dates followed by numbers, lists of amounts, a time stamp, UUIDs, telephone
  // numbers, IP addresses) hold digits that pass Luhn once groups are joined across any separator
  // whatever their sizes: only how they are grouped tells them from a card number.
  it.each([
    ['dates', '2026-11-26, 26/11/2026, 26.11.2026, 2026.11.26, 2026/11/26 and 2026_11_26'],
    ['a date and a time', 'at 2026-11-26 16:40:25.123 and 26.11.2026 14.30.15'],
    ['ISO times', '2026-11-26T16:40:25.123Z 2026-11-26T16:40:25+01:00 20261126T164025Z'],
    ['dates and numbers in a row', '2026-11-26 1712345678 2026-11-26 12345'],
    ['amounts', '1234.56 USD, 12,345.67, 1 234 567,89 EUR, 1000000000000.00, 1.234.567,89'],
    ['a list of amounts', '12.50 13.75 14.00 15.25 16.50 17.75 18.00 19.25'],
    ['amounts of three decimals', '1234.567 8901.234 5678.901'],
    ['a time stamp with its fraction', 'at 1764133225.123456 and 1712345678.901234'],
    ['UUIDs', '123e4567-e89b-12d3-a456-426614174000 12345678-1234-5678-1234-567812345678 9f1c2e7a-4b3d-4e8f-8005-426614213595'],
    ['telephone numbers', '+1 (555) 123-4567, +44 20 7946 0958, +49 30 12345678, +33 6 12 34 56 78, (555) 123-4567'],
    // The digits of the first two pass Luhn: only their grouping tells them from a card number.
    ['telephone numbers with longer country codes', '+880 1712 345670, +49 171 1234 5674, +353 87 123 4567, 0049 30 1234 5678, 1-800-555-1234'],
    ['IP addresses', '192.168.100.200 10.100.200.150 255.255.255.255'],
    ['versions and paths', 'v10.20.30, /orders/2026/11/26/123456, build_2026_11_26_1234'],
  ])('leaves %s readable', (_what, text) => {
    expect(maskCardNumbers(text, 'keep-length')).toBe(text);
    expect(maskCardNumbers(text, 'short')).toBe(text);
  });

  it('checks each group of a telephone number after its country code, not with it', () => {
    expect(maskCardNumbers('+5123450000000008', 'short')).toBe('+512345…0008');
    expect(maskCardNumbers('+1 5123 4500 0000 0008', 'short')).toBe('+1 512345…0008');
  });

  it('masks a 19-digit card number written as two groups, its first six digits apart', () => {
    // Two groups of 6 and 13 digits joined by a space: 19 digits, a card number's most. Each
    // group alone holds none (the second starts with 0), so only reading them together masks it.
    const nineteen = `512345000000000000${luhnCheckDigit('512345000000000000')}`;
    const written = `${nineteen.slice(0, 6)} ${nineteen.slice(6)}`;
    expect(maskCardNumbers(`pan ${written}`, 'keep-length')).toBe(`pan 512345 xxxxxxxxx${nineteen.slice(-4)}`);
    expect(maskCardNumbers(`pan ${written}`, 'short')).toBe(`pan 512345…${nineteen.slice(-4)}`);
  });

  it('masks the groups that hold a card number and leaves the groups around them readable', () => {
    expect(maskCardNumbers('ref 123 5123 4500 0000 0008 0139', 'short')).toBe('ref 123512…0008 0139');
    expect(maskCardNumbers('5123450000000008 0139', 'keep-length')).toBe('512345xxxxxx0008 0139');
    expect(maskCardNumbers('51234500000000080139', 'keep-length')).toBe('512345xxxxxxxxxx0139');
  });

  it('leaves groups that together hold no card number as they are', () => {
    const ids = 'ids 1111111111111111111 1111111111111111111 1111111111111111111';
    expect(maskCardNumbers(ids, 'short')).toBe(ids);
  });

  it('masks a very long run in one linear pass', () => {
    const run = `5123450000000008${'0'.repeat(65_520)}`;
    const masked = maskCardNumbers(run, 'keep-length');
    expect(masked.length).toBe(run.length);
    expect(masked === `512345${'x'.repeat(run.length - 10)}0000`).toBe(true);
    expect(maskCardNumbers(run, 'short')).toBe('512345…0000');
  });

  it('checks a long list of groups in linear time', () => {
    const ones = '1111111111111111111 '.repeat(5_000);
    // Each group of 19 ones holds no stretch that passes Luhn, nor do two of them joined (more
    // digits than a card number has); 100,000 sevens are masked.
    const masked = maskCardNumbers(`${ones}${'7'.repeat(100_000)}`, 'short');
    expect(masked.length).toBe(ones.length + 11);
    expect(masked.startsWith(ones)).toBe(true);
    expect(masked.slice(ones.length)).toBe('777777…7777');
  });

  it('never shows more of a card number than its first six digits and last four, whatever surrounds it', () => {
    const digits = (min: number, max: number) => fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
    const separator = fc.constantFrom(' ', '-', '.', '/', '_', '  ', ' - ');
    const written = fc.constantFrom(
      '5123450000000008',
      '5123 4500 0000 0008',
      '5123-4500-0000-0008',
      '512345 0000000008',
      '5123.4500.0000.0008',
      '5123/4500/0000/0008',
      '5123_4500_0000_0008',
      '5123  4500  0000  0008',
      '5123 - 4500 - 0000 - 0008',
      '51 23 45 00 00 00 00 08',
      '3782.822463.10005',
    );
    const text = fc.tuple(
      fc.array(fc.tuple(digits(1, 8), separator), { maxLength: 4 }),
      written,
      fc.array(fc.tuple(separator, digits(1, 8)), { maxLength: 4 }),
    );
    fc.assert(
      fc.property(text, ([before, card, after]) => {
        const prefix = before.map(([group, sep]) => group + sep).join('');
        const masked = maskCardNumbers(
          `${prefix}${card}${after.map(([sep, group]) => sep + group).join('')}`,
          'keep-length',
        );
        const cardDigits = card.replace(/[ ./_-]/g, '').length;
        // Keep-length masking keeps every character where it was: the card's seventh to
        // twelfth digits must each read x.
        let digitIndex = -1;
        [...card].forEach((char, i) => {
          if (!/[0-9]/.test(char)) {
            return;
          }
          digitIndex += 1;
          if (digitIndex >= 6 && digitIndex < cardDigits - 4) {
            expect(masked[prefix.length + i]).toBe('x');
          }
        });
      }),
    );
  });
});

describe('holdsCardNumber', () => {
  it('finds a card number in any text, as one run or in groups, and nothing in other numbers', () => {
    expect(holdsCardNumber('5123450000000008')).toBe(true);
    expect(holdsCardNumber('{"site":"A1","card":"5123 4500 0000 0008"}')).toBe(true);
    expect(holdsCardNumber('ref 5123-4500-0000-0008.')).toBe(true);
    expect(holdsCardNumber('{"note":"card 5123.4500.0000.0008 exp 01/39"}')).toBe(true);
    expect(holdsCardNumber('{"note":"delivered 2026-11-26 16:40, call +44 20 7946 0958"}')).toBe(false);
    expect(holdsCardNumber('{"site":"A1","at":1712345678901}')).toBe(false);
    expect(holdsCardNumber('order 12345, 2026-11-26')).toBe(false);
    expect(holdsCardNumber('')).toBe(false);
  });
});

describe('holdsSchemeCardNumber (fields of human text)', () => {
  const withCheckDigit = (payload: string) => `${payload}${luhnCheckDigit(payload)}`;

  it('finds a major scheme card number written as people write one', () => {
    expect(holdsSchemeCardNumber('card 5123450000000008')).toBe(true);
    expect(holdsSchemeCardNumber('please charge 5123 4500 0000 0008 again')).toBe(true);
    expect(holdsSchemeCardNumber('5123-4500-0000-0008')).toBe(true);
    expect(holdsSchemeCardNumber('51 23 45 00 00 00 00 08')).toBe(true);
    const amex = withCheckDigit('37123450000000');
    expect(holdsSchemeCardNumber(`amex ${amex.slice(0, 4)} ${amex.slice(4, 10)} ${amex.slice(10)}`)).toBe(true);
    expect(holdsSchemeCardNumber(`visa ${withCheckDigit('412345000000000')}`)).toBe(true);
    // Visa's 19 digits, a card number's most, as two groups.
    const nineteen = withCheckDigit('412345000000000000');
    expect(holdsSchemeCardNumber(`visa ${nineteen.slice(0, 6)} ${nineteen.slice(6)}`)).toBe(true);
  });

  it('leaves alone what holdsCardNumber would take but a reference may be: other prefixes, other lengths, longer runs', () => {
    // Luhn passes, but 1 is no major scheme's prefix: the test card's unknown-BIN twin.
    expect(holdsCardNumber('ref 1123450000000007')).toBe(true);
    expect(holdsSchemeCardNumber('ref 1123450000000007')).toBe(false);
    // A Mastercard prefix at a length Mastercard does not issue (17 digits).
    const seventeen = withCheckDigit('5123450000000000');
    expect(holdsCardNumber(seventeen)).toBe(true);
    expect(holdsSchemeCardNumber(seventeen)).toBe(false);
    // The card number inside a longer run of digits: an id, not a number written by mistake.
    expect(holdsCardNumber('ref 51234500000000081234')).toBe(true);
    expect(holdsSchemeCardNumber('ref 51234500000000081234')).toBe(false);
    // The test card with a broken check digit, a time in milliseconds, a telephone number, a UUID.
    for (const text of ['5123450000000009', 'at 1712345678901', 'call +44 20 7946 0958', '9f1c2e7a-4b3d-4e8f-8005-426614213595', '']) {
      expect([text, holdsSchemeCardNumber(text)]).toEqual([text, false]);
    }
  });

  it('leaves alone a product\'s EAN-13 in an item name: 13 digits from 4 (Germany 400-440, Japan 45, 49) pass Luhn one time in ten', () => {
    // Valid EAN-13s (their own check digit) that also pass Luhn: Visa's 13-digit length would take them.
    for (const ean of ['4021067655565', '4079353023567', '4096250719089']) {
      expect(holdsCardNumber(ean)).toBe(true);
      expect([ean, holdsSchemeCardNumber(`Shampoo 250 ml, EAN ${ean}`)]).toEqual([ean, false]);
    }
  });

  it('reads a telephone number\'s country code apart from its groups, and a UUID as no groups at all', () => {
    // Groups of three after a three-digit country code, read with it, a 16-digit Visa number passing Luhn.
    const withCode = withCheckDigit('420601234567890');
    expect(holdsSchemeCardNumber(withCode)).toBe(true);
    expect(holdsSchemeCardNumber(`call +${withCode.replace(/^(\d{3})(\d{3})(\d{3})(\d{3})/, '$1 $2 $3 $4 ')}`)).toBe(false);
    // An all-digit UUID whose first three groups, read together, would be a Visa number passing Luhn.
    const visa = withCheckDigit('412345000000000');
    expect(holdsSchemeCardNumber(visa)).toBe(true);
    expect(holdsSchemeCardNumber(`id ${visa.slice(0, 8)}-${visa.slice(8, 12)}-${visa.slice(12)}-0000-000000000000`)).toBe(false);
  });

  it('is never true where holdsCardNumber is false (it only narrows it)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9 -]{0,40}$/), (text) => {
        if (holdsSchemeCardNumber(text)) expect(holdsCardNumber(text)).toBe(true);
      }),
    );
  });

  it('isSchemeCardNumber: a scheme prefix, a length it issues and the check digit', () => {
    expect(isSchemeCardNumber('5123450000000008')).toBe(true);
    expect(isSchemeCardNumber('5123450000000009')).toBe(false);
    expect(isSchemeCardNumber(withCheckDigit('222100000000000'))).toBe(true);
    expect(isSchemeCardNumber(withCheckDigit('272100000000000'))).toBe(false);
    expect(isSchemeCardNumber(withCheckDigit('62123400000000000'))).toBe(true);
    expect(isSchemeCardNumber(withCheckDigit('3612340000000'))).toBe(true);
    expect(isSchemeCardNumber(withCheckDigit('12345000000000'))).toBe(false);
  });

  it("isSchemeCardNumber: each scheme's prefix range at its bounds, and only the lengths it issues", () => {
    // A number of `length` digits starting with `prefix`, zeros after it, and its check digit.
    const card = (prefix: string, length: number) => withCheckDigit(prefix.padEnd(length - 1, '0'));
    const held: [string, number][] = [
      ['4', 16], ['4', 19],
      ['51', 16], ['55', 16], ['2221', 16], ['2720', 16],
      ['34', 15], ['37', 15],
      ['6011', 16], ['6011', 19], ['644', 16], ['649', 16], ['65', 16],
      ['3528', 16], ['3589', 19],
      ['300', 14], ['305', 19], ['36', 14], ['38', 16], ['39', 16],
      ['62', 16], ['62', 19],
    ];
    const notHeld: [string, number][] = [
      ['4', 13], ['4', 14], ['4', 15], ['4', 17], ['4', 18],
      ['50', 16], ['56', 16], ['55', 15], ['2220', 16], ['2721', 16],
      ['34', 16], ['37', 16], ['33', 15], ['35', 15],
      ['6012', 16], ['6011', 15], ['643', 16],
      ['3527', 16], ['3590', 16], ['3528', 15],
      ['306', 14], ['300', 13], ['36', 13], ['38', 15],
      ['61', 16], ['62', 15],
    ];
    expect(held.filter(([prefix, length]) => !isSchemeCardNumber(card(prefix, length)))).toEqual([]);
    expect(notHeld.filter(([prefix, length]) => isSchemeCardNumber(card(prefix, length)))).toEqual([]);
  });
});
