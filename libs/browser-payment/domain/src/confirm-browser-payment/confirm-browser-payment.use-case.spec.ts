import { GatewayError, JsonObject, PayerDecision, validateOrderOperationRequest } from '@gateway/contracts';
import { PastDeadlineError } from '@gateway/platform';
import { RecordPayerDecision } from '../payer-journey/record-payer-decision.use-case';
import { ReturnFromProvider } from '../payer-journey/return-from-provider.use-case';
import { ShowProviderPage } from '../payer-journey/show-provider-page.use-case';
import { browserPaymentTestBed, envelopeFor, initiateBody, initiatedPayment, payerStep, RETURN_URL, TEST_OPTIONS, TestBed } from '../testing/browser-payment-test-bed';
import { SettleExpiredPayments } from '../expired-payments/settle-expired-payments.use-case';
import { LEDGER_MISMATCH_METRIC } from '../payment/payment-steps';
import { highestConfirmable, NO_INCREASE } from '../providers/confirm-allowance';
import { ConfirmBrowserPayment } from './confirm-browser-payment.use-case';

const AT_MERCHANT = initiateBody({
  browserPayment: { returnUrl: RETURN_URL, provider_a: { operation: 'PAY', paymentConfirmation: 'CONFIRM_AT_MERCHANT' } },
  order: { amount: '25.00', currency: 'EUR', itemAmount: '20.00', shippingAndHandlingAmount: '5.00', item: [{ name: 'Book', quantity: '2', unitPrice: '10.00' }] },
});

async function journey(bed: TestBed, body: JsonObject, upTo: 'initiated' | 'redirected' | PayerDecision) {
  const initiated = await initiatedPayment(bed, body);
  const step = payerStep(initiated.merchant, initiated.provider, initiated.token);
  if (upTo !== 'initiated') {
    await new ShowProviderPage(bed.journeys, bed.providers, bed.steps).execute(step);
  }
  if (upTo === 'approve' || upTo === 'cancel') {
    await new RecordPayerDecision(bed.journeys, bed.providers).execute({ requestId: 'r', provider: initiated.provider, token: initiated.token, decision: upTo });
    await new ReturnFromProvider(bed.journeys, bed.providers, bed.steps).execute(step);
  }
  return initiated.merchant;
}

function confirm(bed: TestBed, merchant: Awaited<ReturnType<typeof journey>>, extra: JsonObject = {}, deadline?: number) {
  const body = { apiOperation: 'CONFIRM_BROWSER_PAYMENT', ...extra };
  return new ConfirmBrowserPayment(bed.payments, bed.providers, bed.ledger, bed.steps, bed.requestHasher).execute({
    envelope: envelopeFor(merchant),
    orderId: 'order-1',
    transactionId: 'bp-1',
    request: validateOrderOperationRequest('CONFIRM_BROWSER_PAYMENT', body),
    body,
    ...(deadline !== undefined ? { deadline } : {}),
  });
}

/** gateway_browser_payment_ledger_mismatch_total by event, the series still at 0 left out. */
async function mismatches(bed: TestBed): Promise<Record<string, number>> {
  const { values } = await bed.metrics.registry.getSingleMetric(LEDGER_MISMATCH_METRIC)!.get();
  return Object.fromEntries(values.filter((value) => value.value > 0).map((value) => [String(value.labels.event), value.value]));
}

it("exports every mismatch event at 0 before the first, so the alert's increase() sees a process's first one", async () => {
  const bed = browserPaymentTestBed();
  const { values } = await bed.metrics.registry.getSingleMetric(LEDGER_MISMATCH_METRIC)!.get();
  expect(values.map((value) => [value.labels.event, value.value]).sort()).toEqual([
    ['caught_up', 0],
    ['neither_recorded_nor_reversed', 0],
    ['not_reversed_ledger_unreadable', 0],
  ]);
});

async function rejection(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    return err as GatewayError;
  }
  throw new Error('expected a rejection');
}

describe('ConfirmBrowserPayment', () => {
  it('refuses, unprocessed, a confirm whose deadline passed before it began: nothing executed at the provider or recorded; the retry confirms', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    const recorded = bed.ledger.recorded.length;
    const late = await rejection(confirm(bed, merchant, {}, bed.clock.now().getTime()));
    expect(late).toBeInstanceOf(PastDeadlineError);
    expect(late.toWire()).toMatchObject({ code: 'SERVER_BUSY', notActedOn: true });
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ capturedAmount: '0' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING' });
    expect(bed.ledger.recorded).toHaveLength(recorded);

    // The merchant's retry, in time: nothing of the refused one stands in its way.
    expect(await confirm(bed, merchant, {}, bed.clock.now().getTime() + 1)).toMatchObject({ result: 'SUCCESS' });
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'CAPTURED', capturedAmount: '25.00' });
  });

  it('executes the approved payment for the confirmed amount and records it on the initiate\'s transaction', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    const body = await confirm(bed, merchant, { order: { amount: '22.00', shippingAndHandlingAmount: '2.00' }, transaction: { reference: 'r-9' } });

    const record = bed.ledger.recorded.at(-1)!;
    expect(bed.ledger.begun.at(-1)).toMatchObject({ apiOperation: 'CONFIRM_BROWSER_PAYMENT', addressesExistingTransaction: true });
    expect(record).toMatchObject({ apiOperation: 'CONFIRM_BROWSER_PAYMENT', mode: 'UPDATE', orderChanged: true });
    expect(record.payment).toMatchObject({ amount: '22.00', result: 'SUCCESS', gatewayCode: 'APPROVED', interactionStatus: 'COMPLETED' });
    expect(body).toMatchObject({
      order: { amount: 22, itemAmount: 20, shippingAndHandlingAmount: 2 },
      transaction: { reference: 'r-9' },
      browserPayment: { interaction: { status: 'COMPLETED' } },
    });
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'CAPTURED', capturedAmount: '22.00' });
  });

  it('records the provider\'s decline of the execution as a FAILURE, never as paid', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    const reference = bed.payments.only().providerReference;
    // The provider no longer holds the approval when the merchant confirms (voided on its side).
    bed.simulator.rows.set(reference, { ...bed.simulator.rows.get(reference)!, status: 'VOIDED' });
    const body = await confirm(bed, merchant);
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'COMPLETED', result: 'FAILURE', gatewayCode: 'DECLINED' });
    expect(body).toMatchObject({ result: 'FAILURE' });
  });

  it('refuses another confirm of a completed payment, and executes and records nothing more', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    await confirm(bed, merchant);
    const recorded = bed.ledger.recorded.length;
    const err = await rejection(confirm(bed, merchant, { transaction: { reference: 'another' } }));
    expect(err).toMatchObject({ field: 'apiOperation' });
    expect(err.explanation).toMatch(/already confirmed/);
    expect(bed.ledger.recorded).toHaveLength(recorded);
  });

  it('refuses, with the field and the reason, and executes nothing', async () => {
    const cases: [string, JsonObject, 'initiated' | 'redirected' | PayerDecision, JsonObject, string, RegExp][] = [
      ['before the payer was sent', AT_MERCHANT, 'initiated', {}, 'apiOperation', /has not returned from the provider yet \(browserPayment.interaction.status is INITIATED\)/],
      ['before the payer returned', AT_MERCHANT, 'redirected', {}, 'apiOperation', /has not returned from the provider yet/],
      ['a CONFIRM_AT_PROVIDER payment', initiateBody(), 'approve', {}, 'apiOperation', /paymentConfirmation CONFIRM_AT_PROVIDER/],
      ['after the payer cancelled', AT_MERCHANT, 'cancel', {}, 'apiOperation', /payer cancelled the payment/],
      ['another currency', AT_MERCHANT, 'approve', { order: { currency: 'USD' } }, 'order.currency', /cannot change: this payment is in EUR/],
      ['an amount off the initiated sub-totals', AT_MERCHANT, 'approve', { order: { amount: '26.00' } }, 'order.amount', /must equal order.itemAmount \+ order.shippingAndHandlingAmount \(25\)/],
      ['items off the initiated itemAmount', AT_MERCHANT, 'approve', { order: { item: [{ name: 'Book', quantity: '1', unitPrice: '10.00' }] } }, 'order.itemAmount', /keeps its initiated value/],
      ['more decimals than the payment\'s currency has', AT_MERCHANT, 'approve', { order: { amount: '25.001' } }, 'order.amount', /at most 2 decimal places for EUR/],
    ];
    for (const [name, initiate, upTo, changes, field, reason] of cases) {
      const bed = browserPaymentTestBed();
      const merchant = await journey(bed, initiate, upTo);
      const recorded = bed.ledger.recorded.length;
      const err = await rejection(confirm(bed, merchant, changes));
      expect([name, err.httpStatus, err.field, err.validationType]).toEqual([name, 400, field, 'INVALID']);
      expect(err.explanation).toMatch(reason);
      expect(bed.ledger.recorded).toHaveLength(recorded);
      expect(['CREATED', 'APPROVED', 'CANCELLED', 'ABANDONED', 'CAPTURED']).toContain(bed.simulator.rows.get(bed.payments.only().providerReference)!.status);
      if (upTo === 'approve' && initiate === AT_MERCHANT) {
        expect(bed.simulator.rows.get(bed.payments.only().providerReference)!.status).toBe('APPROVED');
      }
    }
  });

  it('refuses a confirm above what the provider allows over the approved amount before the provider is asked or anything recorded; the allowed highest is confirmed after', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    const adapter = bed.providers.forPayment(bed.payments.only());
    const execute = jest.spyOn(adapter, 'execute');
    const recorded = bed.ledger.recorded.length;
    // Approved 25.00 EUR; the simulator allows 115%: 28.75.
    const err = await rejection(confirm(bed, merchant, { order: { amount: '28.76', shippingAndHandlingAmount: '8.76' } }));
    expect([err.httpStatus, err.errorCause, err.field, err.validationType]).toEqual([400, 'INVALID_REQUEST', 'order.amount', 'INVALID']);
    expect(err.explanation).toBe(
      "Value '28.76' is invalid. The payer approved 25.00 EUR at the provider, which allows a confirm of at most 28.75 EUR: confirm 28.75 or less, or initiate a new payment for the higher amount.",
    );
    expect(execute).not.toHaveBeenCalled();
    expect(bed.ledger.recorded).toHaveLength(recorded);
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'APPROVED', capturedAmount: '0' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING', amount: '25.00' });

    const body = await confirm(bed, merchant, { order: { amount: '28.75', shippingAndHandlingAmount: '8.75' } });
    expect(body).toMatchObject({ result: 'SUCCESS', order: { amount: 28.75 } });
    expect(execute).toHaveBeenCalledTimes(1);
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'CAPTURED', capturedAmount: '28.75' });
  });

  it('with a provider that allows no increase, the approved amount is the most a confirm executes; less is confirmed', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    const adapter = bed.providers.forPayment(bed.payments.only());
    jest.spyOn(adapter, 'highestConfirmable').mockImplementation((approved) => highestConfirmable(approved, NO_INCREASE));
    const err = await rejection(confirm(bed, merchant, { order: { amount: '25.01', shippingAndHandlingAmount: '5.01' } }));
    expect([err.field, err.explanation]).toEqual(['order.amount', expect.stringContaining('at most 25.00 EUR')]);
    expect(await confirm(bed, merchant, { order: { amount: '24.00', shippingAndHandlingAmount: '4.00' } })).toMatchObject({ result: 'SUCCESS', order: { amount: 24 } });
  });

  it('refuses a payment the gateway timed out (token expired before the payer came back) as ended, not as one to confirm later', async () => {
    for (const upTo of ['initiated', 'redirected'] as const) {
      const bed = browserPaymentTestBed();
      const merchant = await journey(bed, AT_MERCHANT, upTo);
      bed.clock.advance(TEST_OPTIONS.tokenTtlMs);
      const returns = new ReturnFromProvider(bed.journeys, bed.providers, bed.steps);
      await new SettleExpiredPayments(bed.payments, bed.providers, bed.steps, returns, bed.options).settle({
        envelope: envelopeFor(merchant, 'GATEWAY'),
        paymentId: bed.payments.only().id,
      });
      expect(bed.payments.only()).toMatchObject({ result: 'FAILURE', gatewayCode: 'TIMED_OUT' });
      const recorded = bed.ledger.recorded.length;
      const err = await rejection(confirm(bed, merchant));
      expect([upTo, err.httpStatus, err.field]).toEqual([upTo, 400, 'apiOperation']);
      expect(err.explanation).toMatch(/timed out/);
      expect(err.explanation).not.toMatch(/confirm once the payer is back/);
      expect(bed.ledger.recorded).toHaveLength(recorded);
    }
  });

  it('answers a replay from the ledger of a completed payment without touching the provider', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    await confirm(bed, merchant);
    const records = bed.ledger.recorded.length;
    const execute = jest.spyOn(bed.providers.forPayment(bed.payments.only()), 'execute');
    bed.ledger.replay = { replayed: true };
    expect(await confirm(bed, merchant)).toEqual({ replayed: true });
    expect(execute).not.toHaveBeenCalled();
    expect(bed.ledger.recorded).toHaveLength(records);
  });

  it('refuses a transaction id that is no browser payment of this merchant\'s order', async () => {
    const bed = browserPaymentTestBed();
    await journey(bed, AT_MERCHANT, 'approve');
    const err = await rejection(confirm(bed, { id: 'STRANGER', mode: 'TEST', settings: {} as never }));
    expect(err.field).toBe('transactionid');
  });

  it('reverses the execution at the provider when the ledger refuses the record', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    bed.ledger.failNextRecord = new GatewayError('ORDER_LOCK_LOST');
    await expect(confirm(bed, merchant)).rejects.toMatchObject({ code: 'ORDER_LOCK_LOST' });
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'VOIDED', capturedAmount: '0' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING' });
  });

  it('keeps the execution when the record\'s fate is unknown (no answer in time), so a retry completes it', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    bed.ledger.failNextRecord = new GatewayError('SERVER_BUSY');
    await expect(confirm(bed, merchant)).rejects.toMatchObject({ code: 'SERVER_BUSY' });
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)!.status).toBe('CAPTURED');
    await confirm(bed, merchant);
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS' });
  });

  it('keeps the capture of a confirm that raced another one (a retry after a timeout): the loser reverses nothing', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    // Both execute before either records: the provider answers the second as already done.
    const outcomes = await Promise.allSettled([confirm(bed, merchant), confirm(bed, merchant)]);

    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(outcomes.find((outcome) => outcome.status === 'rejected')).toMatchObject({ reason: { code: 'ORDER_LOCK_LOST' } });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS' });
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'CAPTURED', capturedAmount: '25.00' });
  });

  it('executes nothing while another attempt holds the payment\'s execution, and takes over once that lease lapsed', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    const payment = bed.payments.only();
    bed.payments.leases.set(payment.id, new Date(bed.clock.now().getTime() + 60_000));
    await expect(confirm(bed, merchant)).rejects.toMatchObject({ code: 'ORDER_LOCK_LOST' });
    expect(bed.simulator.rows.get(payment.providerReference)).toMatchObject({ status: 'APPROVED' });

    // The holder died with it: once its lease lapsed, the next attempt executes and records.
    bed.payments.leases.set(payment.id, new Date(bed.clock.now().getTime() - 1));
    expect(await confirm(bed, merchant)).toMatchObject({ result: 'SUCCESS' });
    expect(bed.simulator.rows.get(payment.providerReference)).toMatchObject({ status: 'CAPTURED' });
    expect(bed.payments.leases.has(payment.id)).toBe(false);
  });

  it('after a reversal, the next attempt is declined by the provider and recorded so: the ledger never shows money the provider gave back', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    bed.ledger.failNextRecord = new GatewayError('ORDER_LOCK_LOST');
    await expect(confirm(bed, merchant)).rejects.toMatchObject({ code: 'ORDER_LOCK_LOST' });

    expect(await confirm(bed, merchant)).toMatchObject({ result: 'FAILURE' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'COMPLETED', result: 'FAILURE' });
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'VOIDED', capturedAmount: '0' });
  });

  it('keeps the capture the ledger recorded when the earlier confirm\'s own commit failed: a confirm with another body reverses nothing', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    // The first confirm's record lands in the ledger; its commit here does not.
    bed.payments.failNextCompletionCommit = new Error('Connection terminated unexpectedly');
    await expect(confirm(bed, merchant, { transaction: { reference: 'first' } })).rejects.toThrow('Connection terminated');
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING' });

    // Another confirm finds the payment still due; the provider answers the same execution, and
    // the ledger refuses its record as another request under the transaction id.
    bed.ledger.failNextRecord = GatewayError.invalidRequest("Transaction 'bp-1' on order 'order-1' was already processed with different values.");
    await expect(confirm(bed, merchant, { transaction: { reference: 'second' } })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });

    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'CAPTURED', capturedAmount: '25.00' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS', amount: '25.00', gatewayCode: 'APPROVED' });
    expect(bed.payments.leases.size).toBe(0);
    expect(await mismatches(bed)).toEqual({ caught_up: 1 });
  });

  it('brings the payment up to date when the ledger replays a confirm whose step here was never committed', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    bed.payments.failNextCompletionCommit = new Error('Connection terminated unexpectedly');
    await expect(confirm(bed, merchant)).rejects.toThrow('Connection terminated');
    const recorded = bed.ledger.recorded.at(-1)!;
    expect(recorded.payment).toMatchObject({ result: 'SUCCESS', interactionStatus: 'COMPLETED' });

    // The merchant retries the same confirm: the ledger replays what it recorded.
    bed.ledger.replay = bed.ledger.stored.get('order-1 bp-1')!;
    const execute = jest.spyOn(bed.providers.forPayment(bed.payments.only()), 'execute');
    const read = jest.spyOn(bed.ledger, 'readRecord');
    expect(await confirm(bed, merchant)).toMatchObject({ result: 'SUCCESS', recordedAs: 'CONFIRM_BROWSER_PAYMENT' });
    expect(read).not.toHaveBeenCalled(); // the replayed body is the ledger's record
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS', amount: '25.00', gatewayCode: 'APPROVED' });
    expect(execute).not.toHaveBeenCalled();
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'CAPTURED', capturedAmount: '25.00' });
  });

  it('brings the payment up to date when the ledger refuses a confirm with another body after a confirm whose step here was never committed', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    bed.payments.failNextCompletionCommit = new Error('Connection terminated unexpectedly');
    await expect(confirm(bed, merchant, { order: { amount: '22.00', shippingAndHandlingAmount: '2.00' } })).rejects.toThrow('Connection terminated');

    bed.ledger.refuseNextBegin = GatewayError.invalidRequest("Transaction 'bp-1' on order 'order-1' was already processed with different values.");
    // A ledger slow to answer the read: the payment has caught up by the time the refusal is answered.
    const read = bed.ledger.readRecord.bind(bed.ledger);
    jest.spyOn(bed.ledger, 'readRecord').mockImplementation(async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      return read(...args);
    });
    await expect(confirm(bed, merchant)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS', amount: '22.00' });
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'CAPTURED', capturedAmount: '22.00' });
  });

  it('leaves the payment as it is when a confirm is refused and the ledger holds no completion of it', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    bed.ledger.refuseNextBegin = GatewayError.invalidRequest('refused');
    await expect(confirm(bed, merchant)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING' });
    expect(await confirm(bed, merchant)).toMatchObject({ result: 'SUCCESS' });
  });

  it('reverses nothing when the record was refused and the ledger cannot be read: it may hold the payment', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    bed.ledger.failNextRecord = new GatewayError('ORDER_LOCK_LOST');
    bed.ledger.unreadable = GatewayError.serverBusy();
    await expect(confirm(bed, merchant)).rejects.toMatchObject({ code: 'ORDER_LOCK_LOST' });

    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'CAPTURED', capturedAmount: '25.00' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING' });
    expect(await mismatches(bed)).toEqual({ not_reversed_ledger_unreadable: 1 });
  });

  it('refuses a confirm for another amount than an earlier one executed with and never recorded, then records the earlier one', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    const earlier = { order: { amount: '22.00', shippingAndHandlingAmount: '2.00' } };
    bed.ledger.failNextRecord = new GatewayError('SERVER_BUSY');
    await expect(confirm(bed, merchant, earlier)).rejects.toMatchObject({ code: 'SERVER_BUSY' });

    const err = await rejection(confirm(bed, merchant));
    expect(err).toMatchObject({ field: 'order.amount', validationType: 'INVALID' });
    expect(err.explanation).toMatch(/already executed at the provider for 22.00 EUR/);
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING' });

    expect(await confirm(bed, merchant, earlier)).toMatchObject({ result: 'SUCCESS', order: { amount: 22 } });
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'CAPTURED', capturedAmount: '22.00' });
  });

  it('reverses the execution when the ledger refused the record and holds the payment as a FAILURE: only a recorded success is kept', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    bed.ledger.stored.set('order-1 bp-1', {
      browserPayment: { interaction: { status: 'COMPLETED' } },
      result: 'FAILURE',
      response: { gatewayCode: 'DECLINED' },
      transaction: { id: 'bp-1', amount: 25, currency: 'EUR' },
    });
    bed.ledger.failNextRecord = GatewayError.invalidRequest("Transaction 'bp-1' on order 'order-1' was already processed with different values.");
    await expect(confirm(bed, merchant)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });

    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'VOIDED', capturedAmount: '0' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING' });
  });

  it('counts an execution the ledger refused and the provider would not reverse', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    jest.spyOn(bed.providers.forPayment(bed.payments.only()), 'reverse').mockRejectedValue(new Error('provider down'));
    bed.ledger.failNextRecord = new GatewayError('ORDER_LOCK_LOST');
    await expect(confirm(bed, merchant)).rejects.toMatchObject({ code: 'ORDER_LOCK_LOST' });

    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'CAPTURED' });
    expect(await mismatches(bed)).toEqual({ neither_recorded_nor_reversed: 1 });
  });

  it('answers the ledger\'s refusal, and keeps the capture it records, when the payment cannot catch up here either', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    bed.payments.failNextCompletionCommit = new Error('Connection terminated unexpectedly');
    await expect(confirm(bed, merchant, { transaction: { reference: 'first' } })).rejects.toThrow('Connection terminated');

    // The database is still lost when the next confirm's record is refused and it would catch up.
    bed.payments.failNextCompletionCommit = new Error('Connection terminated unexpectedly');
    bed.ledger.failNextRecord = GatewayError.invalidRequest("Transaction 'bp-1' on order 'order-1' was already processed with different values.");
    await expect(confirm(bed, merchant, { transaction: { reference: 'second' } })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });

    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'CAPTURED', capturedAmount: '25.00' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING' });
  });

  it('answers a refused confirm with its refusal when the ledger cannot be read to catch up', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    bed.ledger.refuseNextBegin = GatewayError.invalidRequest('refused');
    bed.ledger.unreadable = GatewayError.serverBusy();
    await expect(confirm(bed, merchant)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING' });
  });

  it('answers a replay from the ledger even when the payment here cannot be read to catch up', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    bed.payments.failNextCompletionCommit = new Error('Connection terminated unexpectedly');
    await expect(confirm(bed, merchant)).rejects.toThrow('Connection terminated');

    bed.ledger.replay = bed.ledger.stored.get('order-1 bp-1')!;
    jest.spyOn(bed.payments, 'findByTransaction').mockRejectedValue(new Error('Connection terminated unexpectedly'));
    expect(await confirm(bed, merchant)).toMatchObject({ result: 'SUCCESS', recordedAs: 'CONFIRM_BROWSER_PAYMENT' });
  });

  it('reads nothing more from a ledger that did not answer the begin: only a refusal is where a lost step shows', async () => {
    const bed = browserPaymentTestBed();
    const merchant = await journey(bed, AT_MERCHANT, 'approve');
    bed.ledger.refuseNextBegin = GatewayError.serverBusy();
    const read = jest.spyOn(bed.ledger, 'readRecord');
    await expect(confirm(bed, merchant)).rejects.toMatchObject({ code: 'SERVER_BUSY' });
    expect(read).not.toHaveBeenCalled();
  });
});
