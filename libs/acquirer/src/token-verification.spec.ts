import { CardVerificationMessage, defaultMerchantSettings } from '@gateway/contracts';
import { Metrics } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { AcquirerRegistry } from './acquirer-registry';
import { Pan } from './card/pan';
import { SecurityCode } from './card/security-code';
import { TestAcquirer } from './test-acquirer/test-acquirer';
import { answerCardVerification, tokenVerificationRequest } from './token-verification';

function message(
  card: Partial<CardVerificationMessage['card']> = {},
  billingAddress?: CardVerificationMessage['billingAddress'],
): CardVerificationMessage {
  return {
    envelope: {
      merchant: { id: 'TESTMERCHANT1', mode: 'TEST', settings: defaultMerchantSettings() },
      apiVersion: 57,
      requestId: 'req-1',
      authMethod: 'PASSWORD',
    },
    card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED }, ...card },
    currency: 'USD',
    ...(billingAddress ? { billingAddress } : {}),
    reference: 'token-1',
  };
}

/** The service's answer, with the request its acquirer got. */
async function answered(verification: CardVerificationMessage) {
  const verify = jest.spyOn(TestAcquirer.prototype, 'verify');
  try {
    const reply = await answerCardVerification(new AcquirerRegistry(new Metrics()), verification);
    expect(verify).toHaveBeenCalledTimes(1);
    return { reply, request: verify.mock.calls[0][0] };
  } finally {
    verify.mockRestore();
  }
}

describe("a token's ACQUIRER verification at the acquirer", () => {
  it('sends the acquirer the card with its security code and name, the billing address, and the reference for both ids', async () => {
    const { request } = await answered(
      message({ securityCode: '100', nameOnCard: 'Ada' }, { street: 'NAME_MATCH', country: 'USA' }),
    );
    expect(request).toEqual({
      merchantId: 'TESTMERCHANT1',
      orderId: 'token-1',
      transactionId: 'token-1',
      currency: 'USD',
      card: {
        number: expect.any(Pan),
        expiry: { month: 1, year: 39 },
        securityCode: expect.any(SecurityCode),
        nameOnCard: 'Ada',
      },
      cardholder: { billingAddress: { street: 'NAME_MATCH', country: 'USA' } },
    });
    expect(request.card.number.reveal()).toBe(TEST_CARD);
    expect(request.card.securityCode!.reveal()).toBe('100');
  });

  it('leaves out what the message does not carry', async () => {
    const { request } = await answered(message());
    expect(Object.keys(request)).toEqual(['merchantId', 'orderId', 'transactionId', 'currency', 'card']);
    expect(Object.keys(request.card)).toEqual(['number', 'expiry']);
  });

  it('builds the same request from a card the vault holds as from the message', async () => {
    const { request } = await answered(
      message({ securityCode: '100', nameOnCard: 'Ada' }, { street: 'NAME_MATCH' }),
    );
    const held = tokenVerificationRequest({
      merchantId: 'TESTMERCHANT1',
      reference: 'token-1',
      currency: 'USD',
      card: {
        number: Pan.of(TEST_CARD),
        expiry: { ...TEST_EXPIRY.APPROVED },
        securityCode: SecurityCode.of('100'),
        nameOnCard: 'Ada',
      },
      billingAddress: { street: 'NAME_MATCH' },
    });
    expect(JSON.stringify(held)).toBe(JSON.stringify(request));
    expect(held.card.number.reveal()).toBe(TEST_CARD);
  });

  // What the reply holds is the verification service's use case spec's (verify-card-for-token).
  it('never prints the number or the security code, in the request or the reply', async () => {
    const { reply, request } = await answered(message({ securityCode: '102' }));
    expect(reply.card.number).toBe('512345xxxxxx0008');
    for (const printed of [JSON.stringify(reply), JSON.stringify(request), String(request.card.number)]) {
      expect(printed).not.toContain(TEST_CARD);
      expect(printed).not.toContain('"102"');
    }
  });
});
