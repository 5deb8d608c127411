import { AcquirerRegistry, TestAcquirer } from '@gateway/acquirer';
import { MerchantContext } from '@gateway/contracts';
import { Pan, Secret } from '@gateway/crypto';
import { Metrics } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { CardExpiry } from '../cards/card-expiry';
import { InProcessCardVerification } from '../testing/in-process-card-verification';
import { testEnvelope, testMerchant } from '../testing/vault-test-bed';
import { AcquirerCardVerifier } from './acquirer-card-verifier';
import type { AcquirerVerificationRequest } from './card-verification';

function setUp() {
  const metrics = new Metrics();
  const acquirers = new AcquirerRegistry(metrics);
  const service = new InProcessCardVerification(acquirers);
  const calls = async () => (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'gateway_acquirer_requests_total')?.values.length ?? 0;
  return { service, verifier: new AcquirerCardVerifier(service, acquirers), calls };
}

function request(expiry: { month: string; year: string }, extra: Partial<AcquirerVerificationRequest> = {}, merchant: MerchantContext = testMerchant()): AcquirerVerificationRequest {
  return {
    envelope: testEnvelope(merchant),
    card: { type: 'CARD', pan: Pan.of(TEST_CARD), expiry: CardExpiry.of(expiry.month, expiry.year) },
    numberFromRequest: true,
    currency: 'USD',
    reference: 'tokenRef1',
    ...extra,
  };
}

describe('AcquirerCardVerifier', () => {
  it.each([
    ['approved', TEST_EXPIRY.APPROVED, undefined, 'EXTERNAL_VERIFICATION_SUCCESSFUL', true],
    ['declined', TEST_EXPIRY.DECLINED, undefined, 'EXTERNAL_VERIFICATION_DECLINED', false],
    ['an expired card', TEST_EXPIRY.EXPIRED_CARD, undefined, 'EXTERNAL_VERIFICATION_DECLINED_EXPIRED_CARD', false],
    ['an invalid security code', TEST_EXPIRY.APPROVED, '102', 'EXTERNAL_VERIFICATION_DECLINED_INVALID_CSC', false],
    ['an acquirer system error', TEST_EXPIRY.ACQUIRER_SYSTEM_ERROR, undefined, 'EXTERNAL_VERIFICATION_PROCESSING_ERROR', false],
    ['a time-out', TEST_EXPIRY.TIMED_OUT, undefined, 'EXTERNAL_VERIFICATION_PROCESSING_ERROR', false],
  ])('answers %s from the test acquirer with %s', async (_what, expiry, securityCode, gatewayCode, passed) => {
    const { verifier } = setUp();
    const outcome = await verifier.verify(request(expiry, securityCode ? { securityCode: new Secret(securityCode) } : {}));
    expect(outcome).toEqual({ strategy: 'ACQUIRER', passed, gatewayCode });
  });

  it('sends a number from the request to the verification service, with its reference, currency and billing address', async () => {
    const { service, verifier } = setUp();
    await verifier.verify(request(TEST_EXPIRY.APPROVED, { billingAddress: { street: 'ADDRESS_MATCH' }, nameOnCard: 'A Payer', securityCode: new Secret('100') }));
    expect(service.received).toHaveLength(1);
    expect(service.received[0]).toMatchObject({
      card: { number: TEST_CARD, expiry: { month: '1', year: '39' }, securityCode: '100', nameOnCard: 'A Payer' },
      currency: 'USD',
      billingAddress: { street: 'ADDRESS_MATCH' },
      reference: 'tokenRef1',
    });
  });

  it('verifies a number in the vault custody itself: it never reaches the verification service', async () => {
    const { service, verifier, calls } = setUp();
    const outcome = await verifier.verify(request(TEST_EXPIRY.DECLINED, { numberFromRequest: false }));
    expect(outcome.gatewayCode).toBe('EXTERNAL_VERIFICATION_DECLINED');
    expect(service.received).toHaveLength(0);
    expect(await calls()).toBe(1);
  });

  it('asks its own acquirer with what the verification service would get: security code, name on card, billing address, reference', async () => {
    const { verifier } = setUp();
    const verify = jest.spyOn(TestAcquirer.prototype, 'verify');
    try {
      const outcome = await verifier.verify(
        request(TEST_EXPIRY.APPROVED, { numberFromRequest: false, securityCode: new Secret('102'), nameOnCard: 'A Payer', billingAddress: { street: 'ADDRESS_MATCH' } }),
      );
      // 102: the test acquirer's security code NO_MATCH.
      expect(outcome.gatewayCode).toBe('EXTERNAL_VERIFICATION_DECLINED_INVALID_CSC');
      expect(verify.mock.calls[0][0]).toMatchObject({
        orderId: 'tokenRef1',
        transactionId: 'tokenRef1',
        currency: 'USD',
        card: { nameOnCard: 'A Payer' },
        cardholder: { billingAddress: { street: 'ADDRESS_MATCH' } },
      });
    } finally {
      verify.mockRestore();
    }
  });

  it('needs the currency to verify in', async () => {
    const { verifier } = setUp();
    await expect(verifier.verify(request(TEST_EXPIRY.APPROVED, { currency: undefined }))).rejects.toMatchObject({
      code: 'INVALID_FIELD',
      field: 'transaction.currency',
      validationType: 'MISSING',
    });
  });

  it('refuses a live merchant, which has no acquirer', async () => {
    const { verifier } = setUp();
    const live = testMerchant({ mode: 'LIVE' });
    for (const numberFromRequest of [true, false]) {
      await expect(verifier.verify(request(TEST_EXPIRY.APPROVED, { numberFromRequest }, live))).rejects.toMatchObject({ code: 'ACQUIRER_NOT_CONFIGURED' });
    }
  });
});
