import { Pan } from '@gateway/crypto';
import { TEST_CARD, TEST_CARD_UNKNOWN_BIN } from '@gateway/testing';
import { cardProfile, matchBin, matchCardRange, UNKNOWN_CARD } from './card-ranges';

// Only the test card and its derived numbers are used as card numbers; other ranges are
// exercised through BINs alone.
describe('card ranges', () => {
  it('knows the test card as a Mastercard credit card', () => {
    expect(matchCardRange(Pan.of(TEST_CARD))).toEqual({
      profile: { brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT' },
      lengthValid: true,
    });
  });

  it.each([
    ['512346', 'MASTERCARD', 'UNKNOWN'],
    ['222100', 'MASTERCARD', 'UNKNOWN'],
    ['272099', 'MASTERCARD', 'UNKNOWN'],
    ['630400', 'MAESTRO', 'DEBIT'],
    ['411111', 'VISA', 'UNKNOWN'],
    ['371234', 'AMEX', 'CHARGE'],
    ['353000', 'JCB', 'UNKNOWN'],
    ['601100', 'DISCOVER', 'UNKNOWN'],
    ['620000', 'UNIONPAY', 'UNKNOWN'],
  ])('places BIN %s in %s (%s), most specific range first', (bin, brand, fundingMethod) => {
    expect(matchBin(bin, 16)?.profile).toMatchObject({ brand, fundingMethod });
  });

  it('reports a number of a length the range does not issue', () => {
    expect(matchBin('512345', 15)?.lengthValid).toBe(false);
    expect(matchBin('371234', 15)?.lengthValid).toBe(true);
    expect(matchBin('371234', 16)?.lengthValid).toBe(false);
  });

  it('does not know BINs outside every range (among them our own tokens, which start with 9)', () => {
    expect(matchCardRange(Pan.of(TEST_CARD_UNKNOWN_BIN))).toBeNull();
    expect(matchBin('272100', 16)).toBeNull();
    expect(matchBin('912345', 16)).toBeNull();
    expect(cardProfile(Pan.of(TEST_CARD_UNKNOWN_BIN))).toEqual(UNKNOWN_CARD);
  });
});
