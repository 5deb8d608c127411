import { ProviderCaptureMessage } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { RecordPayerDecision } from '../payer-journey/record-payer-decision.use-case';
import { ReturnFromProvider } from '../payer-journey/return-from-provider.use-case';
import { ShowProviderPage } from '../payer-journey/show-provider-page.use-case';
import {
  approvedPayment,
  authorizeBody,
  browserPaymentTestBed,
  envelopeFor,
  initiatedPayment,
  payerStep,
  TestBed,
} from '../testing/browser-payment-test-bed';
import { CaptureAtProvider } from './capture-at-provider.use-case';

function message(merchant: ReturnType<typeof envelopeFor>['merchant'], transactionId: string, amount: string): ProviderCaptureMessage {
  return { envelope: envelopeFor(merchant), orderId: 'order-1', transactionId, targetTransactionId: 'bp-1', amount, currency: 'EUR' };
}

function captureOf(bed: TestBed): CaptureAtProvider {
  return new CaptureAtProvider(bed.payments, bed.providers, bed.clock, bed.steps);
}

/** What the provider's books hold captured of the one payment. */
function capturedAtProvider(bed: TestBed): string {
  const simulated = bed.simulator.rows.get(bed.payments.only().providerReference)!;
  return Money.of(simulated.capturedAmount, 'EUR').toFixed();
}

describe('CaptureAtProvider', () => {
  it('captures an authorised payment at the provider, in parts, and remembers the outcome per capture transaction', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await approvedPayment(bed, authorizeBody());
    const capture = captureOf(bed);

    const first = await capture.execute(message(merchant, 'capture-1', '12.00'));
    expect(first).toMatchObject({ result: 'SUCCESS', gatewayCode: 'APPROVED', sourceOfFunds: { type: 'PROVIDER_A', provided: { provider_a: { accountEmail: 'payer@wallet.example' } } } });
    expect(first.providerReference).toMatch(/^PAC-[0-9A-F]{20}$/);
    expect(await capture.execute(message(merchant, 'capture-1', '12.00'))).toEqual(first);
    expect(capturedAtProvider(bed)).toBe('12.00');
    expect(await capture.execute(message(merchant, 'capture-2', '8.00'))).toMatchObject({ result: 'SUCCESS' });
    expect(capturedAtProvider(bed)).toBe('20.00');
    expect(bed.payments.captures.map((c) => [c.captureTransactionId, c.amount, c.result])).toEqual([
      ['capture-1', '12.00', 'SUCCESS'],
      ['capture-2', '8.00', 'SUCCESS'],
    ]);
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'CAPTURED' });
  });

  it('captures once at the provider when two requests for one capture race, and answers both with the outcome recorded', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await approvedPayment(bed, authorizeBody());
    const capture = captureOf(bed);
    const atProvider = jest.spyOn(bed.simulator, 'capture');
    // Two of 8.00 would fit in the 20.00 authorised: only the key keeps the provider from taking both.
    const [first, second] = await Promise.all([capture.execute(message(merchant, 'capture-1', '8.00')), capture.execute(message(merchant, 'capture-1', '8.00'))]);
    // Both passed the check for a recorded capture before either recorded one: both asked the provider.
    expect(atProvider).toHaveBeenCalledTimes(2);
    expect(second).toEqual(first);
    expect(bed.payments.captures).toHaveLength(1);
    expect(capturedAtProvider(bed)).toBe('8.00');
  });

  it('records, on a retry, the capture the provider made for a request that died before recording it', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await approvedPayment(bed, authorizeBody());
    const reference = bed.payments.only().providerReference;
    const made = await bed.providers.forPayment(bed.payments.only()).capture(reference, 'capture-1', Money.of('15.00', 'EUR'));
    expect(bed.payments.captures).toHaveLength(0);

    expect(await captureOf(bed).execute(message(merchant, 'capture-1', '15.00'))).toMatchObject({ result: 'SUCCESS', providerReference: made.reference });
    expect(bed.payments.captures).toEqual([expect.objectContaining({ captureTransactionId: 'capture-1', result: 'SUCCESS', providerReference: made.reference })]);
    expect(capturedAtProvider(bed)).toBe('15.00');
  });

  it('refuses a capture transaction asked again for another amount, recorded here or only at the provider, capturing and recording nothing', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await approvedPayment(bed, authorizeBody());
    const capture = captureOf(bed);
    await capture.execute(message(merchant, 'capture-1', '5.00'));
    await expect(capture.execute(message(merchant, 'capture-1', '6.00'))).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      explanation: "Capture 'capture-1' was already made at the provider for 5.00 EUR.",
    });
    const reference = bed.payments.only().providerReference;
    await bed.providers.forPayment(bed.payments.only()).capture(reference, 'capture-2', Money.of('3.00', 'EUR'));
    await expect(capture.execute(message(merchant, 'capture-2', '4.00'))).rejects.toMatchObject({ explanation: expect.stringContaining('for 3.00 EUR') });
    expect(bed.payments.captures.map((c) => c.captureTransactionId)).toEqual(['capture-1']);
    expect(capturedAtProvider(bed)).toBe('8.00');
  });

  it('answers a capture beyond what is left of the authorisation with the provider\'s decline, and records it', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await approvedPayment(bed, authorizeBody());
    const capture = captureOf(bed);
    await capture.execute(message(merchant, 'capture-1', '15.00'));
    expect(await capture.execute(message(merchant, 'capture-2', '5.01'))).toMatchObject({ result: 'FAILURE', gatewayCode: 'DECLINED' });
    expect(await capture.execute(message(merchant, 'capture-2', '5.01'))).toMatchObject({ result: 'FAILURE', gatewayCode: 'DECLINED' });
    expect(bed.payments.captures.map((c) => [c.captureTransactionId, c.result])).toEqual([
      ['capture-1', 'SUCCESS'],
      ['capture-2', 'FAILURE'],
    ]);
    expect(capturedAtProvider(bed)).toBe('15.00');
  });

  it('captures an authorisation the ledger records whose completion here was lost, once it caught up', async () => {
    const bed = browserPaymentTestBed();
    const { merchant, provider, token } = await initiatedPayment(bed, authorizeBody());
    const step = payerStep(merchant, provider, token);
    await new ShowProviderPage(bed.journeys, bed.providers, bed.steps).execute(step);
    await new RecordPayerDecision(bed.journeys, bed.providers).execute({ requestId: 'r', provider, token, decision: 'approve' });
    bed.payments.failNextCompletionCommit = new Error('Connection terminated unexpectedly');
    await expect(new ReturnFromProvider(bed.journeys, bed.providers, bed.steps).execute(step)).rejects.toThrow('Connection terminated');
    expect(bed.payments.only()).toMatchObject({ result: 'PENDING' });

    expect(await captureOf(bed).execute(message(merchant, 'capture-1', '20.00'))).toMatchObject({ result: 'SUCCESS' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS' });
    expect(capturedAtProvider(bed)).toBe('20.00');
  });

  it('refuses what holds nothing authorised: a PAY, a payment not completed, an unknown target; and another currency', async () => {
    const paidBed = browserPaymentTestBed();
    const payer = await approvedPayment(paidBed);
    await expect(captureOf(paidBed).execute(message(payer, 'capture-1', '1.00'))).rejects.toMatchObject({
      field: 'transaction.targetTransactionId',
      explanation: expect.stringContaining('was a PAY'),
    });

    const bed = browserPaymentTestBed();
    const { merchant } = await initiatedPayment(bed, authorizeBody());
    const capture = captureOf(bed);
    await expect(capture.execute(message(merchant, 'capture-1', '1.00'))).rejects.toMatchObject({ explanation: expect.stringContaining('did not complete') });
    await expect(capture.execute({ ...message(merchant, 'capture-1', '1.00'), targetTransactionId: 'nope' })).rejects.toMatchObject({
      field: 'transaction.targetTransactionId',
    });

    const authorized = browserPaymentTestBed();
    const owner = await approvedPayment(authorized, authorizeBody());
    await expect(captureOf(authorized).execute({ ...message(owner, 'capture-1', '1.00'), currency: 'USD' })).rejects.toMatchObject({ field: 'transaction.currency' });
    expect(capturedAtProvider(authorized)).toBe('0.00');
    expect([paidBed, bed, authorized].map((b) => b.payments.captures.length)).toEqual([0, 0, 0]);
  });
});
