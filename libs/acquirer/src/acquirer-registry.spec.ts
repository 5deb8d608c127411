import { cardAcquirerIdOf, defaultMerchantSettings, GatewayError, MerchantContext } from '@gateway/contracts';
import { Metrics } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { Money } from '@gateway/money';
import { AcquirerConnector } from './acquirer-connector';
import { ACQUIRER_REQUESTS_METRIC, AcquirerRegistry } from './acquirer-registry';
import { AuthorizeCardRequest, CaptureRequest, VerifyCardRequest } from './acquirer-requests';
import { parseCardExpiry } from './card/card-expiry';
import { Pan } from './card/pan';
import { TEST_ACQUIRER_ID, TestAcquirer } from './test-acquirer/test-acquirer';

function merchant(mode: 'TEST' | 'LIVE', latencyMs = 0): MerchantContext {
  const settings = defaultMerchantSettings();
  settings.testAcquirer.latencyMs = latencyMs;
  return { id: `${mode}MERCHANT`, mode, settings };
}

function verifyRequest(expiry: { month: string; year: string } = TEST_EXPIRY.APPROVED): VerifyCardRequest {
  return {
    merchantId: 'TESTMERCHANT',
    orderId: 'order-1',
    transactionId: 'verify-1',
    currency: 'USD',
    card: { number: Pan.of(TEST_CARD), expiry: parseCardExpiry(expiry.month, expiry.year) },
  };
}

const context = { merchantId: 'TESTMERCHANT', orderId: 'order-1' };

function paymentRequest(
  amount: string,
  extra: { acceptPartialAmount?: boolean; expiry?: { month: string; year: string } } = {},
): AuthorizeCardRequest {
  const expiry = extra.expiry ?? TEST_EXPIRY.APPROVED;
  return {
    ...context,
    transactionId: 'pay-1',
    amount: Money.of(amount, 'USD'),
    card: { number: Pan.of(TEST_CARD), expiry: parseCardExpiry(expiry.month, expiry.year) },
    ...(extra.acceptPartialAmount !== undefined ? { acceptPartialAmount: extra.acceptPartialAmount } : {}),
  };
}

function captureRequest(authorization = { acquirerTransactionId: 'MCC1234561121' }): CaptureRequest {
  return { ...context, transactionId: 'capture-1', amount: Money.of('10.00', 'USD'), authorization };
}

async function countOf(metrics: Metrics, labels: Record<string, string>): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(ACQUIRER_REQUESTS_METRIC)!.get();
  return metric.values
    .filter((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value))
    .reduce((sum, v) => sum + v.value, 0);
}

describe('AcquirerRegistry', () => {
  it('gives test merchants the built-in test acquirer', async () => {
    const connector = new AcquirerRegistry(new Metrics()).forMerchant(merchant('TEST'));
    expect(connector.acquirerId).toBe(TEST_ACQUIRER_ID);
    expect((await connector.verify(verifyRequest(TEST_EXPIRY.DECLINED))).gatewayCode).toBe('DECLINED');
  });

  it('hands out the connector of the acquirer cardAcquirerIdOf routes the merchant to, the one the edge names on a LOCK_FAILURE', () => {
    const registry = new AcquirerRegistry(new Metrics());
    expect(registry.forMerchant(merchant('TEST')).acquirerId).toBe(cardAcquirerIdOf(merchant('TEST')));
    expect(cardAcquirerIdOf(merchant('LIVE'))).toBeUndefined();
    expect(() => registry.forMerchant(merchant('LIVE'))).toThrow(GatewayError);
  });

  it('sends an operation on a recorded transaction to the acquirer recorded on it, whatever the merchant\'s mode is now', async () => {
    const registry = new AcquirerRegistry(new Metrics());
    const connector = registry.forRecordedAcquirer(TEST_ACQUIRER_ID, merchant('LIVE'));
    expect(connector.acquirerId).toBe(TEST_ACQUIRER_ID);
    const authorized = await registry.forMerchant(merchant('TEST')).authorize(paymentRequest('10.00'));
    expect((await connector.capture(captureRequest({ acquirerTransactionId: authorized.acquirer.transactionId }))).result).toBe('SUCCESS');
    expect(registry.forMerchantMode('LIVE', TEST_ACQUIRER_ID).acquirerId).toBe(TEST_ACQUIRER_ID);
  });

  it('refuses a recorded acquirer it has no connector for with ACQUIRER_NOT_CONFIGURED; none recorded, routes as the merchant is', () => {
    const registry = new AcquirerRegistry(new Metrics());
    const code = (call: () => unknown) => {
      try {
        call();
      } catch (err) {
        return (err as GatewayError).code;
      }
      return 'ROUTED';
    };
    expect(code(() => registry.forRecordedAcquirer('ANOTHER_ACQUIRER', merchant('TEST')))).toBe('ACQUIRER_NOT_CONFIGURED');
    expect(code(() => registry.forMerchantMode('TEST', 'ANOTHER_ACQUIRER'))).toBe('ACQUIRER_NOT_CONFIGURED');
    expect(code(() => registry.forRecordedAcquirer(undefined, merchant('LIVE')))).toBe('ACQUIRER_NOT_CONFIGURED');
    expect(code(() => registry.forRecordedAcquirer(undefined, merchant('TEST')))).toBe('ROUTED');
  });

  it('refuses live merchants with ACQUIRER_NOT_CONFIGURED instead of simulating an approval', () => {
    const registry = new AcquirerRegistry(new Metrics());
    let thrown: unknown;
    try {
      registry.forMerchant(merchant('LIVE'));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(GatewayError);
    expect((thrown as GatewayError).code).toBe('ACQUIRER_NOT_CONFIGURED');
    expect((thrown as GatewayError).toResponseBody()).toEqual({
      error: {
        cause: 'INVALID_REQUEST',
        explanation: 'Card transactions are not available for this merchant: no acquirer is configured.',
      },
      result: 'ERROR',
    });
  });

  describe('with fake timers', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it.each([
      ['routed by the merchant', (registry: AcquirerRegistry) => registry.forMerchant(merchant('TEST', 250))],
      ['on a recorded transaction', (registry: AcquirerRegistry) => registry.forRecordedAcquirer(TEST_ACQUIRER_ID, merchant('LIVE', 250))],
    ])("applies the merchant's testAcquirer.latencyMs to a connector %s", async (_, connectorOf) => {
      const connector = connectorOf(new AcquirerRegistry(new Metrics()));
      let settled = false;
      void connector.verify(verifyRequest()).then(() => (settled = true));
      await jest.advanceTimersByTimeAsync(249);
      expect(settled).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      expect(settled).toBe(true);
    });
  });

  it('counts every acquirer call by operation and outcome on the /metrics registry', async () => {
    const metrics = new Metrics();
    const connector = new AcquirerRegistry(metrics).forMerchant(merchant('TEST'));
    await connector.verify(verifyRequest());
    await connector.verify(verifyRequest());
    await connector.verify(verifyRequest(TEST_EXPIRY.TIMED_OUT));
    await connector.refund({
      merchantId: 'TESTMERCHANT',
      orderId: 'o',
      transactionId: 'r',
      amount: Money.of('1', 'USD'),
    });

    expect(await countOf(metrics, { operation: 'VERIFY', outcome: 'APPROVED' })).toBe(2);
    expect(await countOf(metrics, { operation: 'VERIFY', outcome: 'TIMED_OUT' })).toBe(1);
    expect(
      await countOf(metrics, { operation: 'REFUND', outcome: 'APPROVED', acquirer: TEST_ACQUIRER_ID }),
    ).toBe(1);
    expect(await metrics.registry.metrics()).toContain(
      `${ACQUIRER_REQUESTS_METRIC}{acquirer="TEST_ACQUIRER",operation="VERIFY",outcome="APPROVED"} 2`,
    );
  });

  it('counts the card payment operations under their own names and outcomes', async () => {
    const metrics = new Metrics();
    const connector = new AcquirerRegistry(metrics).forMerchant(merchant('TEST'));
    const authorized = await connector.authorize(paymentRequest('10.00'));
    await connector.authorize(paymentRequest('10.51', { acceptPartialAmount: true }));
    await connector.pay(paymentRequest('10.51'));
    await connector.pay(paymentRequest('3.00', { expiry: TEST_EXPIRY.UNKNOWN }));
    const reference = { acquirerTransactionId: authorized.acquirer.transactionId };
    await connector.capture(captureRequest(reference));
    await connector.capture(captureRequest({ acquirerTransactionId: 'not-issued' }));
    await connector.void({
      ...context,
      transactionId: 'void-1',
      target: reference,
      targetType: 'AUTHORIZATION',
    });

    expect(await countOf(metrics, { operation: 'AUTHORIZE', outcome: 'APPROVED' })).toBe(1);
    expect(await countOf(metrics, { operation: 'AUTHORIZE', outcome: 'PARTIALLY_APPROVED' })).toBe(1);
    expect(await countOf(metrics, { operation: 'PAY', outcome: 'INSUFFICIENT_FUNDS' })).toBe(1);
    expect(await countOf(metrics, { operation: 'PAY', outcome: 'UNKNOWN' })).toBe(1);
    expect(await countOf(metrics, { operation: 'CAPTURE', outcome: 'APPROVED' })).toBe(1);
    expect(await countOf(metrics, { operation: 'CAPTURE', outcome: 'DECLINED' })).toBe(1);
    expect(
      await countOf(metrics, { operation: 'VOID', outcome: 'APPROVED', acquirer: TEST_ACQUIRER_ID }),
    ).toBe(1);
    expect(await countOf(metrics, { operation: 'VERIFY' })).toBe(0);
  });

  it('counts a call that failed with an exception as ERROR and rethrows it', async () => {
    const metrics = new Metrics();
    const broken = new TestAcquirer();
    const hangUp = () => Promise.reject(new Error('socket hang up'));
    const unreachable: AcquirerConnector = {
      acquirerId: 'BROKEN',
      verify: hangUp,
      authorize: hangUp,
      pay: hangUp,
      capture: hangUp,
      void: hangUp,
      refund: hangUp,
      inquire: hangUp,
    };
    jest.spyOn(broken, 'withLatency').mockReturnValue(unreachable as TestAcquirer);
    const connector = new AcquirerRegistry(metrics, broken).forMerchant(merchant('TEST'));
    await expect(connector.verify(verifyRequest())).rejects.toThrow('socket hang up');
    await expect(connector.capture(captureRequest())).rejects.toThrow('socket hang up');
    expect(await countOf(metrics, { acquirer: 'BROKEN', operation: 'VERIFY', outcome: 'ERROR' })).toBe(1);
    expect(await countOf(metrics, { acquirer: 'BROKEN', operation: 'CAPTURE', outcome: 'ERROR' })).toBe(1);
  });

  it('routes an inquiry by the merchant\'s mode alone, counted as INQUIRE; a live merchant has no acquirer to ask', async () => {
    const metrics = new Metrics();
    const registry = new AcquirerRegistry(metrics);
    const inquiry = { merchantId: 'M1', orderId: 'o1', transactionId: 'p1', operation: 'PAY' as const, reference: { acquirerTransactionId: 'MCC0000010101' } };
    expect(await registry.forMerchantMode('TEST').inquire(inquiry)).toMatchObject({ gatewayCode: 'APPROVED' });
    expect(await countOf(metrics, { acquirer: TEST_ACQUIRER_ID, operation: 'INQUIRE', outcome: 'APPROVED' })).toBe(1);
    expect(() => registry.forMerchantMode('LIVE')).toThrow(expect.objectContaining({ code: 'ACQUIRER_NOT_CONFIGURED' }));
  });

  it('shares one counter between registries of the same process registry', async () => {
    const metrics = new Metrics();
    await new AcquirerRegistry(metrics).forMerchant(merchant('TEST')).verify(verifyRequest());
    await new AcquirerRegistry(metrics).forMerchant(merchant('TEST')).verify(verifyRequest());
    expect(await countOf(metrics, { operation: 'VERIFY' })).toBe(2);
  });
});
