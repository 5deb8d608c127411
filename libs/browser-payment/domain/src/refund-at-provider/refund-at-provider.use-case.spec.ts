import { ProviderRefundMessage } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { ReturnFromProvider } from '../payer-journey/return-from-provider.use-case';
import { RecordPayerDecision } from '../payer-journey/record-payer-decision.use-case';
import { ShowProviderPage } from '../payer-journey/show-provider-page.use-case';
import {
  approvedPayment,
  authorizeBody,
  browserPaymentTestBed,
  envelopeFor,
  initiateBody,
  initiatedPayment,
  payerStep,
} from '../testing/browser-payment-test-bed';
import { CaptureAtProvider } from '../capture-at-provider/capture-at-provider.use-case';
import { RefundAtProvider } from './refund-at-provider.use-case';

const paid = approvedPayment;

function message(merchant: ReturnType<typeof envelopeFor>['merchant'], transactionId: string, amount: string): ProviderRefundMessage {
  return { envelope: envelopeFor(merchant), orderId: 'order-1', transactionId, targetTransactionId: 'bp-1', amount, currency: 'EUR' };
}

describe('RefundAtProvider', () => {
  it('refunds at the provider and remembers the outcome per refund transaction', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await paid(bed);
    const refund = new RefundAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);

    const reply = await refund.execute(message(merchant, 'refund-1', '5.00'));
    expect(reply).toMatchObject({ result: 'SUCCESS', gatewayCode: 'APPROVED', sourceOfFunds: { type: 'PROVIDER_A' } });
    expect(await refund.execute(message(merchant, 'refund-1', '5.00'))).toEqual(reply);
    expect(Money.of(bed.simulator.rows.get(bed.payments.only().providerReference)!.refundedAmount, 'EUR').toFixed()).toBe('5.00');
    expect(bed.payments.refunds).toHaveLength(1);
    await expect(refund.execute(message(merchant, 'refund-1', '6.00'))).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('refunds once at the provider when two requests for one refund race, and answers both with the outcome recorded', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await paid(bed);
    const refund = new RefundAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);
    const refundAtProvider = jest.spyOn(bed.simulator, 'refund');
    const [first, second] = await Promise.all([refund.execute(message(merchant, 'refund-1', '5.00')), refund.execute(message(merchant, 'refund-1', '5.00'))]);
    // Both passed the check for a recorded refund before either recorded one: both asked the provider.
    expect(refundAtProvider).toHaveBeenCalledTimes(2);
    expect(second).toEqual(first);
    expect(bed.payments.refunds).toHaveLength(1);
    expect(first.providerReference).toBe(bed.payments.refunds[0].providerReference);
    // The provider made one refund: the payer got 5.00 back, not 10.00.
    expect(Money.of(bed.simulator.rows.get(bed.payments.only().providerReference)!.refundedAmount, 'EUR').toFixed()).toBe('5.00');
    expect([...bed.simulator.refunds.values()]).toEqual([expect.objectContaining({ refundId: 'refund-1', reference: first.providerReference })]);
  });

  it('records, on a retry, the refund the provider made for a request that died before recording it', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await paid(bed);
    const reference = bed.payments.only().providerReference;
    // The first request refunded at the provider, then its process died: nothing recorded here.
    const made = await bed.providers.forPayment(bed.payments.only()).refund(reference, 'refund-1', Money.of('5.00', 'EUR'));
    expect(bed.payments.refunds).toHaveLength(0);

    const refund = new RefundAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);
    expect(await refund.execute(message(merchant, 'refund-1', '5.00'))).toMatchObject({ result: 'SUCCESS', providerReference: made.reference });
    expect(bed.payments.refunds).toEqual([expect.objectContaining({ refundTransactionId: 'refund-1', result: 'SUCCESS', providerReference: made.reference })]);
    expect(Money.of(bed.simulator.rows.get(reference)!.refundedAmount, 'EUR').toFixed()).toBe('5.00');
  });

  it('refuses a retry with another amount than the provider refunded under the id, recording and moving nothing', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await paid(bed);
    const reference = bed.payments.only().providerReference;
    await bed.providers.forPayment(bed.payments.only()).refund(reference, 'refund-1', Money.of('5.00', 'EUR'));

    const refund = new RefundAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);
    await expect(refund.execute(message(merchant, 'refund-1', '6.00'))).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      explanation: expect.stringContaining('5.00 EUR'),
    });
    expect(bed.payments.refunds).toHaveLength(0);
    expect(Money.of(bed.simulator.rows.get(reference)!.refundedAmount, 'EUR').toFixed()).toBe('5.00');
  });

  it('refunds a payment the ledger records as paid whose completion here was lost, once it caught up', async () => {
    const bed = browserPaymentTestBed();
    const { merchant, provider, token } = await initiatedPayment(bed, initiateBody());
    const step = payerStep(merchant, provider, token);
    await new ShowProviderPage(bed.journeys, bed.providers, bed.steps).execute(step);
    await new RecordPayerDecision(bed.journeys, bed.providers).execute({ requestId: 'r', provider, token, decision: 'approve' });
    // The completion is recorded in the ledger; its commit here fails.
    bed.payments.failNextCompletionCommit = new Error('Connection terminated unexpectedly');
    await expect(new ReturnFromProvider(bed.journeys, bed.providers, bed.steps).execute(step)).rejects.toThrow('Connection terminated');
    expect(bed.payments.only()).toMatchObject({ result: 'PENDING' });

    const refund = new RefundAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);
    expect(await refund.execute(message(merchant, 'refund-1', '5.00'))).toMatchObject({ result: 'SUCCESS' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS', amount: '20.00' });
    expect(Money.of(bed.simulator.rows.get(bed.payments.only().providerReference)!.refundedAmount, 'EUR').toFixed()).toBe('5.00');
  });

  it('refunds a payment completed here as it is, without reading the ledger', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await paid(bed);
    const read = jest.spyOn(bed.ledger, 'readRecord');
    const transition = jest.spyOn(bed.payments, 'transition');
    const refund = new RefundAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);
    expect(await refund.execute(message(merchant, 'refund-1', '5.00'))).toMatchObject({ result: 'SUCCESS' });
    expect(read).not.toHaveBeenCalled();
    expect(transition).not.toHaveBeenCalled();
  });

  it('refunds a payment another request brought up to the ledger\'s record first, as that request left it', async () => {
    const bed = browserPaymentTestBed();
    const { merchant, provider, token } = await initiatedPayment(bed, initiateBody());
    const step = payerStep(merchant, provider, token);
    await new ShowProviderPage(bed.journeys, bed.providers, bed.steps).execute(step);
    await new RecordPayerDecision(bed.journeys, bed.providers).execute({ requestId: 'r', provider, token, decision: 'approve' });
    bed.payments.failNextCompletionCommit = new Error('Connection terminated unexpectedly');
    await expect(new ReturnFromProvider(bed.journeys, bed.providers, bed.steps).execute(step)).rejects.toThrow('Connection terminated');

    // Another request catches the payment up just before this one does: this one's transition finds it moved.
    const transition = bed.payments.transition.bind(bed.payments);
    jest.spyOn(bed.payments, 'transition').mockImplementationOnce(async (...args: Parameters<typeof transition>) => {
      await transition(...args);
      return null;
    });
    const refund = new RefundAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);
    expect(await refund.execute(message(merchant, 'refund-1', '5.00'))).toMatchObject({ result: 'SUCCESS' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS' });
  });

  it('still refuses to refund a payment the ledger holds no completion of', async () => {
    const bed = browserPaymentTestBed();
    const { merchant } = await initiatedPayment(bed, initiateBody());
    const refund = new RefundAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);
    await expect(refund.execute(message(merchant, 'refund-1', '5.00'))).rejects.toMatchObject({ field: 'transaction.targetTransactionId' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'INITIATED', result: 'PENDING' });
  });

  it('answers a refund beyond what the provider holds with the provider\'s decline', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await paid(bed);
    const refund = new RefundAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);
    expect(await refund.execute(message(merchant, 'refund-1', '20.01'))).toMatchObject({ result: 'FAILURE', gatewayCode: 'DECLINED' });
  });

  it('refuses a refund in another currency than the payment\'s and refunds nothing', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await paid(bed);
    const refund = new RefundAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);
    await expect(refund.execute({ ...message(merchant, 'refund-1', '5.00'), currency: 'USD' })).rejects.toMatchObject({
      field: 'transaction.currency',
    });
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)!.refundedAmount).toBe('0');
    expect(bed.payments.refunds).toHaveLength(0);
  });

  it('refuses a payment that only authorised the amount: nothing was captured to refund', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await paid(bed, authorizeBody());
    expect(bed.payments.only()).toMatchObject({ operation: 'AUTHORIZE', result: 'SUCCESS' });
    const refund = new RefundAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);
    await expect(refund.execute(message(merchant, 'refund-1', '5.00'))).rejects.toMatchObject({ field: 'transaction.targetTransactionId' });
    expect(bed.payments.refunds).toHaveLength(0);
  });

  it('refunds what a capture of an authorisation took, the refund naming the capture, up to what was captured', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await paid(bed, authorizeBody());
    const capture = new CaptureAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);
    await capture.execute({ ...message(merchant, 'capture-1', '12.00'), targetTransactionId: 'bp-1' });
    await capture.execute({ ...message(merchant, 'capture-2', '1.00'), targetTransactionId: 'bp-1' });
    const refund = new RefundAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);

    expect(await refund.execute({ ...message(merchant, 'refund-1', '12.00'), targetTransactionId: 'capture-1' })).toMatchObject({
      result: 'SUCCESS',
      gatewayCode: 'APPROVED',
      sourceOfFunds: { type: 'PROVIDER_A' },
    });
    const reference = bed.payments.only().providerReference;
    expect(bed.simulator.rows.get(reference)).toMatchObject({ capturedAmount: '13', refundedAmount: '12' });
    // The provider holds 1.00 more of it: beyond that, its decline.
    expect(await refund.execute({ ...message(merchant, 'refund-2', '1.01'), targetTransactionId: 'capture-2' })).toMatchObject({ result: 'FAILURE' });
    expect(bed.payments.refunds.map((r) => [r.refundTransactionId, r.result])).toEqual([
      ['refund-1', 'SUCCESS'],
      ['refund-2', 'FAILURE'],
    ]);
  });

  it('finds no capture to refund under another order, or a declined capture', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await paid(bed, authorizeBody());
    const capture = new CaptureAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);
    expect(await capture.execute({ ...message(merchant, 'capture-1', '20.01'), targetTransactionId: 'bp-1' })).toMatchObject({ result: 'FAILURE' });
    await capture.execute({ ...message(merchant, 'capture-2', '5.00'), targetTransactionId: 'bp-1' });
    const refund = new RefundAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);
    for (const refused of [
      { ...message(merchant, 'refund-1', '1.00'), targetTransactionId: 'capture-1' },
      { ...message(merchant, 'refund-1', '1.00'), targetTransactionId: 'capture-2', orderId: 'order-2' },
    ]) {
      await expect(refund.execute(refused)).rejects.toMatchObject({ field: 'transaction.targetTransactionId' });
    }
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)!.refundedAmount).toBe('0');
  });

  it('refuses an unknown target and a payment still pending', async () => {
    const bed = browserPaymentTestBed();
    const { merchant } = await initiatedPayment(bed);
    const refund = new RefundAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);
    await expect(refund.execute({ ...message(merchant, 'r', '1.00'), targetTransactionId: 'nope' })).rejects.toMatchObject({
      field: 'transaction.targetTransactionId',
    });
    await expect(refund.execute(message(merchant, 'r', '1.00'))).rejects.toMatchObject({ field: 'transaction.targetTransactionId' });
  });
});
