import { JsonObject, MerchantContext, MerchantMode, validateOrderOperationRequest } from '@gateway/contracts';
import { CaptureAtProvider } from '../capture-at-provider/capture-at-provider.use-case';
import { ConfirmBrowserPayment } from '../confirm-browser-payment/confirm-browser-payment.use-case';
import { SettleExpiredPayments } from '../expired-payments/settle-expired-payments.use-case';
import { RecordPayerDecision } from '../payer-journey/record-payer-decision.use-case';
import { ReturnFromProvider } from '../payer-journey/return-from-provider.use-case';
import { ShowProviderPage } from '../payer-journey/show-provider-page.use-case';
import { RefundAtProvider } from '../refund-at-provider/refund-at-provider.use-case';
import {
  approvedPayment,
  authorizeBody,
  browserPaymentTestBed,
  envelopeFor,
  initiateBody,
  initiatedPayment,
  payerStep,
  RETURN_URL,
  TEST_OPTIONS,
  TestBed,
} from '../testing/browser-payment-test-bed';
import { VoidAtProvider } from '../void-at-provider/void-at-provider.use-case';

/**
 * A payment's later steps go where the mode it was initiated in routes, not where the
 * merchant's mode routes by then (docs/decisions/browser-payment-journey.md, amendment
 * 2026-11-26 (6)). A test merchant's payment is at a provider's simulator; after `admin mode
 * <id> LIVE` the payer finishes it there and the merchant captures, voids, refunds and confirms
 * it there, as the test payment it is. A payment initiated while LIVE never reaches a simulator,
 * whatever the merchant's mode is later (no live initiate succeeds yet, as no real provider is
 * connected: such a row is made here by changing the mode a test initiate stored).
 */
const inMode = (merchant: MerchantContext, mode: MerchantMode): MerchantContext => ({ ...merchant, mode });
const NOT_CONFIGURED = { code: 'PROVIDER_NOT_CONFIGURED', httpStatus: 400 };
const CONFIRM_AT_MERCHANT = initiateBody({ browserPayment: { returnUrl: RETURN_URL, provider_a: { operation: 'PAY', paymentConfirmation: 'CONFIRM_AT_MERCHANT' } } });

function target(merchant: MerchantContext, transactionId: string) {
  return { envelope: envelopeFor(merchant), orderId: 'order-1', transactionId, targetTransactionId: 'bp-1' };
}

function simulated(bed: TestBed) {
  return bed.simulator.rows.get(bed.payments.only().providerReference)!;
}

/** The stored payment as if the merchant had been `mode` when it initiated. */
function storedAs(bed: TestBed, mode: MerchantMode): void {
  bed.payments.payments.get(bed.payments.only().id)!.merchantMode = mode;
}

function confirm(bed: TestBed, merchant: MerchantContext) {
  const body: JsonObject = { apiOperation: 'CONFIRM_BROWSER_PAYMENT' };
  return new ConfirmBrowserPayment(bed.payments, bed.providers, bed.ledger, bed.steps, bed.requestHasher).execute({
    envelope: envelopeFor(merchant),
    orderId: 'order-1',
    transactionId: 'bp-1',
    request: validateOrderOperationRequest('CONFIRM_BROWSER_PAYMENT', body),
    body,
  });
}

/** The payer's journey up to the return; the steps' merchant is as the edge sends it (its profile now). */
function journey(bed: TestBed, merchant: MerchantContext, provider: string, token: string) {
  const step = payerStep(merchant, provider, token);
  return {
    out: () => new ShowProviderPage(bed.journeys, bed.providers, bed.steps).execute(step),
    approve: () => new RecordPayerDecision(bed.journeys, bed.providers).execute({ requestId: 'r', provider, token, decision: 'approve' }),
    back: () => new ReturnFromProvider(bed.journeys, bed.providers, bed.steps).execute(step),
  };
}

describe('a payment initiated while the merchant was TEST', () => {
  it('stores the mode it was initiated in', async () => {
    const bed = browserPaymentTestBed();
    await initiatedPayment(bed);
    expect(bed.payments.only().merchantMode).toBe('TEST');
  });

  describe('after the merchant was switched to LIVE', () => {
    it('is captured in parts and refunded at the simulator that authorised it', async () => {
      const bed = browserPaymentTestBed();
      const live = inMode(await approvedPayment(bed, authorizeBody()), 'LIVE');

      const captured = await new CaptureAtProvider(bed.payments, bed.providers, bed.clock, bed.steps).execute({ ...target(live, 'capture-1'), amount: '20.00', currency: 'EUR' });
      expect(captured).toMatchObject({ result: 'SUCCESS', gatewayCode: 'APPROVED' });
      expect(simulated(bed)).toMatchObject({ status: 'CAPTURED', capturedAmount: '20' });

      const refund = new RefundAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);
      const refunded = await refund.execute({ ...target(live, 'refund-1'), targetTransactionId: 'capture-1', amount: '5.00', currency: 'EUR' });
      expect(refunded).toMatchObject({ result: 'SUCCESS' });
      expect(simulated(bed).refundedAmount).toBe('5');
    });

    it('is voided at the simulator', async () => {
      const bed = browserPaymentTestBed();
      const live = inMode(await approvedPayment(bed, authorizeBody()), 'LIVE');

      expect(await new VoidAtProvider(bed.payments, bed.providers, bed.steps).execute(target(live, 'void-1'))).toMatchObject({ result: 'SUCCESS' });
      expect(simulated(bed).status).toBe('VOIDED');
    });

    it('is finished by its payer at the simulator and then confirmed there (CONFIRM_AT_MERCHANT)', async () => {
      const bed = browserPaymentTestBed();
      const { merchant, provider, token } = await initiatedPayment(bed, CONFIRM_AT_MERCHANT);
      const live = inMode(merchant, 'LIVE');
      const payer = journey(bed, live, provider, token);
      expect(await payer.out()).toMatchObject({ kind: 'page', status: 200 });
      await payer.approve();
      expect(await payer.back()).toMatchObject({ kind: 'redirect' });

      expect(await confirm(bed, live)).toMatchObject({ result: 'SUCCESS' });
      expect(bed.payments.only()).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS' });
      expect(simulated(bed).status).toBe('CAPTURED');
    });
  });
});

describe('a payment initiated while the merchant was LIVE, the merchant TEST now', () => {
  /** Initiated (at a simulator, the only way to get a payment here), then stored as LIVE's. */
  async function liveEra(body: JsonObject = initiateBody()) {
    const bed = browserPaymentTestBed();
    const initiated = await initiatedPayment(bed, body);
    storedAs(bed, 'LIVE');
    return { bed, ...initiated, before: structuredClone(simulated(bed)) };
  }

  it('never sends its payer to a simulator: the out URL is refused and nothing moves', async () => {
    const { bed, merchant, provider, token, before } = await liveEra();

    await expect(journey(bed, inMode(merchant, 'TEST'), provider, token).out()).rejects.toMatchObject(NOT_CONFIGURED);
    expect(simulated(bed)).toEqual(before);
    expect(bed.payments.only().interactionStatus).toBe('INITIATED');
    expect(bed.ledger.recorded.map((r) => r.apiOperation)).toEqual(['INITIATE_BROWSER_PAYMENT']);
  });

  it('at the provider, takes no decision at a simulator and its return asks none', async () => {
    const bed = browserPaymentTestBed();
    const { merchant, provider, token } = await initiatedPayment(bed);
    const payer = journey(bed, merchant, provider, token);
    await payer.out();
    storedAs(bed, 'LIVE');
    const before = structuredClone(simulated(bed));

    await expect(payer.approve()).rejects.toMatchObject(NOT_CONFIGURED);
    await expect(payer.back()).rejects.toMatchObject(NOT_CONFIGURED);
    expect(simulated(bed)).toEqual(before);
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'REDIRECTED_TO_PROVIDER', result: 'PENDING' });
  });

  it('is not settled at a simulator by the expiry sweep', async () => {
    const { bed, merchant, before } = await liveEra();
    bed.clock.advance(TEST_OPTIONS.tokenTtlMs);
    const settlement = new SettleExpiredPayments(bed.payments, bed.providers, bed.steps, new ReturnFromProvider(bed.journeys, bed.providers, bed.steps), bed.options);

    await expect(settlement.settle({ envelope: envelopeFor(inMode(merchant, 'TEST'), 'GATEWAY'), paymentId: bed.payments.only().id })).rejects.toMatchObject(NOT_CONFIGURED);
    expect(simulated(bed)).toEqual(before);
    expect(bed.payments.only().result).toBe('PENDING');
  });

  it('is not captured, voided, refunded or confirmed at a simulator', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await approvedPayment(bed, authorizeBody());
    storedAs(bed, 'LIVE');
    const before = structuredClone(simulated(bed));

    await expect(new CaptureAtProvider(bed.payments, bed.providers, bed.clock, bed.steps).execute({ ...target(merchant, 'capture-1'), amount: '20.00', currency: 'EUR' })).rejects.toMatchObject(NOT_CONFIGURED);
    await expect(new VoidAtProvider(bed.payments, bed.providers, bed.steps).execute(target(merchant, 'void-1'))).rejects.toMatchObject(NOT_CONFIGURED);
    expect(simulated(bed)).toEqual(before);
    expect(bed.payments.captures).toEqual([]);

    const paid = browserPaymentTestBed();
    const payer = await approvedPayment(paid);
    storedAs(paid, 'LIVE');
    await expect(new RefundAtProvider(paid.payments, paid.providers, paid.clock, paid.steps).execute({ ...target(payer, 'refund-1'), amount: '5.00', currency: 'EUR' })).rejects.toMatchObject(NOT_CONFIGURED);
    expect(paid.payments.refunds).toEqual([]);
  });

  it('waiting for the merchant\'s confirm, is not executed at a simulator', async () => {
    const bed = browserPaymentTestBed();
    const { merchant, provider, token } = await initiatedPayment(bed, CONFIRM_AT_MERCHANT);
    const payer = journey(bed, merchant, provider, token);
    await payer.out();
    await payer.approve();
    await payer.back();
    storedAs(bed, 'LIVE');
    const recorded = bed.ledger.recorded.length;

    await expect(confirm(bed, merchant)).rejects.toMatchObject(NOT_CONFIGURED);
    expect(bed.ledger.recorded).toHaveLength(recorded);
    expect(bed.payments.only().result).toBe('PENDING');
    expect(simulated(bed).status).toBe('APPROVED');
  });
});
