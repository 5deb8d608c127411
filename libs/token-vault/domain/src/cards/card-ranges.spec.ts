import { maskPan as acquirerMask } from '@gateway/acquirer';
import { maskPan, Pan } from '@gateway/crypto';
import { TEST_CARD, TEST_CARD_UNKNOWN_BIN } from '@gateway/testing';
import { randomToken } from '../token-formats/token-formats';
import { cardProfile, isKnownCardRange } from './card-ranges';

describe('card ranges (the gateway BIN table)', () => {
  it('knows the test card as a Mastercard credit card', () => {
    expect(cardProfile(Pan.of(TEST_CARD))).toEqual({ brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT' });
    expect(isKnownCardRange(Pan.of(TEST_CARD))).toBe(true);
  });

  it('does not know numbers outside every range, among them our own Random tokens', () => {
    expect(cardProfile(Pan.of(TEST_CARD_UNKNOWN_BIN))).toEqual({ brand: 'UNKNOWN', scheme: 'OTHER', fundingMethod: 'UNKNOWN' });
    expect(isKnownCardRange(Pan.of(TEST_CARD_UNKNOWN_BIN))).toBe(false);
    expect(isKnownCardRange(Pan.of(randomToken()))).toBe(false);
  });
});

describe('masking', () => {
  it('masks a stored card exactly as VERIFY responses do, at every length', () => {
    for (let n = 9; n <= 19; n++) {
      const digits = `${TEST_CARD.slice(0, 6)}${'0'.repeat(Math.max(0, n - 10))}${TEST_CARD.slice(-4)}`.slice(-n);
      expect(maskPan(digits)).toBe(acquirerMask(digits));
    }
  });
});
