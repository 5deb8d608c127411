import { JsonObject, PayerDecision } from '@gateway/contracts';
import { browserPaymentTestBed, initiateBody, initiatedPayment, ledgerBusyAtRecord, payerStep, RETURN_URL, TestBed, testMerchant } from '../testing/browser-payment-test-bed';
import { SettleExpiredPayments } from '../expired-payments/settle-expired-payments.use-case';
import { RecordPayerDecision } from './record-payer-decision.use-case';
import { ReturnFromProvider } from './return-from-provider.use-case';
import { ShowProviderPage } from './show-provider-page.use-case';

async function payerAt(bed: TestBed, decision: PayerDecision | null, body?: JsonObject) {
  const journey = await initiatedPayment(bed, body);
  const step = payerStep(journey.merchant, journey.provider, journey.token);
  await new ShowProviderPage(bed.journeys, bed.providers, bed.steps).execute(step);
  if (decision) {
    await new RecordPayerDecision(bed.journeys, bed.providers).execute({ requestId: 'r', provider: journey.provider, token: journey.token, decision });
  }
  bed.clock.advance(2_000);
  return { step, back: new ReturnFromProvider(bed.journeys, bed.providers, bed.steps) };
}

const interaction = (response: JsonObject) => (response.browserPayment as JsonObject).interaction;
const toMerchant = { kind: 'redirect', location: `${RETURN_URL}?orderId=order-1&transactionId=bp-1` };

describe('ReturnFromProvider (GET /bpui/<provider>/in/BP-...)', () => {
  it('CONFIRM_AT_PROVIDER approved: records RETURNED_TO_MERCHANT, then the execution as COMPLETED, and sends the payer to returnUrl', async () => {
    const bed = browserPaymentTestBed();
    const { step, back } = await payerAt(bed, 'approve');

    expect(await back.execute(step)).toEqual(toMerchant);
    const [, , returned, completed] = bed.ledger.recorded;
    expect(returned).toMatchObject({ apiOperation: 'BROWSER_PAYMENT_RETURNED', payment: { result: 'PENDING', gatewayCode: 'SUBMITTED' } });
    expect(interaction(returned.response)).toMatchObject({ status: 'RETURNED_TO_MERCHANT', timeReturned: '2031-05-04T10:00:02.000Z' });
    expect(completed).toMatchObject({ apiOperation: 'BROWSER_PAYMENT_COMPLETED', payment: { result: 'SUCCESS', gatewayCode: 'APPROVED', interactionStatus: 'COMPLETED' } });
    expect(completed.response).toMatchObject({
      result: 'SUCCESS',
      sourceOfFunds: { type: 'PROVIDER_A', provided: { provider_a: { accountHolder: 'Simulated Payer' } } },
    });
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'CAPTURED', capturedAmount: '20.00' });
  });

  it('two returns racing (the payer reloads): one execution, recorded once, and not reversed by the other', async () => {
    const bed = browserPaymentTestBed();
    const { step, back } = await payerAt(bed, 'approve');
    await Promise.allSettled([back.execute(step), back.execute(step)]);

    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS' });
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'CAPTURED', capturedAmount: '20.00' });
  });

  it('cancelled: the transaction fails (CANCELLED), nothing is executed, the payer still goes back to the merchant', async () => {
    const bed = browserPaymentTestBed();
    const { step, back } = await payerAt(bed, 'cancel');
    expect(await back.execute(step)).toEqual(toMerchant);
    expect(bed.ledger.recorded).toHaveLength(3);
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'FAILURE', gatewayCode: 'CANCELLED', payerOutcome: 'CANCELLED' });
  });

  it('CONFIRM_AT_MERCHANT approved: back and waiting for the merchant\'s confirm, nothing executed yet', async () => {
    const bed = browserPaymentTestBed();
    const body = initiateBody({ browserPayment: { returnUrl: RETURN_URL, provider_a: { operation: 'PAY', paymentConfirmation: 'CONFIRM_AT_MERCHANT' } } });
    const { step, back } = await payerAt(bed, 'approve', body);
    await back.execute(step);
    expect(bed.ledger.recorded.map((r) => r.apiOperation)).toEqual(['INITIATE_BROWSER_PAYMENT', 'BROWSER_PAYMENT_REDIRECTED', 'BROWSER_PAYMENT_RETURNED']);
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING', payerOutcome: 'APPROVED' });
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)!.status).toBe('APPROVED');
  });

  it('the same return again changes nothing and sends the payer to the merchant again (a double submit, a lost answer)', async () => {
    const bed = browserPaymentTestBed();
    const { step, back } = await payerAt(bed, 'approve');
    await back.execute(step);
    const before = bed.payments.only();
    expect(await back.execute(step)).toEqual(toMerchant);
    expect(bed.payments.only()).toEqual(before);
    expect(bed.ledger.recorded).toHaveLength(4);
  });

  it('keeps the merchant\'s returnUrl as it was given and adds the ids to its query (replacing ids it named)', async () => {
    const bed = browserPaymentTestBed();
    const returnUrl = 'https://shop.example/return?next=%2Fcart%20now&sig=a~b(c)&flag&orderId=mine#top';
    const { step, back } = await payerAt(bed, 'approve', initiateBody({ browserPayment: { returnUrl } }));
    expect(await back.execute(step)).toEqual({
      kind: 'redirect',
      location: 'https://shop.example/return?next=%2Fcart%20now&sig=a~b(c)&flag&orderId=order-1&transactionId=bp-1#top',
    });
  });

  it('the same return again after the token expired: to the merchant again, nothing changes', async () => {
    const bed = browserPaymentTestBed();
    const { step, back } = await payerAt(bed, 'cancel');
    await back.execute(step);
    const before = bed.payments.only();
    bed.clock.advance(60_000);
    expect(await back.execute(step)).toEqual(toMerchant);
    expect(bed.payments.only()).toEqual(before);
  });

  it('completes a return whose second half was interrupted, when the payer tries again', async () => {
    const bed = browserPaymentTestBed();
    const { step, back } = await payerAt(bed, 'approve');
    const recordsBefore = bed.ledger.recorded.length;
    // The return is recorded, then the completion's record fails: the payment waits, returned and approved.
    ledgerBusyAtRecord(bed, 2);
    await expect(back.execute(step)).rejects.toMatchObject({ code: 'SERVER_BUSY' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING' });

    expect(await back.execute(step)).toEqual(toMerchant);
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS' });
    expect(bed.ledger.recorded.slice(recordsBefore).map((r) => r.apiOperation)).toEqual(['BROWSER_PAYMENT_RETURNED', 'BROWSER_PAYMENT_COMPLETED']);
  });

  it('before the payer was sent to the provider: a page, and the payment stays INITIATED for its payment link', async () => {
    const bed = browserPaymentTestBed();
    const journey = await initiatedPayment(bed);
    const step = payerStep(journey.merchant, journey.provider, journey.token);
    expect(await new ReturnFromProvider(bed.journeys, bed.providers, bed.steps).execute(step)).toMatchObject({ kind: 'page', status: 409 });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'INITIATED', result: 'PENDING' });
    expect(bed.ledger.recorded.map((r) => r.apiOperation)).toEqual(['INITIATE_BROWSER_PAYMENT']);
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)!.status).toBe('CREATED');
  });

  it('approved just before expiry, back after it: the return is recorded and executed as the sweep would, and the payer goes to the merchant, not told to start again', async () => {
    const bed = browserPaymentTestBed();
    const { step, back } = await payerAt(bed, 'approve');
    bed.clock.advance(60_000);
    expect(await back.execute(step)).toEqual(toMerchant);
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS' });
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'CAPTURED', capturedAmount: '20.00' });
  });

  it('back after expiry once the sweep has timed the payment out: the expired link\'s page, nothing changes', async () => {
    const bed = browserPaymentTestBed();
    const { step, back } = await payerAt(bed, null);
    bed.clock.advance(60_000);
    const sweep = new SettleExpiredPayments(bed.payments, bed.providers, bed.steps, back, bed.options);
    expect(await sweep.settle({ envelope: step.envelope, paymentId: bed.payments.only().id })).toEqual({ outcome: 'TIMED_OUT' });
    const before = bed.payments.only();
    expect(await back.execute(step)).toMatchObject({ kind: 'page', status: 410 });
    expect(bed.payments.only()).toEqual(before);
  });

  it('does not move a payment for a merchant other than the one the edge locked for', async () => {
    const bed = browserPaymentTestBed();
    const { step, back } = await payerAt(bed, 'approve');
    const other = payerStep({ ...testMerchant(), id: 'OTHERSHOP' }, step.provider, step.token);
    expect(await back.execute(other)).toMatchObject({ kind: 'page', status: 404 });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'REDIRECTED_TO_PROVIDER', result: 'PENDING' });
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)!.status).toBe('APPROVED');
  });
});
