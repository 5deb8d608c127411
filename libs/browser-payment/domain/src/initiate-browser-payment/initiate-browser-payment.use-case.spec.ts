import { GatewayError, JsonObject, validateOrderOperationRequest } from '@gateway/contracts';
import { PastDeadlineError } from '@gateway/platform';
import { redirectTokenHash } from '../redirect-token/redirect-token';
import {
  browserPaymentTestBed,
  envelopeFor,
  initiateBody,
  initiatedPayment,
  testMerchant,
} from '../testing/browser-payment-test-bed';
import { InitiateBrowserPayment } from './initiate-browser-payment.use-case';

function initiateWith(bed: ReturnType<typeof browserPaymentTestBed>, body: JsonObject, merchant = testMerchant(), deadline?: number) {
  const initiate = new InitiateBrowserPayment(bed.payments, bed.providers, bed.ledger, bed.journeys, bed.options, bed.clock, bed.requestHasher);
  return initiate.execute({
    envelope: envelopeFor(merchant),
    orderId: 'order-1',
    transactionId: 'bp-1',
    request: validateOrderOperationRequest('INITIATE_BROWSER_PAYMENT', body),
    body,
    ...(deadline !== undefined ? { deadline } : {}),
  });
}

async function rejection(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    return err as GatewayError;
  }
  throw new Error('expected a rejection');
}

describe('InitiateBrowserPayment', () => {
  it('refuses, unprocessed, an initiate whose deadline passed before it began: nothing opened at the provider, stored or recorded', async () => {
    const bed = browserPaymentTestBed();
    const late = await rejection(initiateWith(bed, initiateBody(), testMerchant(), bed.clock.now().getTime()));
    expect(late).toBeInstanceOf(PastDeadlineError);
    expect(late.toWire()).toMatchObject({ code: 'SERVER_BUSY', notActedOn: true });
    expect(bed.simulator.rows.size).toBe(0);
    expect(() => bed.payments.only()).toThrow(/found 0/);
    expect(bed.ledger.recorded).toEqual([]);
  });

  it('initiates one that begins before its deadline', async () => {
    const bed = browserPaymentTestBed();
    const body = await initiateWith(bed, initiateBody(), testMerchant(), bed.clock.now().getTime() + 1);
    expect(body).toMatchObject({ result: 'PENDING', response: { gatewayCode: 'SUBMITTED' } });
    expect(bed.simulator.rows.size).toBe(1);
    expect(bed.ledger.recorded).toHaveLength(1);
  });

  it('records a PENDING PAYMENT with gatewayCode SUBMITTED and answers the redirect URL on the public base URL', async () => {
    const bed = browserPaymentTestBed();
    const { response, redirectUrl, token } = await initiatedPayment(bed);

    expect(redirectUrl).toBe(`https://pay.gateway.test/bpui/provider_a/out/${token}`);
    const [record] = bed.ledger.recorded;
    // Begin saw no order: the ledger is told, so it can write the new order in one statement.
    expect(record).toMatchObject({ apiOperation: 'INITIATE_BROWSER_PAYMENT', mode: 'CREATE', orderChanged: true, newOrder: true });
    expect(record.requestHash).toBe(bed.requestHasher.hash(initiateBody()));
    expect(record.payment).toMatchObject({
      provider: 'provider_a',
      operation: 'PAY',
      confirmation: 'CONFIRM_AT_PROVIDER',
      amount: '20.00',
      currency: 'EUR',
      interactionStatus: 'INITIATED',
      result: 'PENDING',
      gatewayCode: 'SUBMITTED',
      returnUrl: 'https://shop.example/return',
    });
    expect(response).toMatchObject({
      result: 'PENDING',
      response: { gatewayCode: 'SUBMITTED' },
      order: { amount: 20, currency: 'EUR', description: 'Two books', itemAmount: 20, item: [{ name: 'Book', quantity: 2, unitPrice: 10 }] },
      browserPayment: {
        interaction: { status: 'INITIATED', timeInitiated: '2031-05-04T10:00:00.000Z' },
        provider_a: { operation: 'PAY', paymentConfirmation: 'CONFIRM_AT_PROVIDER', displayShippingAddress: true, overrideShippingAddress: true },
        redirectUrl,
        returnUrl: 'https://shop.example/return',
      },
      sourceOfFunds: { type: 'PROVIDER_A' },
      transaction: { acquirer: { id: 'PROVIDER_A_SIMULATOR' } },
    });
  });

  it('keeps the token only as its hash, with an expiry after the configured lifetime', async () => {
    const bed = browserPaymentTestBed();
    const { token } = await initiatedPayment(bed);
    const stored = bed.payments.only();
    expect(stored.tokenHash.equals(redirectTokenHash(token))).toBe(true);
    expect(JSON.stringify(stored)).not.toContain(token.slice(3));
    expect(stored.tokenExpiresAt.getTime() - stored.timeInitiated.getTime()).toBe(60_000);
  });

  it('records a provider_a AUTHORIZE as an AUTHORIZATION, and bank transfers always as PAY at the provider', async () => {
    const bed = browserPaymentTestBed();
    await initiatedPayment(bed, initiateBody({ browserPayment: { returnUrl: 'https://shop.example/r', provider_a: { operation: 'AUTHORIZE', paymentConfirmation: 'CONFIRM_AT_MERCHANT' } } }));
    expect(bed.payments.only()).toMatchObject({ operation: 'AUTHORIZE', confirmation: 'CONFIRM_AT_MERCHANT' });

    const banks = browserPaymentTestBed();
    await initiatedPayment(banks, initiateBody({ sourceOfFunds: { type: 'PROVIDER_C' } }));
    expect(banks.payments.only()).toMatchObject({ provider: 'provider_c', operation: 'PAY', confirmation: 'CONFIRM_AT_PROVIDER' });
  });

  it('answers a replay with the stored body and opens nothing', async () => {
    const bed = browserPaymentTestBed();
    bed.ledger.replay = { stored: true };
    expect(await initiateWith(bed, initiateBody())).toEqual({ stored: true });
    expect(bed.payments.payments.size).toBe(0);
    expect(bed.simulator.rows.size).toBe(0);
    expect(bed.ledger.recorded).toHaveLength(0);
  });

  it('refuses a live merchant before anything happens (no simulated approval for live money)', async () => {
    const bed = browserPaymentTestBed();
    const err = await rejection(initiateWith(bed, initiateBody(), testMerchant('LIVE')));
    expect(err.code).toBe('PROVIDER_NOT_CONFIGURED');
    expect(err.httpStatus).toBe(400);
    expect(bed.ledger.begun).toHaveLength(0);
    expect(bed.simulator.rows.size).toBe(0);
  });

  it('does not hint a new order to the ledger on an order begin saw', async () => {
    const bed = browserPaymentTestBed();
    bed.ledger.existingOrder = { id: 'order-1', currency: 'EUR', transactions: [] } as never;
    await initiateWith(bed, initiateBody());
    expect(bed.ledger.recorded).toHaveLength(1);
    expect(bed.ledger.recorded[0].newOrder).toBe(false);
  });

  it('refuses another currency than the existing order\'s before opening anything at the provider', async () => {
    const bed = browserPaymentTestBed();
    bed.ledger.existingOrder = { id: 'order-1', currency: 'USD', transactions: [] } as never;
    const err = await rejection(initiateWith(bed, initiateBody()));
    expect([err.field, err.explanation]).toEqual(['order.currency', "Value 'EUR' is invalid. The order's currency is USD."]);
    expect(bed.simulator.rows.size).toBe(0);
  });

  it('refuses an order a standalone refund opened before opening anything at the provider', async () => {
    const bed = browserPaymentTestBed();
    bed.ledger.existingOrder = { id: 'order-1', currency: 'EUR', transactions: [{ id: 'r1', type: 'REFUND', result: 'SUCCESS' }] } as never;
    const err = await rejection(initiateWith(bed, initiateBody()));
    expect([err.httpStatus, err.explanation]).toEqual([
      400,
      "Order 'order-1' was opened by a standalone refund: it takes no payment. A payment needs an order id of its own.",
    ]);
    expect(bed.simulator.rows.size).toBe(0);
    expect(bed.ledger.recorded).toHaveLength(0);
  });

  it('refuses provider_a options on a provider_b payment and a bank identifier on a provider_a one', async () => {
    const bed = browserPaymentTestBed();
    const options = await rejection(
      initiateWith(
        bed,
        initiateBody({
          browserPayment: { returnUrl: 'https://shop.example/r', provider_a: { operation: 'PAY', paymentConfirmation: 'CONFIRM_AT_PROVIDER' } },
          sourceOfFunds: { type: 'PROVIDER_B', provided: { provider_b: { bankIdentifier: '12345678' } } },
        }),
      ),
    );
    expect([options.field, options.validationType]).toEqual(['browserPayment.provider_a', 'UNSUPPORTED']);
    const bank = await rejection(initiateWith(bed, initiateBody({ sourceOfFunds: { type: 'PROVIDER_A', provided: { provider_b: { bankIdentifier: '12345678' } } } })));
    expect(bank.field).toBe('sourceOfFunds.provided.provider_b');
  });

  it('replaces the row of an initiate whose record failed, so the same ids can be retried', async () => {
    const bed = browserPaymentTestBed();
    bed.ledger.failNextRecord = new GatewayError('SERVER_BUSY');
    await rejection(initiateWith(bed, initiateBody()));
    const { token } = await initiatedPayment(bed);
    expect(bed.payments.only().tokenHash.equals(redirectTokenHash(token))).toBe(true);
  });

  it('never replaces a row whose journey started, though the ledger has no initiate under its id', async () => {
    const bed = browserPaymentTestBed();
    bed.ledger.failNextRecord = new GatewayError('SERVER_BUSY');
    await rejection(initiateWith(bed, initiateBody()));
    const left = bed.payments.only();
    bed.payments.payments.set(left.id, { ...left, interactionStatus: 'REDIRECTED_TO_PROVIDER' });
    const recorded = bed.ledger.recorded.length;

    const err = await rejection(initiateWith(bed, initiateBody()));
    expect([err.field, err.explanation]).toEqual(['transactionid', "Value 'bp-1' is invalid. The transaction id is already used on this order."]);
    expect(bed.payments.only()).toMatchObject({ id: left.id, interactionStatus: 'REDIRECTED_TO_PROVIDER' });
    expect(bed.ledger.recorded).toHaveLength(recorded);
  });
});
