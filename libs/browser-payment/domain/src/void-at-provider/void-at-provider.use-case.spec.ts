import { ProviderVoidMessage } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { CaptureAtProvider } from '../capture-at-provider/capture-at-provider.use-case';
import { approvedPayment, authorizeBody, browserPaymentTestBed, envelopeFor, initiatedPayment, TestBed } from '../testing/browser-payment-test-bed';
import { VoidAtProvider } from './void-at-provider.use-case';

function message(merchant: ReturnType<typeof envelopeFor>['merchant'], transactionId: string): ProviderVoidMessage {
  return { envelope: envelopeFor(merchant), orderId: 'order-1', transactionId, targetTransactionId: 'bp-1' };
}

const voidOf = (bed: TestBed) => new VoidAtProvider(bed.payments, bed.providers, bed.steps);
const simulated = (bed: TestBed) => bed.simulator.rows.get(bed.payments.only().providerReference)!;

describe('VoidAtProvider', () => {
  it('releases the authorisation at the provider; the same void again is answered voided, moving nothing', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await approvedPayment(bed, authorizeBody());
    const first = await voidOf(bed).execute(message(merchant, 'void-1'));
    expect(first).toEqual({ result: 'SUCCESS', gatewayCode: 'APPROVED', sourceOfFunds: expect.objectContaining({ type: 'PROVIDER_A' }) });
    expect(simulated(bed)).toMatchObject({ status: 'VOIDED', capturedAmount: '0' });
    expect(await voidOf(bed).execute(message(merchant, 'void-1'))).toEqual(first);
    // Nothing can be captured of it any more.
    const capture = new CaptureAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);
    const late = { ...message(merchant, 'capture-1'), amount: '1.00', currency: 'EUR' };
    expect(await capture.execute(late)).toMatchObject({ result: 'FAILURE', gatewayCode: 'DECLINED' });
  });

  it('is declined by the provider once something of the authorisation was captured, which stays captured', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await approvedPayment(bed, authorizeBody());
    await bed.providers.forPayment(bed.payments.only()).capture(bed.payments.only().providerReference, 'capture-1', Money.of('2.00', 'EUR'));
    expect(await voidOf(bed).execute(message(merchant, 'void-1'))).toMatchObject({ result: 'FAILURE', gatewayCode: 'DECLINED' });
    expect(simulated(bed)).toMatchObject({ status: 'CAPTURED', capturedAmount: '2' });
  });

  it('refuses a PAY and a payment not completed, voiding nothing', async () => {
    const paid = browserPaymentTestBed();
    const payer = await approvedPayment(paid);
    await expect(voidOf(paid).execute(message(payer, 'void-1'))).rejects.toMatchObject({ field: 'transaction.targetTransactionId' });
    expect(simulated(paid)).toMatchObject({ status: 'CAPTURED' });

    const pending = browserPaymentTestBed();
    const { merchant } = await initiatedPayment(pending, authorizeBody());
    await expect(voidOf(pending).execute(message(merchant, 'void-1'))).rejects.toMatchObject({ explanation: expect.stringContaining('did not complete') });
    expect(simulated(pending)).toMatchObject({ status: 'CREATED' });
  });
});
