import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { openTestDataSource } from '@gateway/testing';
import { DataSource } from 'typeorm';
import { BROWSER_PAYMENT_SCHEMA } from './browser-payment.schema';
import { BrowserPaymentRepository, BrowserPaymentRow } from './browser-payment.repository';
import { EXPIRY_DUE_PREDICATE } from './payment-columns';
import { SimulatedProviderRepository } from './simulated-provider.repository';

/**
 * The conditional statements browser-payment relies on, against the real Postgres: a step
 * applies once however many race for it, a failed ledger record rolls its step back, and the
 * simulators' books never approve twice or refund past what was captured.
 */
let dataSource: DataSource;
let payments: BrowserPaymentRepository;
let simulator: SimulatedProviderRepository;

beforeAll(async () => {
  dataSource = await openTestDataSource(BROWSER_PAYMENT_SCHEMA, 12);
  payments = BrowserPaymentRepository.over(dataSource);
  simulator = SimulatedProviderRepository.over(dataSource);
});

afterAll(async () => {
  await dataSource?.destroy();
});

function newPayment(changes: Partial<BrowserPaymentRow> = {}): BrowserPaymentRow {
  const now = new Date();
  return {
    id: randomUUID(),
    merchantId: `INT${randomBytes(4).toString('hex')}`,
    orderId: 'order-1',
    transactionId: 'bp-1',
    provider: 'provider_a',
    operation: 'PAY',
    confirmation: 'CONFIRM_AT_PROVIDER',
    currency: 'EUR',
    amount: '12.34',
    interactionStatus: 'INITIATED',
    result: 'PENDING',
    gatewayCode: 'SUBMITTED',
    payerOutcome: null,
    tokenHash: createHash('sha256').update(randomBytes(16)).digest(),
    tokenExpiresAt: new Date(now.getTime() + 60_000),
    providerReference: `PA-${randomBytes(10).toString('hex').toUpperCase()}`,
    returnUrl: 'https://shop.example/return',
    request: { order: { amount: '12.34', currency: 'EUR' } },
    providerDetails: null,
    timeInitiated: now,
    timeRedirected: null,
    timeReturned: null,
    timeCompleted: null,
    updatedAt: now,
    ...changes,
  };
}

describe('payments past their redirect token', () => {
  // Tokens of a day long gone, so payments other specs of the run write are never among them.
  const at = (second: number) => new Date(Date.UTC(2001, 0, 1, 0, 0, second));

  it('are listed oldest token first, when pending and not waiting for the merchant\'s confirm, page by page', async () => {
    const merchantId = `INT${randomBytes(4).toString('hex')}`;
    const save = async (second: number, changes: Partial<BrowserPaymentRow> = {}) => {
      const payment = newPayment({ merchantId, orderId: `order-${second}-${randomBytes(2).toString('hex')}`, tokenExpiresAt: at(second), ...changes });
      expect(await payments.saveInitiated(payment)).toBe(true);
      return { paymentId: payment.id, merchantId, orderId: payment.orderId, tokenExpiresAt: at(second).toISOString() };
    };
    const third = await save(3);
    const first = await save(1, { interactionStatus: 'REDIRECTED_TO_PROVIDER' });
    const second = await save(2, { interactionStatus: 'RETURNED_TO_MERCHANT', payerOutcome: 'APPROVED' });
    const alsoThird = await save(3);
    await save(4, { interactionStatus: 'RETURNED_TO_MERCHANT', payerOutcome: 'APPROVED', confirmation: 'CONFIRM_AT_MERCHANT' });
    await save(5, { result: 'FAILURE', gatewayCode: 'TIMED_OUT' });
    await save(6, { interactionStatus: 'COMPLETED', result: 'SUCCESS', gatewayCode: 'APPROVED' });
    await save(30);
    // Two tokens expiring together are ordered by id, so a page can end between them.
    const [thirdA, thirdB] = [third, alsoThird].sort((a, b) => (a.paymentId < b.paymentId ? -1 : 1));

    expect(await payments.findExpired(at(10), 100)).toEqual([first, second, thirdA, thirdB]);
    expect(await payments.findExpired(at(2), 100)).toEqual([first, second]);
    const page = await payments.findExpired(at(10), 3);
    expect(page).toEqual([first, second, thirdA]);
    expect(await payments.findExpired(at(10), 3, page[2])).toEqual([thirdB]);
    expect(await payments.findExpired(at(10), 3, thirdB)).toEqual([]);
    expect(await payments.findById(first.paymentId)).toMatchObject({ id: first.paymentId, interactionStatus: 'REDIRECTED_TO_PROVIDER' });
  });

  it('are found, page after page, through the partial index of open journeys', async () => {
    const runner = dataSource.createQueryRunner();
    try {
      // With too few rows to matter, the planner may prefer a scan; what counts is that the index serves the query.
      await runner.query('SET enable_seqscan = off');
      const plan: { 'QUERY PLAN': string }[] = await runner.query(
        `EXPLAIN SELECT id FROM browser_payment.payments
          WHERE ${EXPIRY_DUE_PREDICATE} AND token_expires_at <= $1 AND (token_expires_at, id) > ($2::timestamptz, $3::uuid)
          ORDER BY token_expires_at, id LIMIT 100`,
        [at(10), at(1), randomUUID()],
      );
      const text = plan.map((row) => row['QUERY PLAN']).join('\n');
      expect(text).toMatch(/Index (Only )?Scan using payments_expiry_due_idx/);
      // The page boundary is a condition of the index scan, not a filter over what it read.
      expect(text).toMatch(/Index Cond: .*ROW\(token_expires_at, id\) > ROW\(/);
    } finally {
      await runner.query('RESET enable_seqscan');
      await runner.release();
    }
  });
});

describe('payments', () => {
  it('are found by token hash and by transaction, amounts as exact text', async () => {
    const payment = newPayment();
    expect(await payments.saveInitiated(payment)).toBe(true);
    const byToken = await payments.findByTokenHash(payment.tokenHash);
    expect(byToken).toMatchObject({ id: payment.id, amount: '12.3400', request: payment.request, interactionStatus: 'INITIATED' });
    expect(byToken!.tokenHash.equals(payment.tokenHash)).toBe(true);
    expect(await payments.findByTransaction(payment.merchantId, 'order-1', 'bp-1')).toMatchObject({ id: payment.id });
    expect(await payments.findByTransaction('someone-else', 'order-1', 'bp-1')).toBeNull();
  });

  it('move through a step once, however many requests race for it', async () => {
    const payment = newPayment();
    await payments.saveInitiated(payment);
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        payments.transition(payment.id, { interactionStatus: 'INITIATED', result: 'PENDING' }, { interactionStatus: 'REDIRECTED_TO_PROVIDER', timeRedirected: new Date() }, async () => i),
      ),
    );
    expect(outcomes.filter((o) => o !== null)).toHaveLength(1);
    expect((await payments.findByTokenHash(payment.tokenHash))!.interactionStatus).toBe('REDIRECTED_TO_PROVIDER');
  });

  it('never move a payment whose result another step settled, though its interaction status is the expected one', async () => {
    // The expired-payment settlement fails a RETURNED payment without moving its interaction status.
    const payment = newPayment({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'FAILURE', gatewayCode: 'TIMED_OUT' });
    await payments.saveInitiated(payment);
    const alongside = jest.fn(async () => 'recorded');
    expect(
      await payments.transition(payment.id, { interactionStatus: 'RETURNED_TO_MERCHANT', result: 'PENDING' }, { interactionStatus: 'COMPLETED', result: 'SUCCESS' }, alongside),
    ).toBeNull();
    expect(alongside).not.toHaveBeenCalled();
    expect(await payments.findByTokenHash(payment.tokenHash)).toMatchObject({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'FAILURE' });
  });

  it('roll a step back when what runs alongside it (the ledger record) fails', async () => {
    const payment = newPayment();
    await payments.saveInitiated(payment);
    await expect(
      payments.transition(payment.id, { interactionStatus: 'INITIATED', result: 'PENDING' }, { interactionStatus: 'REDIRECTED_TO_PROVIDER' }, async () => {
        throw new Error('ledger refused');
      }),
    ).rejects.toThrow('ledger refused');
    expect((await payments.findByTokenHash(payment.tokenHash))!.interactionStatus).toBe('INITIATED');
  });

  it('replace an initiate that never reached the ledger, never one whose journey started', async () => {
    const first = newPayment();
    await payments.saveInitiated(first);
    const retry = newPayment({ merchantId: first.merchantId });
    expect(await payments.saveInitiated(retry)).toBe(true);
    expect(await payments.findByTokenHash(first.tokenHash)).toBeNull();
    await payments.transition(retry.id, { interactionStatus: 'INITIATED', result: 'PENDING' }, { interactionStatus: 'REDIRECTED_TO_PROVIDER' }, async () => null);
    expect(await payments.saveInitiated(newPayment({ merchantId: first.merchantId }))).toBe(false);
    expect(await payments.findByTokenHash(retry.tokenHash)).not.toBeNull();
  });

  it('keep one outcome per refund transaction', async () => {
    const payment = newPayment();
    await payments.saveInitiated(payment);
    const refund = { paymentId: payment.id, refundTransactionId: 'r1', amount: '1.00', currency: 'EUR', result: 'SUCCESS' as const, gatewayCode: 'APPROVED', providerReference: 'PAR-1', createdAt: new Date() };
    expect(await payments.insertRefund(refund)).toBe(true);
    expect(await payments.insertRefund({ ...refund, amount: '2.00' })).toBe(false);
    expect(await payments.findRefund(payment.id, 'r1')).toMatchObject({ amount: '1.0000', providerReference: 'PAR-1' });
  });
});

describe('the simulators\' books', () => {
  async function created(operation: 'PAY' | 'AUTHORIZE' = 'PAY') {
    const reference = `PA-${randomBytes(10).toString('hex').toUpperCase()}`;
    await simulator.create(
      { reference, provider: 'provider_a', operation, currency: 'EUR', amount: '10.00', status: 'CREATED', capturedAmount: '0', refundedAmount: '0' },
      new Date(),
    );
    return reference;
  }

  it('take one decision when a payer double-clicks approve and cancel at once', async () => {
    const reference = await created();
    const decisions = await Promise.all(
      ['APPROVED', 'CANCELLED', 'APPROVED', 'CANCELLED'].map((to) => simulator.move(reference, ['CREATED'], to as 'APPROVED' | 'CANCELLED', new Date())),
    );
    expect(decisions.filter((d) => d !== null)).toHaveLength(1);
  });

  it('never refund past what was captured, even when refunds race', async () => {
    const reference = await created();
    await simulator.move(reference, ['CREATED'], 'APPROVED', new Date());
    expect(await simulator.execute(reference, 'PAY', '10.00', new Date())).toMatchObject({ status: 'CAPTURED', capturedAmount: '10.0000' });
    const refunds = await Promise.all(Array.from({ length: 6 }, () => simulator.refund(reference, '2.00', new Date())));
    expect(refunds.filter((r) => r !== null)).toHaveLength(5);
    expect((await simulator.find(reference))!.refundedAmount).toBe('10.0000');
  });

  it('execute only an approved payment of the same operation, and void nothing already refunded', async () => {
    const reference = await created('AUTHORIZE');
    expect(await simulator.execute(reference, 'AUTHORIZE', '10.00', new Date())).toBeNull();
    await simulator.move(reference, ['CREATED'], 'APPROVED', new Date());
    expect(await simulator.execute(reference, 'PAY', '10.00', new Date())).toBeNull();
    expect(await simulator.execute(reference, 'AUTHORIZE', '9.00', new Date())).toMatchObject({ status: 'AUTHORIZED', amount: '9.0000', capturedAmount: '0.0000' });
    expect(await simulator.void(reference, new Date())).toMatchObject({ status: 'VOIDED' });

    const paid = await created();
    await simulator.move(paid, ['CREATED'], 'APPROVED', new Date());
    await simulator.execute(paid, 'PAY', '10.00', new Date());
    await simulator.refund(paid, '1.00', new Date());
    expect(await simulator.void(paid, new Date())).toBeNull();
  });
});
