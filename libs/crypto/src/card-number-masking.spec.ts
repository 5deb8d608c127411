import fc from 'fast-check';
import { holdsCardNumber, maskCardNumbers } from './card-number-masking';

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
    const separator = fc.constantFrom(' ', '-');
    const written = fc.constantFrom(
      '5123450000000008',
      '5123 4500 0000 0008',
      '5123-4500-0000-0008',
      '512345 0000000008',
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
        const cardDigits = card.replace(/[ -]/g, '').length;
        // Keep-length masking keeps every character where it was: the card's seventh to
        // twelfth digits must each read x.
        let digitIndex = -1;
        [...card].forEach((char, i) => {
          if (char === ' ' || char === '-') {
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
    expect(holdsCardNumber('{"site":"A1","at":1712345678901}')).toBe(false);
    expect(holdsCardNumber('order 12345, 2026-11-26')).toBe(false);
    expect(holdsCardNumber('')).toBe(false);
  });
});
