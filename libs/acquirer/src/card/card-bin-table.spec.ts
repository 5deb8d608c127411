import fc from 'fast-check';
import { isSchemeCardNumber, luhnCheckDigit } from '@gateway/crypto';
import { TEST_CARD, TEST_CARD_LUHN_FAILURE } from '@gateway/testing';
import { lookupBin, lookupCardBin } from './card-bin-table';
import { Pan } from './pan';

describe('card BIN table', () => {
  it('knows the test card as a consumer Mastercard credit card', () => {
    expect(lookupCardBin(Pan.of(TEST_CARD))).toMatchObject({
      brand: 'MASTERCARD',
      scheme: 'MASTERCARD',
      fundingMethod: 'CREDIT',
      financialNetworkCode: 'MCC',
      commercialCard: 'NOT_A_COMMERCIAL_CARD',
    });
    expect(lookupCardBin(Pan.of(TEST_CARD_LUHN_FAILURE)).brand).toBe('MASTERCARD');
  });

  it.each([
    ['222100', 'MASTERCARD', 'MASTERCARD', 'UNKNOWN'],
    ['272099', 'MASTERCARD', 'MASTERCARD', 'UNKNOWN'],
    ['550000', 'MASTERCARD', 'MASTERCARD', 'UNKNOWN'],
    ['630400', 'MAESTRO', 'MASTERCARD', 'DEBIT'],
    ['675900', 'MAESTRO', 'MASTERCARD', 'DEBIT'],
    ['411111', 'VISA', 'VISA', 'UNKNOWN'],
    ['340000', 'AMEX', 'AMEX', 'UNKNOWN'],
    ['370000', 'AMEX', 'AMEX', 'UNKNOWN'],
    ['352800', 'JCB', 'JCB', 'UNKNOWN'],
    ['305000', 'DINERS_CLUB', 'DINERS_CLUB', 'UNKNOWN'],
    ['601100', 'DISCOVER', 'DISCOVER', 'UNKNOWN'],
    ['650000', 'DISCOVER', 'DISCOVER', 'UNKNOWN'],
    ['620000', 'UNIONPAY', 'UNIONPAY', 'UNKNOWN'],
    ['222099', 'UNKNOWN', 'OTHER', 'UNKNOWN'],
    ['272100', 'UNKNOWN', 'OTHER', 'UNKNOWN'],
    ['900000', 'UNKNOWN', 'OTHER', 'UNKNOWN'],
    ['100000', 'UNKNOWN', 'OTHER', 'UNKNOWN'],
  ])('maps BIN %s to brand %s on scheme %s, funding %s', (bin, brand, scheme, fundingMethod) => {
    expect(lookupBin(bin)).toMatchObject({ brand, scheme, fundingMethod });
  });

  it("knows a scheme for every number crypto's isSchemeCardNumber takes for one (free-text fields refuse those)", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[2-6][0-9]{11,17}$/), (payload) => {
        const number = `${payload}${luhnCheckDigit(payload)}`;
        if (isSchemeCardNumber(number)) {
          expect([number, lookupCardBin(Pan.of(number)).scheme]).not.toEqual([number, 'OTHER']);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
