import { AcquirerRegistry, TestAcquirer } from '@gateway/acquirer';
import { CardVerificationMessage } from '@gateway/contracts';
import { Metrics } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { InProcessCardVerification } from './in-process-card-verification';
import { testEnvelope, testMerchant } from './vault-test-bed';

function message(card: Partial<CardVerificationMessage['card']> = {}): CardVerificationMessage {
  return {
    envelope: testEnvelope(testMerchant()),
    card: {
      number: TEST_CARD,
      expiry: { ...TEST_EXPIRY.APPROVED },
      securityCode: '102',
      nameOnCard: 'Ada',
      ...card,
    },
    currency: 'USD',
    billingAddress: { street: 'NAME_MATCH' },
    reference: 'token-1',
  };
}

/**
 * The vault's unit tests verify cards through this stand-in for the verification service: it must
 * ask the acquirer and answer exactly as the service does (verify-card-for-token.use-case.spec.ts
 * holds the service to the same reply), or the vault's tests run against something else.
 */
describe('the in-process verification service of the vault unit tests', () => {
  it('asks the acquirer with everything the message carries, the name on card too', async () => {
    const verify = jest.spyOn(TestAcquirer.prototype, 'verify');
    try {
      await new InProcessCardVerification(new AcquirerRegistry(new Metrics())).verifyCard(message());
      expect(verify).toHaveBeenCalledTimes(1);
      const request = verify.mock.calls[0][0];
      // Through JSON: the number and security code print masked, so the test sees what a log would.
      expect(JSON.parse(JSON.stringify(request))).toEqual({
        merchantId: expect.any(String),
        orderId: 'token-1',
        transactionId: 'token-1',
        currency: 'USD',
        card: {
          number: '512345xxxxxx0008',
          expiry: { month: 1, year: 39 },
          securityCode: '[REDACTED]',
          nameOnCard: 'Ada',
        },
        cardholder: { billingAddress: { street: 'NAME_MATCH' } },
      });
    } finally {
      verify.mockRestore();
    }
  });

  it("answers the service's reply: the card's brand, scheme, funding method and name, and the acquirer's code", async () => {
    const reply = await new InProcessCardVerification(new AcquirerRegistry(new Metrics())).verifyCard(
      message(),
    );
    // What the stand-in left out; the whole reply is the service's use case spec's (verify-card-for-token).
    expect(reply).toMatchObject({ acquirerCode: '00', acquirerMessage: 'Approved' });
    expect(reply.card).toMatchObject({
      brand: 'MASTERCARD',
      scheme: 'MASTERCARD',
      fundingMethod: 'CREDIT',
      nameOnCard: 'Ada',
    });
  });

  it('refuses a message the service would refuse, as the service does', async () => {
    const service = new InProcessCardVerification(new AcquirerRegistry(new Metrics()));
    await expect(service.verifyCard(message({ nameOnCard: '' }))).rejects.toThrow(
      'malformed CardVerificationMessage: card',
    );
  });
});
