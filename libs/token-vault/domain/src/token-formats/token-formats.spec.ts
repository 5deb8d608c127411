import fc from 'fast-check';
import { Pan, passesLuhn } from '@gateway/crypto';
import { TEST_CARD, TEST_CARD_LUHN_FAILURE } from '@gateway/testing';
import { preserve64Token, PRESERVE_6_4_MIN_LENGTH, randomToken } from './token-formats';

describe('Random tokens', () => {
  it('are 16 digits, start with 9 and pass Luhn', () => {
    for (let i = 0; i < 2_000; i++) {
      const token = randomToken();
      expect(token).toMatch(/^9[0-9]{15}$/);
      expect(passesLuhn(token)).toBe(true);
    }
  });

  it('do not repeat', () => {
    const tokens = new Set(Array.from({ length: 10_000 }, randomToken));
    expect(tokens.size).toBe(10_000);
  });
});

describe('Preserve 6.4 tokens', () => {
  it('keep the first six and last four digits and the length, fail Luhn, and never equal the card', () => {
    const pan = Pan.of(TEST_CARD);
    for (let i = 0; i < 2_000; i++) {
      const token = preserve64Token(pan);
      expect(token).toHaveLength(16);
      expect(token.slice(0, 6)).toBe('512345');
      expect(token.slice(-4)).toBe('0008');
      expect(token).not.toBe(TEST_CARD);
      expect(passesLuhn(token)).toBe(false);
    }
  });

  it('never equal a stored number that itself fails Luhn', () => {
    const pan = Pan.of(TEST_CARD_LUHN_FAILURE);
    for (let i = 0; i < 2_000; i++) {
      expect(preserve64Token(pan)).not.toBe(TEST_CARD_LUHN_FAILURE);
    }
  });

  it('never equal a 12-digit stored number that fails Luhn, where only two digits vary', () => {
    // One candidate in a hundred is the number itself: 2,000 draws would meet it.
    const short = `${TEST_CARD.slice(0, 6)}00${TEST_CARD_LUHN_FAILURE.slice(-4)}`;
    expect(passesLuhn(short)).toBe(false);
    const pan = Pan.of(short);
    for (let i = 0; i < 2_000; i++) {
      expect(preserve64Token(pan)).not.toBe(short);
    }
  });

  it('hold for every card length from 12 to 19 digits', () => {
    fc.assert(
      fc.property(fc.integer({ min: PRESERVE_6_4_MIN_LENGTH, max: 19 }), (length) => {
        const digits = `${TEST_CARD.slice(0, 6)}${'0'.repeat(length - 10)}${TEST_CARD.slice(-4)}`;
        const token = preserve64Token(Pan.of(digits));
        expect(token).toHaveLength(length);
        expect(token.slice(0, 6)).toBe(digits.slice(0, 6));
        expect(token.slice(-4)).toBe(digits.slice(-4));
        expect(token).not.toBe(digits);
        expect(passesLuhn(token)).toBe(false);
      }),
    );
  });

  it('refuse numbers too short to vary', () => {
    expect(() => preserve64Token(Pan.of(`${TEST_CARD.slice(0, 6)}0${TEST_CARD.slice(-4)}`))).toThrow(RangeError);
  });
});
