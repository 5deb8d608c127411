import { ACQUIRER_REQUESTS_METRIC, AcquirerRegistry, TestAcquirer } from '@gateway/acquirer';
import { CardVerificationMessage, defaultMerchantSettings, MerchantMode } from '@gateway/contracts';
import { Metrics, parseMessage } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { VerifyCardForToken } from './verify-card-for-token.use-case';

const NOW = new Date('2026-11-21T10:15:30.123Z');

function message(
  overrides: Partial<CardVerificationMessage> = {},
  mode: MerchantMode = 'TEST',
): CardVerificationMessage {
  // Through parseMessage, as the handler receives it.
  return parseMessage(CardVerificationMessage, {
    envelope: {
      merchant: { id: 'TESTMERCHANT1', mode, settings: defaultMerchantSettings() },
      apiVersion: 57,
      requestId: 'req-1',
      authMethod: 'PASSWORD',
    },
    card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED }, securityCode: '102', nameOnCard: 'Ada' },
    currency: 'USD',
    reference: 'token-1',
    ...overrides,
  });
}

function useCase() {
  const metrics = new Metrics();
  return {
    metrics,
    verify: new VerifyCardForToken(new AcquirerRegistry(metrics, new TestAcquirer({ now: () => NOW }))),
  };
}

describe("the vault's ACQUIRER verification (verification.card.verify.v1)", () => {
  it("answers the acquirer's outcome, CSC and AVS results as they came, with the card masked", async () => {
    const { verify, metrics } = useCase();
    const reply = await verify.execute(message({ billingAddress: { street: 'NAME_MATCH' } }));
    expect(reply).toEqual({
      gatewayCode: 'APPROVED',
      result: 'SUCCESS',
      acquirerCode: '00',
      acquirerMessage: 'Approved',
      cardSecurityCode: { gatewayCode: 'NO_MATCH', acquirerCode: 'N' },
      avs: { gatewayCode: 'NAME_MATCH', acquirerCode: 'K' },
      card: {
        number: '512345xxxxxx0008',
        expiry: { month: '1', year: '39' },
        brand: 'MASTERCARD',
        scheme: 'MASTERCARD',
        fundingMethod: 'CREDIT',
        nameOnCard: 'Ada',
      },
    });
    expect(JSON.stringify(reply)).not.toContain(TEST_CARD);
    const calls = (await metrics.registry.getSingleMetric(ACQUIRER_REQUESTS_METRIC)!.get()).values;
    expect(calls).toEqual([
      expect.objectContaining({ labels: expect.objectContaining({ operation: 'VERIFY' }), value: 1 }),
    ]);
  });

  it.each([
    [TEST_EXPIRY.EXPIRED_CARD, 'EXPIRED_CARD', 'FAILURE'],
    [TEST_EXPIRY.TIMED_OUT, 'TIMED_OUT', 'FAILURE'],
    [TEST_EXPIRY.UNKNOWN, 'UNKNOWN', 'UNKNOWN'],
  ])('passes a declined or unknown outcome through (%j: %s)', async (expiry, gatewayCode, result) => {
    const { verify } = useCase();
    const reply = await verify.execute(message({ card: { number: TEST_CARD, expiry: { ...expiry } } }));
    expect(reply).toMatchObject({
      gatewayCode,
      result,
      cardSecurityCode: { gatewayCode: 'NOT_PRESENT' },
      avs: { gatewayCode: 'NOT_REQUESTED' },
    });
  });

  it('refuses a live merchant before anything reaches an acquirer', async () => {
    const { verify, metrics } = useCase();
    await expect(verify.execute(message({}, 'LIVE'))).rejects.toMatchObject({
      code: 'ACQUIRER_NOT_CONFIGURED',
    });
    expect((await metrics.registry.getSingleMetric(ACQUIRER_REQUESTS_METRIC)!.get()).values).toEqual([]);
  });

  it('refuses a malformed message as a fault between processes, naming fields and never the card', () => {
    expect(() => message({ card: { number: '1234', expiry: { month: '13', year: '39' } } })).toThrow(
      'malformed CardVerificationMessage: card',
    );
  });
});
