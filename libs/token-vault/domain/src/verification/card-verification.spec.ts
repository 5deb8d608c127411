import { GatewayError } from '@gateway/contracts';
import { Pan } from '@gateway/crypto';
import { TEST_CARD, TEST_CARD_LUHN_FAILURE, TEST_CARD_UNKNOWN_BIN } from '@gateway/testing';
import { CardExpiry } from '../cards/card-expiry';
import type { CardInstrument } from '../instrument/instrument';
import { testMerchant } from '../testing/vault-test-bed';
import { AcquirerVerificationNotAvailable, basicVerification, CardVerification } from './card-verification';

const cardOf = (number: string): CardInstrument => ({ type: 'CARD', pan: Pan.of(number), expiry: CardExpiry.of('1', '39') });

describe('basicVerification', () => {
  it('passes a Luhn-valid number of a known range and length', () => {
    expect(basicVerification(cardOf(TEST_CARD))).toEqual({ strategy: 'BASIC', passed: true, gatewayCode: 'BASIC_VERIFICATION_SUCCESSFUL' });
  });

  it.each([
    ['a Luhn failure', TEST_CARD_LUHN_FAILURE],
    ['an unknown BIN range', TEST_CARD_UNKNOWN_BIN],
  ])('blocks %s', (_what, number) => {
    expect(basicVerification(cardOf(number))).toEqual({ strategy: 'BASIC', passed: false, gatewayCode: 'EXTERNAL_VERIFICATION_BLOCKED' });
  });
});

describe('CardVerification', () => {
  const merchant = testMerchant();

  it('NONE performs no verification, whatever the card', async () => {
    const verification = new CardVerification(new AcquirerVerificationNotAvailable());
    expect(await verification.verify('NONE', { merchant, card: cardOf(TEST_CARD_LUHN_FAILURE) })).toEqual({
      strategy: 'NONE',
      passed: true,
      gatewayCode: 'NO_VERIFICATION_PERFORMED',
    });
  });

  it('sends ACQUIRER to the acquirer verifier', async () => {
    const verify = jest.fn().mockResolvedValue({ strategy: 'ACQUIRER', passed: true, gatewayCode: 'EXTERNAL_VERIFICATION_SUCCESSFUL' });
    const verification = new CardVerification({ verify });
    const request = { merchant, card: cardOf(TEST_CARD), currency: 'USD' };
    expect((await verification.verify('ACQUIRER', request)).gatewayCode).toBe('EXTERNAL_VERIFICATION_SUCCESSFUL');
    expect(verify).toHaveBeenCalledWith(request);
  });

  it('refuses ACQUIRER with a field error until the verification service answers the vault', async () => {
    const verification = new CardVerification(new AcquirerVerificationNotAvailable());
    await expect(verification.verify('ACQUIRER', { merchant, card: cardOf(TEST_CARD) })).rejects.toMatchObject({
      constructor: GatewayError,
      field: 'verificationStrategy',
      validationType: 'INVALID',
    });
  });
});
