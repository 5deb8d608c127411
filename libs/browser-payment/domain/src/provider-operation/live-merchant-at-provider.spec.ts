import { JsonObject, MerchantContext, validateOrderOperationRequest } from '@gateway/contracts';
import { CaptureAtProvider } from '../capture-at-provider/capture-at-provider.use-case';
import { ConfirmBrowserPayment } from '../confirm-browser-payment/confirm-browser-payment.use-case';
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
  TestBed,
} from '../testing/browser-payment-test-bed';
import { VoidAtProvider } from '../void-at-provider/void-at-provider.use-case';

/**
 * A test merchant's payment is at a provider's simulator. Once the merchant is switched to LIVE
 * (admin `mode`), its operations route as a live merchant's do: no provider is configured for it,
 * so nothing more happens at the simulator and no simulated success is recorded on the live
 * merchant's order (as a card capture or refund of a test-era order is ACQUIRER_NOT_CONFIGURED).
 */
const liveNow = (merchant: MerchantContext): MerchantContext => ({ ...merchant, mode: 'LIVE' });
const NOT_CONFIGURED = { code: 'PROVIDER_NOT_CONFIGURED', httpStatus: 400 };

function target(merchant: MerchantContext, transactionId: string) {
  return { envelope: envelopeFor(merchant), orderId: 'order-1', transactionId, targetTransactionId: 'bp-1' };
}

function simulated(bed: TestBed) {
  return bed.simulator.rows.get(bed.payments.only().providerReference)!;
}

describe('operations at the provider after the merchant went live', () => {
  it('captures nothing of a test-era authorisation', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await approvedPayment(bed, authorizeBody());
    const capture = new CaptureAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);

    await expect(capture.execute({ ...target(liveNow(merchant), 'capture-1'), amount: '20.00', currency: 'EUR' })).rejects.toMatchObject(NOT_CONFIGURED);
    expect(bed.payments.captures).toEqual([]);
    expect(simulated(bed).status).not.toBe('CAPTURED');
  });

  it('voids nothing of a test-era authorisation', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await approvedPayment(bed, authorizeBody());
    const before = simulated(bed).status;

    await expect(new VoidAtProvider(bed.payments, bed.providers, bed.steps).execute(target(liveNow(merchant), 'void-1'))).rejects.toMatchObject(NOT_CONFIGURED);
    expect(simulated(bed).status).toBe(before);
  });

  it('refunds nothing of a test-era payment', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await approvedPayment(bed);
    const refund = new RefundAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);

    await expect(refund.execute({ ...target(liveNow(merchant), 'refund-1'), amount: '5.00', currency: 'EUR' })).rejects.toMatchObject(NOT_CONFIGURED);
    expect(bed.payments.refunds).toEqual([]);
  });

  it('does not execute a test-era payment waiting for the merchant\'s confirm', async () => {
    const bed = browserPaymentTestBed();
    const body = initiateBody({ browserPayment: { returnUrl: RETURN_URL, provider_a: { operation: 'PAY', paymentConfirmation: 'CONFIRM_AT_MERCHANT' } } });
    const { merchant, provider, token } = await initiatedPayment(bed, body);
    const step = payerStep(merchant, provider, token);
    await new ShowProviderPage(bed.journeys, bed.providers, bed.steps).execute(step);
    await new RecordPayerDecision(bed.journeys, bed.providers).execute({ requestId: 'r', provider, token, decision: 'approve' });
    await new ReturnFromProvider(bed.journeys, bed.providers, bed.steps).execute(step);
    const recorded = bed.ledger.recorded.length;
    const confirmBody: JsonObject = { apiOperation: 'CONFIRM_BROWSER_PAYMENT' };

    await expect(
      new ConfirmBrowserPayment(bed.payments, bed.providers, bed.ledger, bed.steps, bed.requestHasher).execute({
        envelope: envelopeFor(liveNow(merchant)),
        orderId: 'order-1',
        transactionId: 'bp-1',
        request: validateOrderOperationRequest('CONFIRM_BROWSER_PAYMENT', confirmBody),
        body: confirmBody,
      }),
    ).rejects.toMatchObject(NOT_CONFIGURED);
    expect(bed.ledger.recorded).toHaveLength(recorded);
    expect(bed.payments.only().result).toBe('PENDING');
  });
});
