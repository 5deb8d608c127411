import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { openTestDataSource, waitFor } from '@gateway/testing';
import { DataSource } from 'typeorm';
import { BROWSER_PAYMENT_SCHEMA } from './browser-payment.schema';
import { BrowserPaymentRepository, BrowserPaymentRow } from './browser-payment.repository';
import { CONFIRM_AWAITED_PREDICATE, EXPIRY_DUE_PREDICATE } from './payment-columns';
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
    merchantMode: 'TEST',
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

  it('are listed oldest token first, when pending and not waiting for the merchant\'s confirm within its window, page by page', async () => {
    const merchantId = `INT${randomBytes(4).toString('hex')}`;
    const save = async (second: number, changes: Partial<BrowserPaymentRow> = {}) => {
      const payment = newPayment({ merchantId, orderId: `order-${second}-${randomBytes(2).toString('hex')}`, tokenExpiresAt: at(second), ...changes });
      expect(await payments.saveInitiated(payment)).toBe(true);
      return { paymentId: payment.id, merchantId, orderId: payment.orderId, tokenExpiresAt: at(second).toISOString() };
    };
    const awaitingConfirm = (returnedAt: number): Partial<BrowserPaymentRow> => ({
      interactionStatus: 'RETURNED_TO_MERCHANT',
      payerOutcome: 'APPROVED',
      confirmation: 'CONFIRM_AT_MERCHANT',
      timeReturned: at(returnedAt),
    });
    const third = await save(3);
    const first = await save(1, { interactionStatus: 'REDIRECTED_TO_PROVIDER' });
    const second = await save(2, { interactionStatus: 'RETURNED_TO_MERCHANT', payerOutcome: 'APPROVED' });
    const alsoThird = await save(3);
    // Waiting for the merchant's confirm: back at second 4 (within the window), back at second 1 (past it).
    await save(4, awaitingConfirm(4));
    const unconfirmed = await save(7, awaitingConfirm(1));
    await save(5, { result: 'FAILURE', gatewayCode: 'TIMED_OUT' });
    await save(6, { interactionStatus: 'COMPLETED', result: 'SUCCESS', gatewayCode: 'APPROVED' });
    await save(8, { ...awaitingConfirm(1), result: 'SUCCESS', gatewayCode: 'APPROVED', interactionStatus: 'COMPLETED' });
    await save(30);
    // Two tokens expiring together are ordered by id, so a page can end between them.
    const [thirdA, thirdB] = [third, alsoThird].sort((a, b) => (a.paymentId < b.paymentId ? -1 : 1));

    // Returned by second 2 or before: the confirm window has passed.
    const returnedBy = at(2);
    expect(await payments.findExpired(at(10), returnedBy, 100)).toEqual([first, second, thirdA, thirdB, unconfirmed]);
    expect(await payments.findExpired(at(10), at(0), 100)).toEqual([first, second, thirdA, thirdB]);
    expect(await payments.findExpired(at(10), at(5), 100)).toHaveLength(6);
    expect(await payments.findExpired(at(2), returnedBy, 100)).toEqual([first, second]);
    const page = await payments.findExpired(at(10), returnedBy, 3);
    expect(page).toEqual([first, second, thirdA]);
    expect(await payments.findExpired(at(10), returnedBy, 3, page[2])).toEqual([thirdB, unconfirmed]);
    expect(await payments.findExpired(at(10), returnedBy, 1, thirdB)).toEqual([unconfirmed]);
    expect(await payments.findExpired(at(10), returnedBy, 3, unconfirmed)).toEqual([]);
    expect(await payments.findById(first.paymentId)).toMatchObject({ id: first.paymentId, interactionStatus: 'REDIRECTED_TO_PROVIDER' });
  });

  it('are found, page after page, through the partial indexes of open journeys and of payments awaiting the confirm', async () => {
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
      // The other half, the payments waiting for the merchant's confirm, by the time of the return.
      const awaited: { 'QUERY PLAN': string }[] = await runner.query(
        `EXPLAIN SELECT id FROM browser_payment.payments
          WHERE ${CONFIRM_AWAITED_PREDICATE} AND time_returned <= $1 AND token_expires_at <= $2
          ORDER BY token_expires_at, id LIMIT 100`,
        [at(1), at(10)],
      );
      const awaitedText = awaited.map((row) => row['QUERY PLAN']).join('\n');
      expect(awaitedText).toMatch(/Index (Only )?Scan using payments_confirm_awaited_idx/);
      expect(awaitedText).toMatch(/Index Cond: \(time_returned <= /);
    } finally {
      await runner.query('RESET enable_seqscan');
      await runner.release();
    }
  });
});

describe('payments', () => {
  it('keep the merchant mode they were initiated in', async () => {
    for (const merchantMode of ['TEST', 'LIVE'] as const) {
      const payment = newPayment({ merchantMode });
      expect(await payments.saveInitiated(payment)).toBe(true);
      expect((await payments.findById(payment.id))?.merchantMode).toBe(merchantMode);
    }
  });

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

  it("take the payer personal-data retention's mark off with a step: the payment is one to strip again once idle", async () => {
    const payment = newPayment({ interactionStatus: 'RETURNED_TO_MERCHANT', result: 'SUCCESS' });
    await payments.saveInitiated(payment);
    const marked = async () =>
      ((await dataSource.query(`SELECT personal_data_stripped_at IS NOT NULL AS marked FROM browser_payment.payments WHERE id = $1`, [payment.id])) as { marked: boolean }[])[0].marked;
    await dataSource.query(`UPDATE browser_payment.payments SET personal_data_stripped_at = now() WHERE id = $1`, [payment.id]);
    expect(await marked()).toBe(true);
    await payments.transition(payment.id, { interactionStatus: 'RETURNED_TO_MERCHANT', result: 'SUCCESS' }, { interactionStatus: 'COMPLETED' }, async () => null);
    expect(await marked()).toBe(false);
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

  it('keep one outcome per capture transaction, and find the payment a successful capture was taken from', async () => {
    const payment = newPayment({ operation: 'AUTHORIZE' });
    await payments.saveInitiated(payment);
    const capture = {
      paymentId: payment.id,
      captureTransactionId: 'c1',
      amount: '5.00',
      currency: 'EUR',
      result: 'SUCCESS' as const,
      gatewayCode: 'APPROVED',
      providerReference: 'PAC-1',
      createdAt: new Date(),
    };
    expect(await payments.insertCapture(capture)).toBe(true);
    expect(await payments.insertCapture({ ...capture, amount: '6.00' })).toBe(false);
    expect(await payments.findCapture(payment.id, 'c1')).toMatchObject({ amount: '5.0000', providerReference: 'PAC-1' });
    expect(await payments.insertCapture({ ...capture, captureTransactionId: 'c2', result: 'FAILURE', gatewayCode: 'DECLINED', providerReference: null })).toBe(true);

    // The payment row as every other read gives it.
    expect(await payments.findCapturedPayment(payment.merchantId, 'order-1', 'c1')).toEqual(await payments.findById(payment.id));
    // A declined capture took nothing; another order or merchant has no such capture.
    expect(await payments.findCapturedPayment(payment.merchantId, 'order-1', 'c2')).toBeNull();
    expect(await payments.findCapturedPayment(payment.merchantId, 'order-2', 'c1')).toBeNull();
    expect(await payments.findCapturedPayment('SOMEONE-ELSE', 'order-1', 'c1')).toBeNull();
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
    const refunds = await Promise.all(Array.from({ length: 6 }, (_, i) => simulator.refund(reference, `r${i}`, '2.00', `PAR-${i}`, new Date())));
    expect(refunds.filter((r) => r!.approved)).toHaveLength(5);
    expect(refunds.filter((r) => !r!.approved)).toEqual([expect.objectContaining({ providerCode: 'REFUND_EXCEEDS_CAPTURED_AMOUNT', reference: null })]);
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
    await simulator.refund(paid, 'r1', '1.00', 'PAR-1', new Date());
    expect(await simulator.void(paid, new Date())).toBeNull();
  });
});

describe('the simulators\' refunds', () => {
  async function captured(amount = '10.00') {
    const reference = `PA-${randomBytes(10).toString('hex').toUpperCase()}`;
    await simulator.create(
      { reference, provider: 'provider_a', operation: 'PAY', currency: 'EUR', amount, status: 'CREATED', capturedAmount: '0', refundedAmount: '0' },
      new Date(),
    );
    await simulator.move(reference, ['CREATED'], 'APPROVED', new Date());
    await simulator.execute(reference, 'PAY', amount, new Date());
    return reference;
  }

  async function storedRefunds(reference: string): Promise<number> {
    const rows: { count: string }[] = await dataSource.query(
      'SELECT count(*) AS count FROM browser_payment.simulated_provider_refunds WHERE payment_reference = $1',
      [reference],
    );
    return Number(rows[0].count);
  }

  it('move money once per key, however many calls with the key race', async () => {
    const reference = await captured();
    // Each call is a statement of its own on a connection of its own (the pool holds 12).
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => simulator.refund(reference, 'r1', '3.00', `PAR-${i}`, new Date())));
    expect(answers[0]).toMatchObject({ paymentReference: reference, refundId: 'r1', amount: '3.0000', currency: 'EUR', approved: true, providerCode: 'REFUNDED' });
    for (const answer of answers) {
      expect(answer).toEqual(answers[0]);
    }
    expect((await simulator.find(reference))!.refundedAmount).toBe('3.0000');
    expect(await storedRefunds(reference)).toBe(1);
    expect(await simulator.findRefund(reference, 'r1')).toEqual(answers[0]);
  });

  it('count each key once when keys race, up to what was captured, and answer each key\'s repeats as first answered', async () => {
    const reference = await captured();
    const refund = (key: number) => simulator.refund(reference, `r${key}`, '1.50', `PAR-${key}-${randomBytes(4).toString('hex')}`, new Date());
    const first = await Promise.all(Array.from({ length: 10 }, (_, key) => refund(key)));
    expect(first.filter((r) => r!.approved)).toHaveLength(6);
    expect(first.filter((r) => !r!.approved).map((r) => r!.providerCode)).toEqual(Array(4).fill('REFUND_EXCEEDS_CAPTURED_AMOUNT'));
    expect((await simulator.find(reference))!.refundedAmount).toBe('9.0000');
    expect(await storedRefunds(reference)).toBe(10);

    const again = await Promise.all(Array.from({ length: 10 }, (_, key) => refund(key)));
    expect(again).toEqual(first);
    expect((await simulator.find(reference))!.refundedAmount).toBe('9.0000');
    expect(await storedRefunds(reference)).toBe(10);
  });

  it('wait for a refund of the payment in progress, then decide on the payment as it left it', async () => {
    const reference = await captured();
    // A first refund, under r1, made in a transaction held open: it holds the payment's row.
    const holder = dataSource.createQueryRunner();
    await holder.connect();
    try {
      await holder.startTransaction();
      const [{ pid }]: { pid: number }[] = await holder.query('SELECT pg_backend_pid() AS pid');
      const inTransaction = SimulatedProviderRepository.over({ query: (sql: string, params?: unknown[]) => holder.query(sql, params) } as DataSource);
      const made = await inTransaction.refund(reference, 'r1', '3.00', 'PAR-FIRST', new Date());
      expect(made).toMatchObject({ approved: true, reference: 'PAR-FIRST' });

      const racing = Promise.all([
        ...Array.from({ length: 3 }, (_, i) => simulator.refund(reference, 'r1', '3.00', `PAR-R1-${i}`, new Date())),
        // Fits in what was captured unless the 3.00 above counts: it must.
        simulator.refund(reference, 'r2', '7.01', 'PAR-R2', new Date()),
        simulator.refund(reference, 'r3', '7.00', 'PAR-R3', new Date()),
      ]);
      // The first waiter waits for the holder, the others queue behind it for the row.
      await waitFor(
        async () => {
          const rows: { count: string }[] = await dataSource.query(
            `WITH RECURSIVE waiting(pid) AS (
               SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))
               UNION SELECT a.pid FROM pg_stat_activity a JOIN waiting w ON w.pid = ANY(pg_blocking_pids(a.pid))
             ) SELECT count(*) AS count FROM waiting`,
            [pid],
          );
          return Number(rows[0].count) === 5;
        },
        { what: 'the five refunds waiting for the first', timeoutMs: 4_000 },
      );
      await holder.commitTransaction();

      const [r1a, r1b, r1c, r2, r3] = await racing;
      expect([r1a, r1b, r1c]).toEqual([made, made, made]);
      expect(r2).toMatchObject({ approved: false, providerCode: 'REFUND_EXCEEDS_CAPTURED_AMOUNT' });
      expect(r3).toMatchObject({ approved: true, reference: 'PAR-R3' });
      expect((await simulator.find(reference))!.refundedAmount).toBe('10.0000');
      expect(await storedRefunds(reference)).toBe(3);
    } finally {
      if (holder.isTransactionActive) {
        await holder.rollbackTransaction();
      }
      await holder.release();
    }
  });

  it('decline a refund beyond what was captured, and answer its repeats with that decline, moving nothing', async () => {
    const reference = await captured();
    const declined = await simulator.refund(reference, 'r1', '10.01', 'PAR-1', new Date());
    expect(declined).toMatchObject({ amount: '10.0100', approved: false, providerCode: 'REFUND_EXCEEDS_CAPTURED_AMOUNT', reference: null });
    const repeats = await Promise.all(Array.from({ length: 5 }, (_, i) => simulator.refund(reference, 'r1', '10.01', `PAR-2${i}`, new Date())));
    expect(repeats).toEqual(Array(5).fill(declined));
    // Another amount under the key gets the stored refund too: the caller sees the amounts differ.
    expect(await simulator.refund(reference, 'r1', '5.00', 'PAR-3', new Date())).toEqual(declined);
    expect((await simulator.find(reference))!.refundedAmount).toBe('0.0000');
    expect(await storedRefunds(reference)).toBe(1);
  });

  it('answer a refund declined before the capture with its decline after it', async () => {
    const reference = `PA-${randomBytes(10).toString('hex').toUpperCase()}`;
    await simulator.create(
      { reference, provider: 'provider_a', operation: 'PAY', currency: 'EUR', amount: '10.00', status: 'APPROVED', capturedAmount: '0', refundedAmount: '0' },
      new Date(),
    );
    const declined = await simulator.refund(reference, 'r1', '5.00', 'PAR-1', new Date());
    expect(declined).toMatchObject({ approved: false, providerCode: 'NOTHING_CAPTURED' });
    await simulator.execute(reference, 'PAY', '10.00', new Date());
    expect(await simulator.refund(reference, 'r1', '5.00', 'PAR-2', new Date())).toEqual(declined);
    expect(await simulator.refund(reference, 'r2', '5.00', 'PAR-3', new Date())).toMatchObject({ approved: true, reference: 'PAR-3' });
    expect((await simulator.find(reference))!.refundedAmount).toBe('5.0000');
  });

  it('know no refund of a payment they do not have', async () => {
    expect(await simulator.refund('PA-NOPE', 'r1', '1.00', 'PAR-1', new Date())).toBeNull();
  });
});

describe('the simulators\' captures', () => {
  async function authorized(amount = '10.00') {
    const reference = `PA-${randomBytes(10).toString('hex').toUpperCase()}`;
    await simulator.create(
      { reference, provider: 'provider_a', operation: 'AUTHORIZE', currency: 'EUR', amount, status: 'CREATED', capturedAmount: '0', refundedAmount: '0' },
      new Date(),
    );
    await simulator.move(reference, ['CREATED'], 'APPROVED', new Date());
    await simulator.execute(reference, 'AUTHORIZE', amount, new Date());
    return reference;
  }

  async function storedCaptures(reference: string): Promise<number> {
    const rows: { count: string }[] = await dataSource.query(
      'SELECT count(*) AS count FROM browser_payment.simulated_provider_captures WHERE payment_reference = $1',
      [reference],
    );
    return Number(rows[0].count);
  }

  it('capture once per key, however many calls with the key race', async () => {
    const reference = await authorized();
    // Each call is a statement of its own on a connection of its own (the pool holds 12).
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => simulator.capture(reference, 'c1', '4.00', `PAC-${i}`, new Date())));
    expect(answers[0]).toMatchObject({ paymentReference: reference, captureId: 'c1', amount: '4.0000', currency: 'EUR', approved: true, providerCode: 'CAPTURED' });
    for (const answer of answers) {
      expect(answer).toEqual(answers[0]);
    }
    expect(await simulator.find(reference)).toMatchObject({ status: 'CAPTURED', amount: '10.0000', capturedAmount: '4.0000' });
    expect(await storedCaptures(reference)).toBe(1);
    expect(await simulator.findCapture(reference, 'c1')).toEqual(answers[0]);
  });

  it('count each key once when keys race, never beyond the authorised amount, and answer each key\'s repeats as first answered', async () => {
    const reference = await authorized();
    const capture = (key: number) => simulator.capture(reference, `c${key}`, '1.50', `PAC-${key}-${randomBytes(4).toString('hex')}`, new Date());
    const first = await Promise.all(Array.from({ length: 10 }, (_, key) => capture(key)));
    expect(first.filter((c) => c!.approved)).toHaveLength(6);
    expect(first.filter((c) => !c!.approved).map((c) => c!.providerCode)).toEqual(Array(4).fill('CAPTURE_EXCEEDS_AUTHORIZED_AMOUNT'));
    expect((await simulator.find(reference))!.capturedAmount).toBe('9.0000');

    const again = await Promise.all(Array.from({ length: 10 }, (_, key) => capture(key)));
    expect(again).toEqual(first);
    expect((await simulator.find(reference))!.capturedAmount).toBe('9.0000');
    expect(await storedCaptures(reference)).toBe(10);
  });

  it('decline a capture beyond what is left of the authorisation, and its repeats, moving nothing', async () => {
    const reference = await authorized();
    expect(await simulator.capture(reference, 'c1', '7.00', 'PAC-1', new Date())).toMatchObject({ approved: true });
    const declined = await simulator.capture(reference, 'c2', '3.01', 'PAC-2', new Date());
    expect(declined).toMatchObject({ amount: '3.0100', approved: false, providerCode: 'CAPTURE_EXCEEDS_AUTHORIZED_AMOUNT', reference: null });
    expect(await simulator.capture(reference, 'c2', '3.01', 'PAC-3', new Date())).toEqual(declined);
    // Another amount under the key gets the stored capture too: the caller sees the amounts differ.
    expect(await simulator.capture(reference, 'c2', '3.00', 'PAC-4', new Date())).toEqual(declined);
    expect((await simulator.find(reference))!.capturedAmount).toBe('7.0000');
  });

  it('capture nothing of a PAY or of an authorisation not executed, and refund only what was captured', async () => {
    const paid = `PA-${randomBytes(10).toString('hex').toUpperCase()}`;
    await simulator.create(
      { reference: paid, provider: 'provider_a', operation: 'PAY', currency: 'EUR', amount: '10.00', status: 'CREATED', capturedAmount: '0', refundedAmount: '0' },
      new Date(),
    );
    await simulator.move(paid, ['CREATED'], 'APPROVED', new Date());
    expect(await simulator.capture(paid, 'c1', '1.00', 'PAC-1', new Date())).toMatchObject({ approved: false, providerCode: 'NOT_AUTHORIZED' });
    await simulator.execute(paid, 'PAY', '10.00', new Date());
    expect(await simulator.capture(paid, 'c2', '1.00', 'PAC-2', new Date())).toMatchObject({ approved: false, providerCode: 'NOT_AUTHORIZED' });
    expect((await simulator.find(paid))!.capturedAmount).toBe('10.0000');

    const reference = await authorized();
    expect(await simulator.refund(reference, 'r1', '1.00', 'PAR-1', new Date())).toMatchObject({ approved: false, providerCode: 'NOTHING_CAPTURED' });
    await simulator.capture(reference, 'c1', '4.00', 'PAC-3', new Date());
    expect(await simulator.refund(reference, 'r2', '4.01', 'PAR-2', new Date())).toMatchObject({ approved: false, providerCode: 'REFUND_EXCEEDS_CAPTURED_AMOUNT' });
    expect(await simulator.refund(reference, 'r3', '4.00', 'PAR-3', new Date())).toMatchObject({ approved: true });
  });

  it('void an authorisation only while nothing of it is captured: a void and a capture racing, one of them wins', async () => {
    for (let round = 0; round < 5; round += 1) {
      const reference = await authorized();
      const [voided, captured] = await Promise.all([
        simulator.voidAuthorization(reference, new Date()),
        simulator.capture(reference, 'c1', '2.00', `PAC-${round}`, new Date()),
      ]);
      const row = (await simulator.find(reference))!;
      if (voided) {
        expect([row.status, row.capturedAmount, captured!.providerCode]).toEqual(['VOIDED', '0.0000', 'NOT_AUTHORIZED']);
      } else {
        expect([row.status, row.capturedAmount, captured!.providerCode]).toEqual(['CAPTURED', '2.0000', 'CAPTURED']);
      }
      expect(await simulator.voidAuthorization(reference, new Date())).toBeNull();
      // Nor does the reversal of an execution the ledger refused take back a capture.
      if (!voided) {
        expect(await simulator.void(reference, new Date())).toBeNull();
      }
    }
  });
});
