import { randomBytes } from 'node:crypto';
import { GatewayError, JsonObject, MerchantContext, SUBJECTS } from '@gateway/contracts';
import { CompletionAfterResolution, RecordOperation, ReleaseReservation, ReleaseReservationCommand } from '@gateway/order-transaction/domain';
import { standaloneBus } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY, testRequestHasher } from '@gateway/testing';
import {
  LedgerTestApp,
  newOrderId,
  operation,
  OperationSpec,
  recordMessage,
  startLedgerTestApp,
  statementsOf,
  testMerchant,
  txn,
} from './testing/ledger-test-app';

/**
 * A released reservation (docs/decisions/refund-reservation.md) leaves the order as it was
 * before the reservation: the merchant was told nothing was created. Real handlers, real Postgres.
 */
let app: LedgerTestApp;

beforeAll(async () => {
  app = await startLedgerTestApp();
});

afterAll(async () => {
  await app?.running.shutdown('tests done');
});

function releaseOf(spec: OperationSpec): ReleaseReservationCommand {
  return {
    merchantId: spec.merchant.id,
    orderId: spec.orderId,
    transactionId: spec.transactionId,
    apiOperation: spec.apiOperation,
    requestHash: testRequestHasher().hash(spec.request),
    fencingToken: '1000',
  };
}

/** Every column of the order row, as Postgres holds it. */
async function orderRow(merchant: MerchantContext, orderId: string): Promise<Record<string, unknown> | undefined> {
  const rows = await app.dataSource.query(
    `SELECT currency, amount::text AS amount, status, total_authorized_amount::text AS authorized,
            total_captured_amount::text AS captured, total_refunded_amount::text AS refunded, details,
            notification_url AS "notificationUrl", last_fencing_token::text AS "lastFencingToken",
            operation_count AS "operationCount", created_at AS "createdAt", updated_at AS "updatedAt"
       FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2`,
    [merchant.id, orderId],
  );
  return rows[0];
}

/** The order's transactions and stored responses, with their sequences. */
async function contentsOf(merchant: MerchantContext, orderId: string) {
  const [row] = await app.dataSource.query(
    `SELECT (SELECT json_agg(json_build_object('id', transaction_id, 'sequence', sequence, 'result', result) ORDER BY sequence)
               FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2) AS transactions,
            (SELECT json_agg(json_build_object('id', transaction_id, 'operation', api_operation, 'sequence', sequence) ORDER BY sequence)
               FROM order_transaction.operation_responses WHERE merchant_id = $1 AND order_id = $2) AS responses`,
    [merchant.id, orderId],
  );
  return row as { transactions: JsonObject[] | null; responses: JsonObject[] | null };
}

/** A little later than the last write, so a time the release failed to restore shows. */
const later = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('a released reservation', () => {
  it('leaves the order as it was: amount, details, notification URL, totals, count and last update', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const records = app.running.app.get(RecordOperation);
    const release = app.running.app.get(ReleaseReservation);
    await records.execute({
      ...recordMessage(operation(merchant, orderId, 'pay-1', 'PAY'), {
        transaction: txn('PAYMENT', '100.00', 'FAILURE'),
        order: {
          currency: 'USD',
          amount: '100.00',
          details: { billing: { address: { city: 'Leeds' } }, customer: { email: 'old@example.com' } },
          notificationUrl: 'https://merchant.example/old',
        },
      }),
      newOrder: true,
    });
    const before = await orderRow(merchant, orderId);
    const contentsBefore = await contentsOf(merchant, orderId);
    await later();

    // The retry: more money, new billing and customer, a new notification URL.
    const retry = operation(merchant, orderId, 'pay-2', 'PAY', { order: { amount: 250 } });
    const reserved = await records.execute(
      recordMessage(retry, {
        transaction: txn('PAYMENT', '250.00', 'PENDING'),
        order: {
          currency: 'USD',
          amount: '250.00',
          details: { billing: { address: { city: 'York' } }, customer: { email: 'new@example.com' }, shipping: { method: 'SAME_DAY' } },
          notificationUrl: 'https://merchant.example/new',
        },
      }),
      'RESERVE',
    );
    expect(reserved.body).toMatchObject({ result: 'PENDING', transaction: { id: 'pay-2', amount: 250 } });
    await later();
    await release.execute(releaseOf(retry));

    expect(await orderRow(merchant, orderId)).toEqual(before);
    expect(await contentsOf(merchant, orderId)).toEqual(contentsBefore);
    // The same transaction id may be used again, and numbers on from where the order was.
    const again = await records.execute(recordMessage(retry, { transaction: txn('PAYMENT', '250.00', 'SUCCESS') }));
    expect(again.body).toMatchObject({ result: 'SUCCESS', order: { amount: 100, status: 'CAPTURED' } });
    expect((await contentsOf(merchant, orderId)).transactions).toEqual([
      { id: 'pay-1', sequence: 1, result: 'FAILURE' },
      { id: 'pay-2', sequence: 2, result: 'SUCCESS' },
    ]);
  });

  it('keeps what another record wrote on the order between the reservation and the release', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const records = app.running.app.get(RecordOperation);
    const release = app.running.app.get(ReleaseReservation);
    await records.execute({
      ...recordMessage(operation(merchant, orderId, 'pay', 'PAY'), {
        transaction: txn('PAYMENT', '100.00', 'SUCCESS'),
        order: { currency: 'USD', details: { customer: { email: 'first@example.com' } }, notificationUrl: 'https://merchant.example/first' },
      }),
      newOrder: true,
    });
    const reservation = operation(merchant, orderId, 'r1', 'REFUND');
    await records.execute(
      recordMessage(reservation, {
        transaction: txn('REFUND', '30.00', 'PENDING', { targetTransactionId: 'pay' }),
        order: { currency: 'USD', details: { customer: { email: 'reserved@example.com' } }, notificationUrl: 'https://merchant.example/reserved' },
      }),
      'RESERVE',
    );
    await later();
    // Another refund, without the order lock (Redis lost), while the first one's call is out.
    const other = await records.execute(
      recordMessage(operation(merchant, orderId, 'r2', 'REFUND'), {
        transaction: txn('REFUND', '10.00', 'SUCCESS', { targetTransactionId: 'pay' }),
        order: { currency: 'USD', details: { shipping: { method: 'PICKUP' } } },
      }),
    );
    const afterOther = await orderRow(merchant, orderId);
    await later();
    await release.execute(releaseOf(reservation));

    expect(await orderRow(merchant, orderId)).toEqual({
      ...afterOther,
      status: 'PARTIALLY_REFUNDED',
      refunded: '10.0000',
      // The other record's, on the order without the reservation's request.
      details: { customer: { email: 'first@example.com' }, shipping: { method: 'PICKUP' } },
      notificationUrl: 'https://merchant.example/first',
      operationCount: 3,
      updatedAt: new Date(other.body.timeOfRecord as string),
    });
    expect((await contentsOf(merchant, orderId)).transactions).toEqual([
      { id: 'pay', sequence: 1, result: 'SUCCESS' },
      { id: 'r2', sequence: 3, result: 'SUCCESS' },
    ]);
    // The next record numbers after the other one's (sequences are unique per order).
    await records.execute(recordMessage(operation(merchant, orderId, 'r3', 'REFUND'), { transaction: txn('REFUND', '1.00', 'SUCCESS', { targetTransactionId: 'pay' }) }));
    expect((await contentsOf(merchant, orderId)).responses?.map((r) => r.sequence)).toEqual([1, 3, 4]);
  });

  it('deletes the order it opened, and is one locking read and one write', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const records = app.running.app.get(RecordOperation);
    const release = app.running.app.get(ReleaseReservation);
    const reservation = operation(merchant, orderId, 'r1', 'REFUND');
    await records.execute(
      { ...recordMessage(reservation, { transaction: txn('REFUND', '5.00', 'PENDING', { fundingType: 'CARD' }) }), newOrder: true },
      'RESERVE',
    );
    const sent = await statementsOf(() => release.execute(releaseOf(reservation)));
    expect(sent.map((sql) => sql.trim().split(/\s+/)[0])).toEqual(['START', 'SELECT', 'WITH', 'COMMIT']);
    expect(await orderRow(merchant, orderId)).toBeUndefined();
    expect(await contentsOf(merchant, orderId)).toEqual({ transactions: null, responses: null });
  });

  it('restores the order in the same one write when others remain', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const records = app.running.app.get(RecordOperation);
    const release = app.running.app.get(ReleaseReservation);
    await records.execute({ ...recordMessage(operation(merchant, orderId, 'pay', 'PAY'), { transaction: txn('PAYMENT', '100.00', 'SUCCESS') }), newOrder: true });
    const reservation = operation(merchant, orderId, 'r1', 'REFUND');
    await records.execute(recordMessage(reservation, { transaction: txn('REFUND', '5.00', 'PENDING', { targetTransactionId: 'pay' }) }), 'RESERVE');
    const sent = await statementsOf(() => release.execute(releaseOf(reservation)));
    expect(sent.map((sql) => sql.trim().split(/\s+/)[0])).toEqual(['START', 'SELECT', 'WITH', 'COMMIT']);
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'CAPTURED', refunded: '0.0000', operationCount: 1 });
  });
});

describe('what a release may undo', () => {
  it('only a PENDING reservation of the same request: another request\'s, or a completed one, stays as it is', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const records = app.running.app.get(RecordOperation);
    const release = app.running.app.get(ReleaseReservation);
    await records.execute({ ...recordMessage(operation(merchant, orderId, 'pay', 'PAY'), { transaction: txn('PAYMENT', '100.00', 'SUCCESS') }), newOrder: true });
    const reservation = operation(merchant, orderId, 'r1', 'REFUND', { transaction: { amount: '5.00' } });
    const reserved = await records.execute(
      recordMessage(reservation, { transaction: txn('REFUND', '5.00', 'PENDING', { targetTransactionId: 'pay' }) }),
      'RESERVE',
    );
    const contents = await contentsOf(merchant, orderId);
    const another = operation(merchant, orderId, 'r1', 'REFUND', { transaction: { amount: '6.00' } });
    await expect(release.execute(releaseOf(another))).rejects.toThrow(/no reservation of REFUND .* to release/);
    expect(await contentsOf(merchant, orderId)).toEqual(contents);

    // Completed: its money moved, and a late release must not erase it.
    await records.execute(
      { ...recordMessage(reservation, { transaction: txn('REFUND', '5.00', 'SUCCESS', { targetTransactionId: 'pay' }) }), mode: 'UPDATE' },
      'COMPLETE',
      reserved.written,
    );
    const completed = await contentsOf(merchant, orderId);
    await expect(release.execute(releaseOf(reservation))).rejects.toThrow(/no reservation of REFUND .* to release/);
    expect(await contentsOf(merchant, orderId)).toEqual(completed);
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded: '5.0000' });
  });

  it('never moves the order\'s fencing token back', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const records = app.running.app.get(RecordOperation);
    const release = app.running.app.get(ReleaseReservation);
    await records.execute({ ...recordMessage(operation(merchant, orderId, 'pay', 'PAY'), { transaction: txn('PAYMENT', '100.00', 'SUCCESS') }), newOrder: true });
    const reservation = { ...operation(merchant, orderId, 'r1', 'REFUND'), fencingToken: '2000' };
    await records.execute(recordMessage(reservation, { transaction: txn('REFUND', '5.00', 'PENDING', { targetTransactionId: 'pay' }) }), 'RESERVE');
    // A newer holder of the order's lock records meanwhile (the reservation's lease lapsed).
    const newer = { ...operation(merchant, orderId, 'r2', 'REFUND'), fencingToken: '3000' };
    await records.execute(recordMessage(newer, { transaction: txn('REFUND', '1.00', 'SUCCESS', { targetTransactionId: 'pay' }) }));
    await release.execute({ ...releaseOf(reservation), fencingToken: '2000' });

    expect(await orderRow(merchant, orderId)).toMatchObject({ lastFencingToken: '3000', refunded: '1.0000' });
    const stale = { ...operation(merchant, orderId, 'r3', 'REFUND'), fencingToken: '2000' };
    await expect(
      records.execute(recordMessage(stale, { transaction: txn('REFUND', '1.00', 'SUCCESS', { targetTransactionId: 'pay' }) })),
    ).rejects.toMatchObject({ code: 'ORDER_LOCK_LOST' });
  });
});

describe('a completed reservation', () => {
  it('writes the order fields its request carried, which the reservation left as they were', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const records = app.running.app.get(RecordOperation);
    await records.execute({
      ...recordMessage(operation(merchant, orderId, 'pay-1', 'PAY'), {
        transaction: txn('PAYMENT', '100.00', 'FAILURE'),
        order: { currency: 'USD', amount: '100.00', details: { customer: { email: 'old@example.com' } }, notificationUrl: 'https://merchant.example/old' },
      }),
      newOrder: true,
    });
    const retry = operation(merchant, orderId, 'pay-2', 'PAY');
    const order = { currency: 'USD', amount: '250.00', details: { billing: { address: { city: 'York' } } }, notificationUrl: 'https://merchant.example/new' };
    const reserved = await records.execute(recordMessage(retry, { transaction: txn('PAYMENT', '250.00', 'PENDING'), order }), 'RESERVE');
    expect(await orderRow(merchant, orderId)).toMatchObject({ amount: '100.0000', notificationUrl: 'https://merchant.example/old' });
    const completed = await records.execute(
      { ...recordMessage(retry, { transaction: txn('PAYMENT', '250.00', 'SUCCESS'), order }), mode: 'UPDATE' },
      'COMPLETE',
      reserved.written,
    );
    expect(completed.body).toMatchObject({ result: 'SUCCESS', order: { amount: 250, status: 'CAPTURED' } });
    expect(await orderRow(merchant, orderId)).toMatchObject({
      amount: '250.0000',
      details: { customer: { email: 'old@example.com' }, billing: { address: { city: 'York' } } },
      notificationUrl: 'https://merchant.example/new',
      operationCount: 3,
    });
  });
});

describe('a completion retried after its answer was lost', () => {
  it('answers the stored response of the completion that landed, and writes nothing more', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const records = app.running.app.get(RecordOperation);
    const pay = operation(merchant, orderId, 'pay-1', 'PAY');
    const order = { currency: 'USD', amount: '40.00' };
    const reserved = await records.execute({ ...recordMessage(pay, { transaction: txn('PAYMENT', '40.00', 'PENDING'), order }), newOrder: true }, 'RESERVE');
    const completion = { ...recordMessage(pay, { transaction: txn('PAYMENT', '40.00', 'SUCCESS'), order }), mode: 'UPDATE' as const };
    const first = await records.execute(completion, 'COMPLETE', reserved.written);
    const before = await orderRow(merchant, orderId);
    // The retry: the first attempt committed, its reply never came back.
    const retried = await records.execute(completion, 'COMPLETE');
    expect(retried.body).toEqual(first.body);
    expect(retried.replayed).toBe(true);
    expect(await orderRow(merchant, orderId)).toEqual(before);
    // Another outcome is no retry of the one recorded: still an error to reconcile, saying what disagrees.
    const declined = { ...completion, transaction: txn('PAYMENT', '40.00', 'FAILURE') };
    const refused = records.execute(declined, 'COMPLETE');
    await expect(refused).rejects.toBeInstanceOf(CompletionAfterResolution);
    await expect(refused).rejects.toMatchObject({ recorded: { result: 'SUCCESS', gatewayCode: 'APPROVED' } });
    await expect(refused).rejects.toThrow(/no reservation of PAY .* to complete/);
  });
});

describe('a PAY whose token the vault refuses (token-vault.acquirer.call.v1 answers 400)', () => {
  afterEach(() => standaloneBus.unregister(SUBJECTS.tokenVault.acquirerCall));

  it('answers the 400 and leaves the order as it was, new amount, billing, customer and notification URL included', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const pay = (transactionId: string, body: JsonObject) =>
      app.operate({
        envelope: { merchant, apiVersion: 100, requestId: `req-${randomBytes(4).toString('hex')}`, authMethod: 'PASSWORD', fencingToken: '1000' },
        apiOperation: 'PAY',
        orderId,
        transactionId,
        body: { apiOperation: 'PAY', ...body },
      });
    const declined = await pay('pay-1', {
      order: { amount: '100.00', currency: 'USD', notificationUrl: 'https://merchant.example/old' },
      customer: { email: 'old@example.com' },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.DECLINED } } },
    });
    expect(declined.body).toMatchObject({ result: 'FAILURE' });
    const before = await orderRow(merchant, orderId);
    await later();

    standaloneBus.register(SUBJECTS.tokenVault.acquirerCall, async () => {
      throw GatewayError.invalidField('sourceOfFunds.token', 'INVALID', "Value '9999999999999999' is invalid. No such token.").toWire();
    });
    const refused = await pay('pay-2', {
      order: { amount: '250.00', currency: 'USD', notificationUrl: 'https://merchant.example/new' },
      billing: { address: { city: 'York', country: 'GBR' } },
      customer: { email: 'new@example.com' },
      sourceOfFunds: { token: '9999999999999999' },
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toMatchObject({ field: 'sourceOfFunds.token', httpStatus: 400 });
    expect(await orderRow(merchant, orderId)).toEqual(before);
  });

  it('retries a release whose first write fails (a dropped connection): the 400 answered, nothing left PENDING', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    standaloneBus.register(SUBJECTS.tokenVault.acquirerCall, async () => {
      throw GatewayError.invalidField('sourceOfFunds.token', 'INVALID', "Value '9999999999999999' is invalid. No such token.").toWire();
    });
    const release = jest.spyOn(app.running.app.get(ReleaseReservation), 'execute').mockRejectedValueOnce(new Error('Connection terminated unexpectedly'));
    try {
      const refused = await app
        .operate({
          envelope: { merchant, apiVersion: 100, requestId: `req-${randomBytes(4).toString('hex')}`, authMethod: 'PASSWORD', fencingToken: '1000' },
          apiOperation: 'PAY',
          orderId,
          transactionId: 'pay-1',
          body: { apiOperation: 'PAY', order: { amount: '25.00', currency: 'USD' }, sourceOfFunds: { token: '9999999999999999' } },
        })
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      expect(refused).toMatchObject({ field: 'sourceOfFunds.token', httpStatus: 400 });
      expect(release).toHaveBeenCalledTimes(2);
      // Released on the second attempt: the order the reservation opened is gone, the id free again.
      expect(await orderRow(merchant, orderId)).toBeUndefined();
    } finally {
      release.mockRestore();
    }
  });
});
