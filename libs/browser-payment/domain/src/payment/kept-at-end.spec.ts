import { JsonObject, validateOrderOperationRequest } from '@gateway/contracts';
import { ConfirmBrowserPayment } from '../confirm-browser-payment/confirm-browser-payment.use-case';
import { SettleExpiredPayments } from '../expired-payments/settle-expired-payments.use-case';
import { RecordPayerDecision } from '../payer-journey/record-payer-decision.use-case';
import { ReturnFromProvider } from '../payer-journey/return-from-provider.use-case';
import { ShowProviderPage } from '../payer-journey/show-provider-page.use-case';
import { RefundAtProvider } from '../refund-at-provider/refund-at-provider.use-case';
import {
  browserPaymentTestBed,
  envelopeFor,
  initiateBody,
  initiatedPayment,
  payerStep,
  TEST_OPTIONS,
  TestBed,
} from '../testing/browser-payment-test-bed';

/**
 * What a browser payment keeps of its request once its journey ends (docs/decisions/payer-personal-data.md,
 * item 4): the step that ends it writes the request without the payer's personal data; the
 * step's ledger record still has all of it; a journey under way keeps it whole.
 */
const RETURN_URL = 'https://shop.example/return?cart=7#paid';

function personalBody(
  paymentConfirmation: 'CONFIRM_AT_PROVIDER' | 'CONFIRM_AT_MERCHANT' = 'CONFIRM_AT_PROVIDER',
): JsonObject {
  return initiateBody({
    browserPayment: { returnUrl: RETURN_URL, provider_a: { operation: 'PAY', paymentConfirmation } },
    order: {
      amount: '20.00',
      currency: 'EUR',
      description: 'Two books',
      itemAmount: '20.00',
      item: [{ name: 'Book', quantity: '2', unitPrice: '10.00' }],
      custom: { colour: 'mauve' },
      customerNote: 'leave it with the neighbour',
      notificationUrl: 'https://shop.example/hooks?customer=zelda-42',
    },
    customer: { email: 'zelda@example.org' },
    shipping: {
      address: { street: '10 Privet Drive', city: 'Little Whinging', country: 'GBR' },
      contact: { lastName: 'Quux' },
    },
    transaction: { reference: 'tx-7', merchantNote: 'called back' },
  });
}

const PERSONAL = /zelda|Privet|Quux|mauve|neighbour|back door|called|cart=7/i;

/** The request a finished payment keeps: the one it was initiated with, without the payer. */
const KEPT_REQUEST = {
  browserPayment: {
    returnUrl: 'https://shop.example/return',
    provider_a: { operation: 'PAY', paymentConfirmation: 'CONFIRM_AT_PROVIDER' },
  },
  order: {
    amount: '20.00',
    currency: 'EUR',
    description: 'Two books',
    itemAmount: '20.00',
    item: [{ name: 'Book', quantity: '2', unitPrice: '10.00' }],
    notificationUrl: 'https://shop.example/hooks',
  },
  sourceOfFunds: { type: 'PROVIDER_A' },
  transaction: { reference: 'tx-7' },
};

async function journey(bed: TestBed, body: JsonObject, decision: 'approve' | 'cancel' | null) {
  const initiated = await initiatedPayment(bed, body);
  const step = payerStep(initiated.merchant, initiated.provider, initiated.token);
  await new ShowProviderPage(bed.journeys, bed.providers, bed.steps).execute(step);
  if (decision) {
    await new RecordPayerDecision(bed.journeys, bed.providers).execute({
      requestId: 'r',
      provider: initiated.provider,
      token: initiated.token,
      decision,
    });
    await new ReturnFromProvider(bed.journeys, bed.providers, bed.steps).execute(step);
  }
  return initiated;
}

function confirm(
  bed: TestBed,
  merchant: Awaited<ReturnType<typeof journey>>['merchant'],
  extra: JsonObject = {},
) {
  const body = { apiOperation: 'CONFIRM_BROWSER_PAYMENT', ...extra };
  return new ConfirmBrowserPayment(
    bed.payments,
    bed.providers,
    bed.ledger,
    bed.steps,
    bed.requestHasher,
  ).execute({
    envelope: envelopeFor(merchant),
    orderId: 'order-1',
    transactionId: 'bp-1',
    request: validateOrderOperationRequest('CONFIRM_BROWSER_PAYMENT', body),
    body,
  });
}

describe("a browser payment's request at the end of its journey", () => {
  it('approved and completed: the payment keeps it without the payer, the completion is recorded with all of it', async () => {
    const bed = browserPaymentTestBed();
    await journey(bed, personalBody(), 'approve');
    const payment = bed.payments.only();
    expect(payment).toMatchObject({
      interactionStatus: 'COMPLETED',
      result: 'SUCCESS',
      returnUrl: RETURN_URL,
    });
    expect(payment.request).toEqual(KEPT_REQUEST);
    // The provider's details of the payer's account stay: a later capture, void or refund answers them.
    expect(payment.providerDetails).toEqual({
      accountEmail: 'payer@wallet.example',
      accountHolder: 'Simulated Payer',
    });

    // The completion's record, as the ledger got it: the payer's data in its response, as before.
    const completion = bed.ledger.recorded.at(-1)!;
    expect(completion.apiOperation).toBe('BROWSER_PAYMENT_COMPLETED');
    expect(completion.response).toMatchObject({
      order: { custom: { colour: 'mauve' }, customerNote: 'leave it with the neighbour' },
      shipping: { address: { street: '10 Privet Drive' }, contact: { lastName: 'Quux' } },
      transaction: { merchantNote: 'called back' },
      browserPayment: { returnUrl: RETURN_URL },
    });
    expect(completion.payment.request).toMatchObject({ customer: { email: 'zelda@example.org' } });
  });

  it('cancelled by the payer: kept without the payer too', async () => {
    const bed = browserPaymentTestBed();
    await journey(bed, personalBody(), 'cancel');
    expect(bed.payments.only()).toMatchObject({
      result: 'FAILURE',
      gatewayCode: 'CANCELLED',
      request: KEPT_REQUEST,
      returnUrl: RETURN_URL,
    });
    expect(bed.ledger.recorded.at(-1)!.response).toMatchObject({
      shipping: { contact: { lastName: 'Quux' } },
      transaction: { merchantNote: 'called back' },
    });
  });

  it("timed out by the expiry sweep: kept without the payer, the TIMED_OUT recorded with the payer's data", async () => {
    const bed = browserPaymentTestBed();
    const initiated = await journey(bed, personalBody(), null);
    bed.clock.advance(TEST_OPTIONS.tokenTtlMs);
    const returns = new ReturnFromProvider(bed.journeys, bed.providers, bed.steps);
    const settle = new SettleExpiredPayments(bed.payments, bed.providers, bed.steps, returns, bed.options);
    expect(
      await settle.settle({
        envelope: envelopeFor(initiated.merchant, 'GATEWAY'),
        paymentId: bed.payments.only().id,
      }),
    ).toEqual({ outcome: 'TIMED_OUT' });
    expect(bed.payments.only()).toMatchObject({
      result: 'FAILURE',
      gatewayCode: 'TIMED_OUT',
      request: KEPT_REQUEST,
    });
    expect(bed.ledger.recorded.at(-1)!.response).toMatchObject({ order: { custom: { colour: 'mauve' } } });
  });

  it('under way, and waiting for the merchant: kept whole; the confirm merges into it, is recorded with all of it, and the payment then keeps it without the payer', async () => {
    const bed = browserPaymentTestBed();
    const { merchant } = await journey(bed, personalBody('CONFIRM_AT_MERCHANT'), 'approve');
    const waiting = bed.payments.only();
    expect(waiting).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING' });
    expect(JSON.stringify(waiting.request)).toMatch(PERSONAL);
    expect(waiting.request).toMatchObject({
      customer: { email: 'zelda@example.org' },
      order: { custom: { colour: 'mauve' } },
    });

    const confirmed = await confirm(bed, merchant, {
      order: { customerNote: 'by the back door' },
      transaction: { merchantNote: 'called again' },
    });
    expect(confirmed).toMatchObject({
      result: 'SUCCESS',
      order: { customerNote: 'by the back door', custom: { colour: 'mauve' } },
      shipping: { contact: { lastName: 'Quux' } },
      transaction: { merchantNote: 'called again', reference: 'tx-7' },
    });
    const record = bed.ledger.recorded.at(-1)!;
    expect(record.apiOperation).toBe('CONFIRM_BROWSER_PAYMENT');
    // The order's details and webhook URL the ledger keeps are the confirmed request's, whole.
    expect(record.orderChanged).toBe(true);
    expect(record.payment.request).toMatchObject({
      customer: { email: 'zelda@example.org' },
      order: {
        customerNote: 'by the back door',
        notificationUrl: 'https://shop.example/hooks?customer=zelda-42',
      },
      transaction: { merchantNote: 'called again' },
    });

    const done = bed.payments.only();
    expect(done).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS', returnUrl: RETURN_URL });
    expect(JSON.stringify(done.request)).not.toMatch(PERSONAL);
    expect(done.request).toEqual({
      ...KEPT_REQUEST,
      browserPayment: {
        ...KEPT_REQUEST.browserPayment,
        provider_a: { operation: 'PAY', paymentConfirmation: 'CONFIRM_AT_MERCHANT' },
      },
    });
  });

  it("brought up to the ledger's end (a completion whose commit here was lost): kept without the payer", async () => {
    const bed = browserPaymentTestBed();
    const { merchant } = await journey(bed, personalBody('CONFIRM_AT_MERCHANT'), 'approve');
    bed.payments.failNextCompletionCommit = new Error('Connection terminated unexpectedly');
    await expect(confirm(bed, merchant)).rejects.toThrow('Connection terminated');
    expect(bed.payments.only()).toMatchObject({
      result: 'PENDING',
      request: { customer: { email: 'zelda@example.org' } },
    });

    // The merchant's retry of the confirm replays the ledger's record, and the payment catches up with it.
    bed.ledger.replay = bed.ledger.stored.get('order-1 bp-1')!;
    expect(await confirm(bed, merchant)).toMatchObject({
      result: 'SUCCESS',
      shipping: { contact: { lastName: 'Quux' } },
    });
    const caughtUp = bed.payments.only();
    expect(caughtUp).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS' });
    expect(JSON.stringify(caughtUp.request)).not.toMatch(PERSONAL);
  });

  it("a refund after the end answers the payer's account as the provider gave it", async () => {
    const bed = browserPaymentTestBed();
    const { merchant } = await journey(bed, personalBody(), 'approve');
    const reply = await new RefundAtProvider(bed.payments, bed.providers, bed.clock, bed.steps).execute({
      envelope: envelopeFor(merchant, 'GATEWAY'),
      orderId: 'order-1',
      transactionId: 'refund-1',
      targetTransactionId: 'bp-1',
      amount: '5.00',
      currency: 'EUR',
    });
    expect(reply).toMatchObject({
      result: 'SUCCESS',
      sourceOfFunds: {
        type: 'PROVIDER_A',
        provided: { provider_a: { accountEmail: 'payer@wallet.example', accountHolder: 'Simulated Payer' } },
      },
    });
  });
});
