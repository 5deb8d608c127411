import { Pan } from '@gateway/crypto';
import { TEST_CARD, TEST_CARD_LUHN_FAILURE, TEST_CARD_UNKNOWN_BIN } from '@gateway/testing';
import { CardExpiry } from '../cards/card-expiry';
import type { CardInstrument } from '../instrument/instrument';
import { testEnvelope, testMerchant } from '../testing/vault-test-bed';
import { AcquirerVerificationRequest, basicVerification, CardVerification } from './card-verification';

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
  const request = (number: string): AcquirerVerificationRequest => ({
    envelope: testEnvelope(testMerchant()),
    card: cardOf(number),
    numberFromRequest: true,
    currency: 'USD',
    reference: 'tok1',
  });
  const acquirer = { verify: jest.fn().mockResolvedValue({ strategy: 'ACQUIRER', passed: true, gatewayCode: 'EXTERNAL_VERIFICATION_SUCCESSFUL' }) };

  it('NONE performs no verification, whatever the card', async () => {
    const verification = new CardVerification(acquirer);
    expect(await verification.verify('NONE', request(TEST_CARD_LUHN_FAILURE))).toEqual({
      strategy: 'NONE',
      passed: true,
      gatewayCode: 'NO_VERIFICATION_PERFORMED',
    });
    expect(acquirer.verify).not.toHaveBeenCalled();
  });

  it('sends ACQUIRER, and only ACQUIRER, to the acquirer verifier', async () => {
    const verification = new CardVerification(acquirer);
    expect((await verification.verify('BASIC', request(TEST_CARD))).gatewayCode).toBe('BASIC_VERIFICATION_SUCCESSFUL');
    expect(acquirer.verify).not.toHaveBeenCalled();
    const acquirerRequest = request(TEST_CARD);
    expect((await verification.verify('ACQUIRER', acquirerRequest)).gatewayCode).toBe('EXTERNAL_VERIFICATION_SUCCESSFUL');
    expect(acquirer.verify).toHaveBeenCalledWith(acquirerRequest);
  });
});
