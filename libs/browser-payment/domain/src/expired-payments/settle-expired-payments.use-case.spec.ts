import { GatewayError, JsonObject, PayerDecision, validateOrderOperationRequest } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { ConfirmBrowserPayment } from '../confirm-browser-payment/confirm-browser-payment.use-case';
import { RecordPayerDecision } from '../payer-journey/record-payer-decision.use-case';
import { ReturnFromProvider } from '../payer-journey/return-from-provider.use-case';
import { ShowProviderPage } from '../payer-journey/show-provider-page.use-case';
import {
  browserPaymentTestBed,
  envelopeFor,
  initiateBody,
  initiatedPayment,
  payerStep,
  RETURN_URL,
  TEST_OPTIONS,
  TestBed,
  TestClock,
  testMerchant,
} from '../testing/browser-payment-test-bed';
import { paymentExpiredPage } from '../pages/journey-pages';
import { SettleExpiredPayments } from './settle-expired-payments.use-case';

const AT_MERCHANT = initiateBody({ browserPayment: { returnUrl: RETURN_URL, provider_a: { operation: 'PAY', paymentConfirmation: 'CONFIRM_AT_MERCHANT' } } });

/** A journey left where `stage` says, then the token's lifetime passes. */
async function leftAt(bed: TestBed, stage: 'initiated' | 'redirected' | PayerDecision | 'returned', body?: JsonObject) {
  const journey = await initiatedPayment(bed, body);
  const step = payerStep(journey.merchant, journey.provider, journey.token);
  const returns = new ReturnFromProvider(bed.journeys, bed.providers, bed.steps);
  if (stage !== 'initiated') {
    await new ShowProviderPage(bed.journeys, bed.providers, bed.steps).execute(step);
  }
  if (stage === 'approve' || stage === 'cancel' || stage === 'returned') {
    const decision = stage === 'returned' ? 'approve' : stage;
    await new RecordPayerDecision(bed.journeys, bed.providers).execute({ requestId: 'r', provider: journey.provider, token: journey.token, decision });
  }
  if (stage === 'returned') {
    await returns.execute(step);
  }
  bed.clock.advance(TEST_OPTIONS.tokenTtlMs);
  const settlement = new SettleExpiredPayments(bed.payments, bed.providers, bed.steps, returns, bed.options);
  const settle = () => settlement.settle({ envelope: envelopeFor(journey.merchant, 'GATEWAY'), paymentId: bed.payments.only().id });
  return { journey, settlement, settle };
}

const steps = (bed: TestBed) => bed.ledger.recorded.map((r) => r.apiOperation);
const providerStatus = (bed: TestBed) => bed.simulator.rows.get(bed.payments.only().providerReference)!.status;

describe('SettleExpiredPayments', () => {
  it('lists the payments whose token expired, and none before', async () => {
    const bed = browserPaymentTestBed();
    const { settlement } = await leftAt(bed, 'initiated');
    const payment = bed.payments.only();
    expect(await settlement.due({ requestId: 'r', limit: 10 })).toEqual({
      payments: [{ paymentId: payment.id, merchantId: 'SHOP1', orderId: 'order-1', tokenExpiresAt: new Date(payment.tokenExpiresAt).toISOString() }],
    });
    // The page the sweep asked for: its size, and where the previous one ended.
    const findExpired = jest.spyOn(bed.payments, 'findExpired');
    const after = { tokenExpiresAt: '2031-05-04T09:00:00.000Z', paymentId: payment.id };
    await settlement.due({ requestId: 'r', limit: 7, after });
    // Returned by the database's now minus the confirm window: the payments waiting for a confirm past it.
    expect(findExpired).toHaveBeenCalledWith(bed.clock.now(), new Date(bed.clock.now().getTime() - TEST_OPTIONS.confirmWindowMs), 7, after);
    bed.clock.advance(-1);
    expect(await settlement.due({ requestId: 'r', limit: 10 })).toEqual({ payments: [] });
  });

  it('never sent to the provider: the transaction fails TIMED_OUT, the interaction stays INITIATED', async () => {
    const bed = browserPaymentTestBed();
    const { settle } = await leftAt(bed, 'initiated');
    expect(await settle()).toEqual({ outcome: 'TIMED_OUT' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'INITIATED', result: 'FAILURE', gatewayCode: 'TIMED_OUT' });
    const [, timedOut] = bed.ledger.recorded;
    expect(timedOut).toMatchObject({ apiOperation: 'BROWSER_PAYMENT_TIMED_OUT', mode: 'UPDATE', envelope: { authMethod: 'GATEWAY' } });
    expect(timedOut.response).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'TIMED_OUT' } });
  });

  it('at the provider, undecided: TIMED_OUT, and the provider can no longer take the payer\'s approval', async () => {
    const bed = browserPaymentTestBed();
    const { settle } = await leftAt(bed, 'redirected');
    expect(providerStatus(bed)).toBe('CREATED');
    expect(await settle()).toEqual({ outcome: 'TIMED_OUT' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'REDIRECTED_TO_PROVIDER', result: 'FAILURE', gatewayCode: 'TIMED_OUT' });
    expect(providerStatus(bed)).toBe('ABANDONED');
  });

  it('cancelled at the provider, never back: TIMED_OUT, nothing executed', async () => {
    const bed = browserPaymentTestBed();
    const { settle } = await leftAt(bed, 'cancel');
    expect(await settle()).toEqual({ outcome: 'TIMED_OUT' });
    expect(bed.payments.only()).toMatchObject({ result: 'FAILURE', gatewayCode: 'TIMED_OUT' });
    expect(providerStatus(bed)).toBe('CANCELLED');
  });

  it('approved at the provider (CONFIRM_AT_PROVIDER), never back: returned and executed, as the return would have', async () => {
    const bed = browserPaymentTestBed();
    const { settle } = await leftAt(bed, 'approve');
    expect(await settle()).toEqual({ outcome: 'COMPLETED' });
    expect(steps(bed)).toEqual(['INITIATE_BROWSER_PAYMENT', 'BROWSER_PAYMENT_REDIRECTED', 'BROWSER_PAYMENT_RETURNED', 'BROWSER_PAYMENT_COMPLETED']);
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS', gatewayCode: 'APPROVED' });
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'CAPTURED', capturedAmount: '20.00' });
  });

  it('approved at the provider (CONFIRM_AT_MERCHANT), never back: returned, waiting for the merchant\'s confirm, nothing executed', async () => {
    const bed = browserPaymentTestBed();
    const { settle, settlement } = await leftAt(bed, 'approve', AT_MERCHANT);
    expect(await settle()).toEqual({ outcome: 'RETURNED' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING', payerOutcome: 'APPROVED' });
    expect(providerStatus(bed)).toBe('APPROVED');
    // The merchant's to settle from now on: no longer due.
    expect(await settlement.due({ requestId: 'r', limit: 10 })).toEqual({ payments: [] });
    expect(await settle()).toEqual({ outcome: 'NOT_DUE' });
  });

  describe('approved and back (CONFIRM_AT_MERCHANT), never confirmed', () => {
    /** The payer came back approved; the token expired; the merchant has not confirmed. */
    async function unconfirmed() {
      const bed = browserPaymentTestBed();
      const left = await leftAt(bed, 'returned', { ...AT_MERCHANT, customer: { email: 'zelda@example.org' } });
      expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING', payerOutcome: 'APPROVED' });
      const confirm = () => {
        const body = { apiOperation: 'CONFIRM_BROWSER_PAYMENT' };
        return new ConfirmBrowserPayment(bed.payments, bed.providers, bed.ledger, bed.steps, bed.requestHasher).execute({
          envelope: envelopeFor(left.journey.merchant),
          orderId: 'order-1',
          transactionId: 'bp-1',
          request: validateOrderOperationRequest('CONFIRM_BROWSER_PAYMENT', body),
          body,
        });
      };
      /** The confirm window, counted from the return (the token's lifetime has already passed since). */
      const toWindowEnd = (ms = 0) => bed.clock.advance(TEST_OPTIONS.confirmWindowMs - TEST_OPTIONS.tokenTtlMs + ms);
      return { bed, ...left, confirm, toWindowEnd };
    }

    it('within the confirm window: neither listed nor settled, the approval kept at the provider', async () => {
      const { bed, settlement, settle, toWindowEnd } = await unconfirmed();
      toWindowEnd(-1);
      expect(await settlement.due({ requestId: 'r', limit: 10 })).toEqual({ payments: [] });
      expect(await settle()).toEqual({ outcome: 'NOT_DUE' });
      expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING' });
      expect(providerStatus(bed)).toBe('APPROVED');
    });

    it('past the window: the approval released at the provider, TIMED_OUT recorded, the payer\'s data stripped, and a late confirm refused as timed out', async () => {
      const { bed, settlement, settle, confirm, toWindowEnd } = await unconfirmed();
      toWindowEnd();
      const payment = bed.payments.only();
      expect(payment.request).toMatchObject({ customer: { email: 'zelda@example.org' } });
      expect((await settlement.due({ requestId: 'r', limit: 10 })).payments).toEqual([expect.objectContaining({ paymentId: payment.id })]);
      expect(await settle()).toEqual({ outcome: 'TIMED_OUT' });
      expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'FAILURE', gatewayCode: 'TIMED_OUT', payerOutcome: 'APPROVED' });
      expect(providerStatus(bed)).toBe('ABANDONED');
      const timedOut = bed.ledger.recorded.at(-1)!;
      expect(timedOut).toMatchObject({ apiOperation: 'BROWSER_PAYMENT_TIMED_OUT', mode: 'UPDATE', envelope: { authMethod: 'GATEWAY' } });
      expect(timedOut.response).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'TIMED_OUT' } });
      expect(bed.payments.only().request).not.toHaveProperty('customer');
      expect(await settle()).toEqual({ outcome: 'NOT_DUE' });

      const recorded = bed.ledger.recorded.length;
      const refused = await confirm().catch((err: unknown) => err as GatewayError);
      expect(refused).toMatchObject({ httpStatus: 400, field: 'apiOperation' });
      expect((refused as GatewayError).explanation).toMatch(/timed out.*not confirmed within the confirm window/);
      expect(bed.ledger.recorded).toHaveLength(recorded);
      // Nor could the provider execute it any more.
      const execution = await bed.providers.forPayment(payment).execute(payment.providerReference, 'PAY', Money.of('20.00', 'EUR'));
      expect(execution).toMatchObject({ approved: false, providerCode: 'NOT_APPROVED_BY_PAYER' });
    });

    it('executed at the provider by a confirm whose record has not landed: left to that confirm, nothing released or recorded', async () => {
      const { bed, settle, confirm, toWindowEnd } = await unconfirmed();
      bed.ledger.failNextRecord = new GatewayError('SERVER_BUSY');
      await expect(confirm()).rejects.toMatchObject({ code: 'SERVER_BUSY' });
      expect(providerStatus(bed)).toBe('CAPTURED');
      toWindowEnd();
      const recorded = bed.ledger.recorded.length;
      expect(await settle()).toEqual({ outcome: 'RETURNED' });
      expect(providerStatus(bed)).toBe('CAPTURED');
      expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING' });
      expect(bed.ledger.recorded).toHaveLength(recorded);
      // The confirm retried records the execution the provider made.
      expect(await confirm()).toMatchObject({ result: 'SUCCESS' });
    });

    it('a confirm under way (holding the execution lease): the sweep releases nothing and retries later', async () => {
      const { bed, settle, toWindowEnd } = await unconfirmed();
      toWindowEnd();
      const payment = bed.payments.only();
      bed.payments.leases.set(payment.id, new Date(bed.clock.now().getTime() + 60_000));
      await expect(settle()).rejects.toMatchObject({ code: 'ORDER_LOCK_LOST' });
      expect(providerStatus(bed)).toBe('APPROVED');
      expect(bed.payments.only()).toMatchObject({ result: 'PENDING' });
      bed.payments.leases.delete(payment.id);
      expect(await settle()).toEqual({ outcome: 'TIMED_OUT' });
    });
  });

  it('returned, its execution never recorded: executed once at the provider and recorded COMPLETED', async () => {
    const bed = browserPaymentTestBed();
    const journey = await initiatedPayment(bed);
    const step = payerStep(journey.merchant, journey.provider, journey.token);
    const returns = new ReturnFromProvider(bed.journeys, bed.providers, bed.steps);
    await new ShowProviderPage(bed.journeys, bed.providers, bed.steps).execute(step);
    await new RecordPayerDecision(bed.journeys, bed.providers).execute({ requestId: 'r', provider: journey.provider, token: journey.token, decision: 'approve' });
    // The payer is back; the provider executes, but the completion's record times out (its fate
    // unknown, so the execution is kept) and the payer never reloads.
    const original = bed.ledger.record.bind(bed.ledger);
    bed.ledger.record = async (record) => {
      if (record.apiOperation === 'BROWSER_PAYMENT_COMPLETED') throw new GatewayError('SERVER_BUSY');
      return original(record);
    };
    await expect(returns.execute(step)).rejects.toMatchObject({ code: 'SERVER_BUSY' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING' });
    expect(providerStatus(bed)).toBe('CAPTURED');
    bed.ledger.record = original;

    bed.clock.advance(TEST_OPTIONS.tokenTtlMs);
    const settlement = new SettleExpiredPayments(bed.payments, bed.providers, bed.steps, returns, bed.options);
    expect(await settlement.settle({ envelope: envelopeFor(journey.merchant, 'GATEWAY'), paymentId: bed.payments.only().id })).toEqual({
      outcome: 'COMPLETED',
    });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS' });
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)).toMatchObject({ status: 'CAPTURED', capturedAmount: '20.00' });
    expect(steps(bed).at(-1)).toBe('BROWSER_PAYMENT_COMPLETED');
  });

  it('a ledger refusal leaves the payment due for the next sweep', async () => {
    const bed = browserPaymentTestBed();
    const { settle, settlement } = await leftAt(bed, 'initiated');
    bed.ledger.failNextRecord = new GatewayError('ORDER_LOCK_LOST');
    await expect(settle()).rejects.toMatchObject({ code: 'ORDER_LOCK_LOST' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'INITIATED', result: 'PENDING' });
    expect((await settlement.due({ requestId: 'r', limit: 10 })).payments).toHaveLength(1);
    expect(await settle()).toEqual({ outcome: 'TIMED_OUT' });
  });

  it("takes the end the ledger holds when it refuses to time the journey out over it (the payer's cancellation whose commit here was lost)", async () => {
    const bed = browserPaymentTestBed();
    const { settle } = await leftAt(bed, 'cancel');
    const payment = bed.payments.only();
    // The payer's return recorded the cancellation in the ledger; its commit here was lost.
    bed.ledger.stored.set(`${payment.orderId} ${payment.transactionId}`, {
      browserPayment: { interaction: { status: 'RETURNED_TO_MERCHANT', timeReturned: '2031-05-04T10:00:02.000Z' } },
      result: 'FAILURE',
      response: { gatewayCode: 'CANCELLED' },
      transaction: { id: payment.transactionId, type: 'PAYMENT', amount: Number(payment.amount), currency: payment.currency },
    });
    bed.ledger.failNextRecord = GatewayError.invalidRequest(`Transaction '${payment.transactionId}' is already complete (result FAILURE) and cannot be changed.`);
    expect(await settle()).toEqual({ outcome: 'NOT_DUE' });
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'FAILURE', gatewayCode: 'CANCELLED', payerOutcome: 'CANCELLED' });
    expect(steps(bed)).not.toContain('BROWSER_PAYMENT_TIMED_OUT');
  });

  it('discards an initiate the ledger never recorded (answered LOCK_FAILURE), so its transaction id can be used again', async () => {
    const bed = browserPaymentTestBed();
    const { settle } = await leftAt(bed, 'initiated');
    // The ledger holds no transaction under the payment's id: its UPDATE is refused on the id.
    bed.ledger.failNextRecord = GatewayError.invalidField('transactionid', 'INVALID', "Value 'bp-1' is invalid. The order has no transaction with this id.");
    expect(await settle()).toEqual({ outcome: 'DISCARDED' });
    expect(bed.payments.payments.size).toBe(0);

    // Any other refusal leaves it due, and a payment past its initiate is never discarded.
    const other = browserPaymentTestBed();
    const { settle: settleOther } = await leftAt(other, 'redirected');
    other.ledger.failNextRecord = GatewayError.invalidField('transactionid', 'INVALID', 'no such transaction');
    await expect(settleOther()).rejects.toMatchObject({ field: 'transactionid' });
    expect(other.payments.payments.size).toBe(1);
  });

  it.each([
    ['before its token expired', -1, testMerchant()],
    ['of another merchant', 0, { ...testMerchant(), id: 'SHOP2' }],
  ])('changes nothing %s', async (_case, shift, merchant) => {
    const bed = browserPaymentTestBed();
    const { settlement } = await leftAt(bed, 'initiated');
    bed.clock.advance(shift);
    const before = bed.payments.only();
    expect(await settlement.settle({ envelope: envelopeFor(merchant, 'GATEWAY'), paymentId: before.id })).toEqual({ outcome: 'NOT_DUE' });
    expect(bed.payments.only()).toEqual(before);
    expect(steps(bed)).toEqual(['INITIATE_BROWSER_PAYMENT']);
  });

  it('settled once: a second sweep reaching it finds nothing to do', async () => {
    const bed = browserPaymentTestBed();
    const { settle } = await leftAt(bed, 'approve');
    await settle();
    const recorded = bed.ledger.recorded.length;
    expect(await settle()).toEqual({ outcome: 'NOT_DUE' });
    expect(bed.ledger.recorded).toHaveLength(recorded);
  });

  describe('judged by the database\'s clock, not the replica\'s', () => {
    /** The database's clock `ms` from the replica's (the bed's clock, which every use case here runs on). */
    function databaseAt(bed: TestBed, ms: number): void {
      bed.payments.databaseClock = new TestClock(new Date(bed.clock.now().getTime() + ms));
    }

    it('a replica whose clock runs ahead neither lists nor times out a payment the database still holds live', async () => {
      const bed = browserPaymentTestBed();
      const { journey, settlement, settle } = await leftAt(bed, 'redirected');
      bed.clock.advance(3_000);
      databaseAt(bed, -5_000);
      expect(await settlement.due({ requestId: 'r', limit: 10 })).toEqual({ payments: [] });
      expect(await settle()).toEqual({ outcome: 'NOT_DUE' });
      expect(bed.payments.only()).toMatchObject({ interactionStatus: 'REDIRECTED_TO_PROVIDER', result: 'PENDING' });
      // The payer's approval, on a replica as far ahead, is still taken.
      await new RecordPayerDecision(bed.journeys, bed.providers).execute({ requestId: 'r', provider: journey.provider, token: journey.token, decision: 'approve' });
      expect(providerStatus(bed)).toBe('APPROVED');
    });

    it('a replica whose clock runs behind shows no provider page for a payment the sweep timed out', async () => {
      const bed = browserPaymentTestBed();
      const { journey, settle } = await leftAt(bed, 'redirected');
      expect(await settle()).toEqual({ outcome: 'TIMED_OUT' });
      bed.clock.advance(-5_000);
      databaseAt(bed, 5_000);
      const step = payerStep(journey.merchant, journey.provider, journey.token);
      expect(await new ShowProviderPage(bed.journeys, bed.providers, bed.steps).execute(step)).toEqual(paymentExpiredPage());
      const decision = { requestId: 'r', provider: journey.provider, token: journey.token, decision: 'approve' as const };
      expect(await new RecordPayerDecision(bed.journeys, bed.providers).execute(decision)).toEqual(paymentExpiredPage());
      expect(bed.payments.only()).toMatchObject({ interactionStatus: 'REDIRECTED_TO_PROVIDER', result: 'FAILURE', gatewayCode: 'TIMED_OUT' });
    });
  });
});
