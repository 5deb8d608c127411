import { GatewayError, JsonObject, MerchantContext, RecordOperationMessage } from '@gateway/contracts';
import { LedgerRepository, LockedOrder, SeenOrder, TargetQuery, UnknownInquiries } from '@gateway/order-transaction/data-access';
import Decimal from 'decimal.js';
import { LedgerEvents, OrderRecordedEvent, RecordOperation } from '@gateway/order-transaction/domain';
import { APP_LOGGER } from '@gateway/platform';
import { TEST_CARD } from '@gateway/testing';
import {
  beginMessage,
  LedgerTestApp,
  newOrderId,
  operation,
  recordMessage,
  startLedgerTestApp,
  statementsOf,
  testMerchant,
  txn,
} from './testing/ledger-test-app';

/**
 * The ledger protocol end to end inside order-transaction: real handlers on the in-process
 * bus (payloads copied through JSON as on the wire), real Postgres.
 */
let ledger: LedgerTestApp;

beforeAll(async () => {
  ledger = await startLedgerTestApp();
});

afterAll(async () => {
  await ledger?.running.shutdown('tests done');
});

type Txn = RecordOperationMessage['transaction'];

async function rejection(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    return err as GatewayError;
  }
  throw new Error('expected the ledger to refuse');
}

async function orderRow(merchant: MerchantContext, orderId: string) {
  const rows = await ledger.dataSource.query(
    `SELECT status, total_authorized_amount::text AS authorized, total_captured_amount::text AS captured,
            total_refunded_amount::text AS refunded, operation_count AS "operationCount",
            last_fencing_token::text AS "lastFencingToken", updated_at AS "updatedAt", amount::text AS amount
       FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2`,
    [merchant.id, orderId],
  );
  return rows[0];
}

async function counts(merchant: MerchantContext, orderId: string) {
  const [row] = await ledger.dataSource.query(
    `SELECT (SELECT count(*)::int FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2) AS transactions,
            (SELECT count(*)::int FROM order_transaction.operation_responses WHERE merchant_id = $1 AND order_id = $2) AS responses`,
    [merchant.id, orderId],
  );
  return row as { transactions: number; responses: number };
}

describe('a recorded transaction\'s tax (amount-consistency-rules.md, amendment 2026-11-26)', () => {
  it('is refused beyond the transaction\'s amount, whoever records it: 400 on transaction.taxAmount, nothing recorded', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const pay = operation(merchant, orderId, 'p1', 'PAY');
    const refused = await rejection(ledger.record(recordMessage(pay, { transaction: { ...txn('PAYMENT', '1.00'), taxAmount: '1000000000000' } })));
    expect(refused).toMatchObject({ field: 'transaction.taxAmount', validationType: 'INVALID' });
    expect(await counts(merchant, orderId)).toEqual({ transactions: 0, responses: 0 });
    await ledger.record(recordMessage(pay, { transaction: { ...txn('PAYMENT', '1.00'), taxAmount: '1.00' } }));
    expect(await counts(merchant, orderId)).toEqual({ transactions: 1, responses: 1 });
  });
});

describe('begin and record of a VERIFY on a new order', () => {
  it('begins with PROCEED and no order, records a VERIFIED order and completes the order group', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const verify = operation(merchant, orderId, 'verify-1', 'VERIFY', { order: { currency: 'USD' } });

    expect(await ledger.begin(beginMessage(verify))).toEqual({ outcome: 'PROCEED', order: null });
    const { body } = await ledger.record(
      recordMessage(verify, {
        transaction: txn('VERIFICATION', '0.00'),
        order: { currency: 'USD', details: { reference: 'cart-7' } },
        response: { sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008' } } } },
      }),
    );

    expect(body).toMatchObject({
      order: {
        id: orderId,
        amount: 0,
        currency: 'USD',
        status: 'VERIFIED',
        totalAuthorizedAmount: 0,
        totalCapturedAmount: 0,
        totalRefundedAmount: 0,
      },
      result: 'SUCCESS',
      response: { gatewayCode: 'APPROVED' },
      transaction: { id: 'verify-1', type: 'VERIFICATION', amount: 0, currency: 'USD' },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008' } } },
    });
    const order = body.order as JsonObject;
    expect(order.creationTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(order.lastUpdatedTime).toBe(order.creationTime);
    expect(body.timeOfRecord).toBe(order.creationTime);
    expect(await counts(merchant, orderId)).toEqual({ transactions: 1, responses: 1 });
  });

  it('proceeds on an existing order with the order as the ledger knows it', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await ledger.record(recordMessage(operation(merchant, orderId, 'auth', 'AUTHORIZE'), { transaction: txn('AUTHORIZATION', '10.50') }));

    const reply = await ledger.begin(beginMessage(operation(merchant, orderId, 'capture', 'CAPTURE')));
    expect(reply).toMatchObject({
      outcome: 'PROCEED',
      order: {
        id: orderId,
        currency: 'USD',
        amount: '10.50',
        status: 'AUTHORIZED',
        totalAuthorizedAmount: '10.50',
        totalCapturedAmount: '0.00',
        totalRefundedAmount: '0.00',
        transactions: [
          { id: 'auth', type: 'AUTHORIZATION', apiOperation: 'AUTHORIZE', amount: '10.50', currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED' },
        ],
      },
    });
  });
});

describe('replays', () => {
  it.each(['SUCCESS', 'FAILURE'] as const)(
    'answer a repeated %s operation with the identical stored body and write nothing',
    async (result) => {
      const merchant = testMerchant();
      const orderId = newOrderId();
      const verify = operation(merchant, orderId, 'v1', 'VERIFY', { sourceOfFunds: { type: 'CARD' } });
      const first = await ledger.record(recordMessage(verify, { transaction: txn('VERIFICATION', '0.00', result) }));
      const before = await orderRow(merchant, orderId);

      expect(await ledger.begin(beginMessage(verify))).toEqual({ outcome: 'REPLAY', body: first.body });
      // The same request with its keys in another order and another correlationId is the same request.
      const reordered = { ...verify, request: { correlationId: 'retry-2', sourceOfFunds: { type: 'CARD' }, apiOperation: 'VERIFY' } };
      expect(await ledger.begin(beginMessage(reordered))).toEqual({ outcome: 'REPLAY', body: first.body });
      // A record that races a replay gets the stored body too, and writes nothing.
      const again = await ledger.record(recordMessage(verify, { transaction: txn('VERIFICATION', '0.00', 'SUCCESS') }));
      expect(again.body).toEqual(first.body);

      expect(await orderRow(merchant, orderId)).toEqual(before);
      expect(await counts(merchant, orderId)).toEqual({ transactions: 1, responses: 1 });
    },
  );

  it('refuse the same transaction id and operation with a different body (400)', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const capture = operation(merchant, orderId, 'c1', 'PAY', { transaction: { amount: '10.00' } });
    await ledger.record(recordMessage(capture, { transaction: txn('PAYMENT', '10.00') }));
    const changed = { ...capture, request: { apiOperation: 'PAY', transaction: { amount: '11.00' } } };

    const atBegin = await rejection(ledger.begin(beginMessage(changed)));
    expect(atBegin.code).toBe('INVALID_REQUEST');
    expect(atBegin.httpStatus).toBe(400);
    expect(atBegin.explanation).toMatch(/already processed with different values/);
    const atRecord = await rejection(ledger.record(recordMessage(changed, { transaction: txn('PAYMENT', '11.00') })));
    expect(atRecord.code).toBe('INVALID_REQUEST');
    expect((await orderRow(merchant, orderId)).captured).toBe('10.0000');
  });
});

describe('transaction ids', () => {
  it('refuse an id already used on the order by another operation (400 on transactionid)', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await ledger.record(recordMessage(operation(merchant, orderId, 't1', 'VERIFY'), { transaction: txn('VERIFICATION', '0') }));
    const refund = operation(merchant, orderId, 't1', 'REFUND', { transaction: { amount: '1.00' } });

    const atBegin = await rejection(ledger.begin(beginMessage(refund)));
    expect(atBegin.toResponseBody()).toEqual({
      error: {
        cause: 'INVALID_REQUEST',
        explanation: "Value 't1' is invalid. The transaction id is already used on this order by another operation.",
        field: 'transactionid',
        validationType: 'INVALID',
      },
      result: 'ERROR',
    });
    const atRecord = await rejection(ledger.record(recordMessage(refund, { transaction: txn('REFUND', '1.00') })));
    expect(atRecord.field).toBe('transactionid');
    expect(await counts(merchant, orderId)).toEqual({ transactions: 1, responses: 1 });
  });

  it('let CONFIRM_BROWSER_PAYMENT address its initiate\'s transaction', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await ledger.record(
      recordMessage(operation(merchant, orderId, 'bp', 'INITIATE_BROWSER_PAYMENT'), { transaction: txn('PAYMENT', '5.00', 'PENDING') }),
    );
    const reply = await ledger.begin(beginMessage(operation(merchant, orderId, 'bp', 'CONFIRM_BROWSER_PAYMENT'), true));
    expect(reply).toMatchObject({ outcome: 'PROCEED', order: { status: 'INITIATED', transactions: [{ id: 'bp', result: 'PENDING' }] } });
  });

  it('refuse an UPDATE that would change the type of the transaction it completes', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await ledger.record(recordMessage(operation(merchant, orderId, 'pay', 'PAY'), { transaction: txn('PAYMENT', '50.00') }));
    await ledger.record(
      recordMessage(operation(merchant, orderId, 'bp', 'INITIATE_BROWSER_PAYMENT'), { transaction: txn('PAYMENT', '5.00', 'PENDING') }),
    );
    const confirm = operation(merchant, orderId, 'bp', 'CONFIRM_BROWSER_PAYMENT');
    await expect(ledger.record(recordMessage(confirm, { mode: 'UPDATE', transaction: txn('REFUND', '5.00') }))).rejects.toThrow();
    const types = await ledger.dataSource.query(
      `SELECT transaction_id AS id, type, result FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2 ORDER BY sequence`,
      [merchant.id, orderId],
    );
    expect(types).toEqual([
      { id: 'pay', type: 'PAYMENT', result: 'SUCCESS' },
      { id: 'bp', type: 'PAYMENT', result: 'PENDING' },
    ]);
  });

  it('refuse an UPDATE of a transaction the order does not have', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const update = operation(merchant, orderId, 'nope', 'CONFIRM_BROWSER_PAYMENT');
    const onNewOrder = await rejection(ledger.record(recordMessage(update, { mode: 'UPDATE', transaction: txn('PAYMENT', '1.00') })));
    expect(onNewOrder.field).toBe('transactionid');
    expect(await orderRow(merchant, orderId)).toBeUndefined();
  });
});

describe('an UPDATE continues only an open transaction of the operation it names', () => {
  const statesOf = (merchant: ReturnType<typeof testMerchant>, orderId: string) =>
    ledger.dataSource.query(
      `SELECT transaction_id AS id, result, gateway_code AS "gatewayCode" FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2 ORDER BY sequence`,
      [merchant.id, orderId],
    );

  it("refuses a browser payment's step on a transaction a card PAY created under the same id (400 on transactionid), writing nothing", async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await ledger.record(recordMessage(operation(merchant, orderId, 'bp-2', 'PAY'), { transaction: txn('PAYMENT', '30.00') }));
    const timedOut = operation(merchant, orderId, 'bp-2', 'BROWSER_PAYMENT_TIMED_OUT');
    const refused = await rejection(
      ledger.record(
        recordMessage(timedOut, { mode: 'UPDATE', updates: 'INITIATE_BROWSER_PAYMENT', transaction: txn('PAYMENT', '30.00', 'FAILURE', { gatewayCode: 'TIMED_OUT' }) }),
      ),
    );
    expect(refused.field).toBe('transactionid');
    expect(await statesOf(merchant, orderId)).toEqual([{ id: 'bp-2', result: 'SUCCESS', gatewayCode: 'APPROVED' }]);
    expect(await counts(merchant, orderId)).toEqual({ transactions: 1, responses: 1 });
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'CAPTURED', captured: '30.0000' });
  });

  it('refuses a step on a transaction that is already complete (400), writing nothing', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const step = (apiOperation: string, result: 'PENDING' | 'SUCCESS' | 'FAILURE', gatewayCode: string) =>
      ledger.record(
        recordMessage(operation(merchant, orderId, 'bp-1', apiOperation), {
          mode: apiOperation === 'INITIATE_BROWSER_PAYMENT' ? 'CREATE' : 'UPDATE',
          ...(apiOperation === 'INITIATE_BROWSER_PAYMENT' ? {} : { updates: 'INITIATE_BROWSER_PAYMENT' }),
          transaction: txn('PAYMENT', '20.00', result, { fundingType: 'PROVIDER_A', gatewayCode }),
        }),
      );
    await step('INITIATE_BROWSER_PAYMENT', 'PENDING', 'SUBMITTED');
    await step('BROWSER_PAYMENT_COMPLETED', 'SUCCESS', 'APPROVED');
    const refused = await rejection(step('BROWSER_PAYMENT_TIMED_OUT', 'FAILURE', 'TIMED_OUT'));
    expect(refused.code).toBe('INVALID_REQUEST');
    expect(await statesOf(merchant, orderId)).toEqual([{ id: 'bp-1', result: 'SUCCESS', gatewayCode: 'APPROVED' }]);
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'CAPTURED', captured: '20.0000' });
  });
});

describe('an UPDATE never makes a card transaction a reservation again (assertNotReservedAgain)', () => {
  const states = (merchant: MerchantContext, orderId: string) =>
    ledger.dataSource.query(
      `SELECT transaction_id AS id, result, gateway_code AS "gatewayCode", updated_at AS "updatedAt" FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2`,
      [merchant.id, orderId],
    );

  it.each([
    ['a card reservation (PENDING, PENDING)', 'PENDING'],
    ['a card transaction answered UNKNOWN', 'UNKNOWN'],
  ] as const)('refuses the UPDATE of %s back to a reservation, writing nothing: the sweep reads reservations by their creation', async (_what, result) => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const records = ledger.running.app.get(RecordOperation);
    const pay = operation(merchant, orderId, 'p1', 'PAY');
    const reserved = txn('PAYMENT', '30.00', result, { gatewayCode: result === 'PENDING' ? 'PENDING' : 'UNKNOWN', fundingType: 'CARD' });
    await records.execute({ ...recordMessage(pay, { transaction: reserved }), newOrder: true }, result === 'PENDING' ? 'RESERVE' : 'RECORD');
    const before = await states(merchant, orderId);
    const again = txn('PAYMENT', '30.00', 'PENDING', { gatewayCode: 'PENDING', fundingType: 'CARD' });
    await expect(
      result === 'PENDING'
        ? records.execute(recordMessage(pay, { mode: 'UPDATE', transaction: again }), 'COMPLETE')
        : // Another operation's UPDATE of it (no caller sends one): a new request, not a replay of the PAY.
          records.execute(recordMessage(operation(merchant, orderId, 'p1', 'RESERVE_AGAIN'), { mode: 'UPDATE', updates: 'PAY', transaction: again })),
    ).rejects.toThrow('a ledger UPDATE may not make card transaction p1 a reservation (PENDING) again');
    expect(await states(merchant, orderId)).toEqual(before);
  });

  it.each([
    ["a browser payment's step (PROVIDER_* funding: its provider's PENDING)", { gatewayCode: 'PENDING', fundingType: 'PROVIDER_A' }],
    ['a card transaction left PENDING with an acquirer\'s code (SUBMITTED)', { gatewayCode: 'SUBMITTED', fundingType: 'CARD' }],
  ] as const)('lets an UPDATE leave %s PENDING', async (_what, recorded) => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const records = ledger.running.app.get(RecordOperation);
    const pay = operation(merchant, orderId, 'p1', 'PAY');
    await records.execute({ ...recordMessage(pay, { transaction: txn('PAYMENT', '30.00', 'PENDING', recorded) }), newOrder: true });
    await records.execute(recordMessage(pay, { mode: 'UPDATE', transaction: txn('PAYMENT', '30.00', 'PENDING', recorded) }), 'COMPLETE');
    expect(await states(merchant, orderId)).toEqual([expect.objectContaining({ id: 'p1', result: 'PENDING', gatewayCode: recorded.gatewayCode })]);
  });
});

describe('fencing tokens', () => {
  it('refuse a begin or record carrying a token older than the order\'s last one, and nothing is written', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const at = (token: string, transactionId: string) => ({ ...operation(merchant, orderId, transactionId, 'PAY'), fencingToken: token });
    await ledger.record(recordMessage(at('1700000000000002', 'p1'), { transaction: txn('PAYMENT', '1.00') }));

    const staleBegin = await rejection(ledger.begin(beginMessage(at('1700000000000001', 'p2'))));
    expect(staleBegin.code).toBe('ORDER_LOCK_LOST');
    // Begin comes before any acquirer call, and says so across the wire (security-code-used-once.md,
    // amendment 2026-11-27); a record may come after one (a VERIFY's), and does not.
    expect(staleBegin.beforeAnyAcquirer).toBe(true);
    const staleRecord = await rejection(ledger.record(recordMessage(at('1700000000000001', 'p2'), { transaction: txn('PAYMENT', '1.00') })));
    expect(staleRecord.code).toBe('ORDER_LOCK_LOST');
    expect(staleRecord.beforeAnyAcquirer).toBeUndefined();
    expect(await counts(merchant, orderId)).toEqual({ transactions: 1, responses: 1 });

    // The same token again (one lease, two steps) and newer ones are fine; the newest is kept.
    await ledger.record(recordMessage(at('1700000000000002', 'p2'), { transaction: txn('PAYMENT', '1.00') }));
    await ledger.record(recordMessage(at('1700000000000009', 'p3'), { transaction: txn('PAYMENT', '1.00') }));
    expect((await orderRow(merchant, orderId)).lastFencingToken).toBe('1700000000000009');
  });

  it('treat a ledger message without a fencing token as a fault between processes (SERVER_FAILED)', async () => {
    const merchant = testMerchant();
    const message = beginMessage(operation(merchant, newOrderId(), 't', 'VERIFY'));
    delete message.envelope.fencingToken;
    const err = await rejection(ledger.begin(message));
    expect(err.code).toBe('SERVER_FAILED');
    expect(err.supportCode).toMatch(/^[0-9A-F]{12}$/);
  });
});

describe('status and totals through an order\'s life', () => {
  async function steps(merchant: MerchantContext, orderId: string, list: [string, string, Txn][]) {
    const seen: JsonObject[] = [];
    for (const [transactionId, apiOperation, transaction] of list) {
      const { body } = await ledger.record(recordMessage(operation(merchant, orderId, transactionId, apiOperation), { transaction }));
      const order = body.order as JsonObject;
      seen.push({
        status: order.status,
        authorized: order.totalAuthorizedAmount,
        captured: order.totalCapturedAmount,
        refunded: order.totalRefundedAmount,
      });
    }
    return seen;
  }

  it('authorize, capture part, capture rest, refund part, refund rest', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    expect(
      await steps(merchant, orderId, [
        ['a', 'AUTHORIZE', txn('AUTHORIZATION', '100.00')],
        ['c1', 'CAPTURE', txn('CAPTURE', '60.00')],
        ['c2', 'CAPTURE', txn('CAPTURE', '40.00')],
        ['r1', 'REFUND', txn('REFUND', '25.50', 'SUCCESS', { targetTransactionId: 'c1' })],
        // Each capture is refunded up to its own amount (refund-rules.md, amendment 2026-11-26).
        ['r2', 'REFUND', txn('REFUND', '34.50', 'SUCCESS', { targetTransactionId: 'c1' })],
        ['r3', 'REFUND', txn('REFUND', '40.00', 'SUCCESS', { targetTransactionId: 'c2' })],
      ]),
    ).toEqual([
      { status: 'AUTHORIZED', authorized: 100, captured: 0, refunded: 0 },
      { status: 'PARTIALLY_CAPTURED', authorized: 100, captured: 60, refunded: 0 },
      { status: 'CAPTURED', authorized: 100, captured: 100, refunded: 0 },
      { status: 'PARTIALLY_REFUNDED', authorized: 100, captured: 100, refunded: 25.5 },
      { status: 'PARTIALLY_REFUNDED', authorized: 100, captured: 100, refunded: 60 },
      { status: 'REFUNDED', authorized: 100, captured: 100, refunded: 100 },
    ]);
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'REFUNDED', refunded: '100.0000', operationCount: 6 });
  });

  it('refuse a refund beyond the captured amount without the privilege, and record it as EXCESSIVELY_REFUNDED with it', async () => {
    const plain = testMerchant();
    const orderId = newOrderId();
    await steps(plain, orderId, [['p', 'PAY', txn('PAYMENT', '10.00')]]);
    const over = await rejection(
      ledger.record(recordMessage(operation(plain, orderId, 'r', 'REFUND'), { transaction: txn('REFUND', '10.01') })),
    );
    expect(over.field).toBe('transaction.amount');
    expect(over.explanation).toContain('10.00 USD');

    const privileged = testMerchant({ privileges: { excessiveRefund: true, unmask: false, refundRequiresApproval: false } });
    const other = newOrderId();
    expect(
      await steps(privileged, other, [
        ['p', 'PAY', txn('PAYMENT', '10.00')],
        ['r', 'REFUND', txn('REFUND', '10.01')],
      ]),
    ).toEqual([
      { status: 'CAPTURED', authorized: 10, captured: 10, refunded: 0 },
      { status: 'EXCESSIVELY_REFUNDED', authorized: 10, captured: 10, refunded: 10.01 },
    ]);
  });

  it('pay then void: CANCELLED', async () => {
    const merchant = testMerchant();
    expect(
      await steps(merchant, newOrderId(), [
        ['p', 'PAY', txn('PAYMENT', '42.00')],
        ['v', 'VOID', txn('VOID_PAYMENT', '42.00', 'SUCCESS', { targetTransactionId: 'p' })],
      ]),
    ).toEqual([
      { status: 'CAPTURED', authorized: 42, captured: 42, refunded: 0 },
      { status: 'CANCELLED', authorized: 0, captured: 0, refunded: 0 },
    ]);
  });

  it('verify only: VERIFIED', async () => {
    const merchant = testMerchant();
    expect(
      await steps(merchant, newOrderId(), [
        ['v1', 'VERIFY', txn('VERIFICATION', '0.00', 'FAILURE')],
        ['v2', 'VERIFY', txn('VERIFICATION', '0.00')],
      ]),
    ).toEqual([
      { status: 'FAILED', authorized: 0, captured: 0, refunded: 0 },
      { status: 'VERIFIED', authorized: 0, captured: 0, refunded: 0 },
    ]);
  });

  it('sums 0.1 + 0.2 refunded to exactly 0.3, in the stored totals and in the response', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await steps(merchant, orderId, [['p', 'PAY', txn('PAYMENT', '0.30')], ['r1', 'REFUND', txn('REFUND', '0.1')]]);
    const { body } = await ledger.record(recordMessage(operation(merchant, orderId, 'r2', 'REFUND'), { transaction: txn('REFUND', '0.2') }));
    expect(JSON.stringify(body.order)).toContain('"totalRefundedAmount":0.3');
    expect(JSON.stringify(body.order)).toContain('"status":"REFUNDED"');
    expect((await orderRow(merchant, orderId)).refunded).toBe('0.3000');
  });

  it('refuse a transaction in another currency than the order\'s (400 on transaction.currency)', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await steps(merchant, orderId, [['p', 'PAY', txn('PAYMENT', '5.00')]]);
    const err = await rejection(
      ledger.record(
        recordMessage(operation(merchant, orderId, 'r', 'REFUND'), {
          order: { currency: 'USD' },
          transaction: { ...txn('REFUND', '1.00'), currency: 'EUR' },
        }),
      ),
    );
    expect(err.field).toBe('transaction.currency');
    expect(err.explanation).toBe("Value 'EUR' is invalid. The order's currency is USD.");
  });
});

describe('a browser payment completing later (UPDATE)', () => {
  it('goes INITIATED -> CAPTURED on the same transaction, and a replayed initiate still gets its own response', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const initiate = operation(merchant, orderId, 'bp-1', 'INITIATE_BROWSER_PAYMENT', { order: { amount: '20.00', currency: 'USD' } });
    const initiated = await ledger.record(
      recordMessage(initiate, {
        transaction: txn('PAYMENT', '20.00', 'PENDING', { fundingType: 'PROVIDER_A' }),
        order: { currency: 'USD', amount: '20.00', details: { description: 'Two books' } },
        response: { browserPayment: { interaction: { status: 'INITIATED' } } },
      }),
    );
    expect(initiated.body).toMatchObject({ result: 'PENDING', order: { status: 'INITIATED', amount: 20, totalCapturedAmount: 0 } });

    const confirm = operation(merchant, orderId, 'bp-1', 'CONFIRM_BROWSER_PAYMENT', { order: { amount: '18.00' } });
    expect(await ledger.begin(beginMessage(confirm, true))).toMatchObject({ outcome: 'PROCEED' });
    const confirmed = await ledger.record(
      recordMessage(confirm, {
        mode: 'UPDATE',
        transaction: txn('PAYMENT', '18.00', 'SUCCESS', { fundingType: 'PROVIDER_A' }),
        order: { currency: 'USD', amount: '18.00' },
        response: { browserPayment: { interaction: { status: 'COMPLETED' } } },
      }),
    );
    expect(confirmed.body).toMatchObject({
      result: 'SUCCESS',
      transaction: { id: 'bp-1', type: 'PAYMENT', amount: 18 },
      order: { status: 'CAPTURED', amount: 18, totalAuthorizedAmount: 18, totalCapturedAmount: 18 },
    });
    expect(await counts(merchant, orderId)).toEqual({ transactions: 1, responses: 2 });
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'CAPTURED', amount: '18.0000', captured: '18.0000' });
    expect(await ledger.begin(beginMessage(initiate))).toEqual({ outcome: 'REPLAY', body: initiated.body });
    expect(await ledger.begin(beginMessage(confirm, true))).toEqual({ outcome: 'REPLAY', body: confirmed.body });
    // The transaction as the confirm left it, its latest response the confirm's: what retrieval and a refund of it read.
    expect(await ledger.begin(beginMessage(operation(merchant, orderId, 'r1', 'REFUND')))).toMatchObject({
      order: { transactions: [{ id: 'bp-1', amount: '18.00', result: 'SUCCESS' }] },
    });
    const repository = ledger.running.app.get(LedgerRepository);
    expect((await repository.findOrderWithResponses(merchant.id, orderId))?.responses).toEqual([confirmed.body]);
    const found = await repository.findForBeginWithTargets(merchant.id, orderId, 'r1', 'REFUND', { types: ['PAYMENT'] });
    expect(found?.targetResponses.get('bp-1')).toEqual(confirmed.body);
  });
});

describe('concurrent records on one order', () => {
  it('serialise on the order row: 20 captures of 5.00 at once total exactly 100.00', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await ledger.record(recordMessage(operation(merchant, orderId, 'a', 'AUTHORIZE'), { transaction: txn('AUTHORIZATION', '100.00') }));

    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        ledger.record(recordMessage(operation(merchant, orderId, `c${i}`, 'CAPTURE'), { transaction: txn('CAPTURE', '5.00') })),
      ),
    );
    const captured = replies.map((r) => (r.body.order as JsonObject).totalCapturedAmount).sort((a, b) => Number(a) - Number(b));
    // Each record saw every record committed before it: the totals step by exactly 5.00.
    expect(captured).toEqual(Array.from({ length: 20 }, (_, i) => 5 * (i + 1)));
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'CAPTURED', captured: '100.0000', operationCount: 21 });
    const sequences = await ledger.dataSource.query(
      'SELECT sequence FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2 ORDER BY sequence',
      [merchant.id, orderId],
    );
    expect(sequences.map((s: { sequence: number }) => s.sequence)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
  });

  it('hold the refund limit in the database alone: 20 refunds of 10.00 on 100.00 captured, exactly 10 recorded', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await ledger.record(recordMessage(operation(merchant, orderId, 'p', 'PAY'), { transaction: txn('PAYMENT', '100.00') }));

    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        ledger.record(recordMessage(operation(merchant, orderId, `r${i}`, 'REFUND'), { transaction: txn('REFUND', '10.00') })),
      ),
    );
    const refused = outcomes.filter((o) => o.status === 'rejected') as PromiseRejectedResult[];
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(10);
    expect(refused).toHaveLength(10);
    expect(refused.every((o) => (o.reason as GatewayError).field === 'transaction.amount')).toBe(true);
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'REFUNDED', refunded: '100.0000', operationCount: 11 });
  });

  it('create a new order once when its first records race', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        ledger.record(recordMessage(operation(merchant, orderId, `v${i}`, 'VERIFY'), { transaction: txn('VERIFICATION', '0') })),
      ),
    );
    expect(new Set(replies.map((r) => (r.body.order as JsonObject).creationTime)).size).toBe(1);
    expect(await counts(merchant, orderId)).toEqual({ transactions: 8, responses: 8 });
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'VERIFIED', operationCount: 8 });
  });
});

describe('a record on an order begin saw as new (the newOrder hint)', () => {
  const hinted = (message: RecordOperationMessage): RecordOperationMessage => ({ ...message, newOrder: true });

  it('writes the new order, its transaction and its stored response in one statement, committed when it returns', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const verify = operation(merchant, orderId, 'verify-1', 'VERIFY');
    let body: JsonObject = {};
    const sent = await statementsOf(async () => {
      ({ body } = await ledger.record(hinted(recordMessage(verify, { transaction: txn('VERIFICATION', '0') }))));
    });

    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^WITH new_order AS \( INSERT INTO order_transaction\.orders/);
    expect(body).toMatchObject({ result: 'SUCCESS', order: { id: orderId, status: 'VERIFIED' }, transaction: { id: 'verify-1' } });
    // Read on another connection: committed, and stored for replays like any record.
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'VERIFIED', operationCount: 1, lastFencingToken: '1000' });
    expect(await counts(merchant, orderId)).toEqual({ transactions: 1, responses: 1 });
    expect(await ledger.begin(beginMessage(verify))).toEqual({ outcome: 'REPLAY', body });
  });

  it('without the hint, reads, finds no order and goes the locked way (its four statements)', async () => {
    const merchant = testMerchant();
    const sent = await statementsOf(() =>
      ledger.record(recordMessage(operation(merchant, newOrderId(), 'verify-1', 'VERIFY'), { transaction: txn('VERIFICATION', '0') })),
    );
    expect(sent.map((sql) => sql.split(' ').slice(0, 2).join(' '))).toEqual([
      'SELECT o.merchant_id',
      'START TRANSACTION',
      'SELECT o.merchant_id',
      'WITH new_order',
      'COMMIT',
    ]);
  });

  it('goes the locked way when the order exists after all, as a record without the hint would', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await ledger.record(recordMessage(operation(merchant, orderId, 'auth', 'AUTHORIZE'), { transaction: txn('AUTHORIZATION', '10.00') }));

    const { body } = await ledger.record(
      hinted(recordMessage(operation(merchant, orderId, 'verify-1', 'VERIFY'), { transaction: txn('VERIFICATION', '0') })),
    );
    expect(body.order).toMatchObject({ status: 'AUTHORIZED', amount: 10, totalAuthorizedAmount: 10 });
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'AUTHORIZED', operationCount: 2 });
    expect(await counts(merchant, orderId)).toEqual({ transactions: 2, responses: 2 });
  });

  it('goes the locked way when the rules refuse the write on an empty order: a wrong hint never refuses a valid record', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await ledger.record(recordMessage(operation(merchant, orderId, 'pay', 'PAY'), { transaction: txn('PAYMENT', '10.00') }));

    const { body } = await ledger.record(
      hinted(recordMessage(operation(merchant, orderId, 'refund-1', 'REFUND'), { transaction: txn('REFUND', '4.00', 'SUCCESS', { targetTransactionId: 'pay' }) })),
    );
    expect(body.order).toMatchObject({ status: 'PARTIALLY_REFUNDED', totalRefundedAmount: 4 });
  });

  it('creates the order once when hinted first records race', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        ledger.record(hinted(recordMessage(operation(merchant, orderId, `v${i}`, 'VERIFY'), { transaction: txn('VERIFICATION', '0') }))),
      ),
    );
    expect(new Set(replies.map((r) => (r.body.order as JsonObject).creationTime)).size).toBe(1);
    expect(await counts(merchant, orderId)).toEqual({ transactions: 8, responses: 8 });
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'VERIFIED', operationCount: 8 });
  });
});

describe('a record on an existing order', () => {
  /** Holds the order row from outside, as another record would, until `commit` or `rollback`. */
  async function holdOrder(merchant: MerchantContext, orderId: string) {
    const holder = ledger.dataSource.createQueryRunner();
    const client = await holder.connect();
    await holder.startTransaction();
    await holder.query('SELECT 1 FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2 FOR UPDATE', [merchant.id, orderId]);
    return {
      client,
      /** What a record of a capture of 4.00 as the order's second transaction writes. */
      captureFour: async () => {
        await holder.query(
          `INSERT INTO order_transaction.transactions (merchant_id, order_id, transaction_id, sequence, api_operation, type, amount,
             currency, result, gateway_code, created_at, updated_at)
           VALUES ($1, $2, 'c1', 2, 'CAPTURE', 'CAPTURE', 4, 'USD', 'SUCCESS', 'APPROVED', now(), now())`,
          [merchant.id, orderId],
        );
        await holder.query(
          `UPDATE order_transaction.orders SET operation_count = 2, total_captured_amount = 4, status = 'PARTIALLY_CAPTURED'
            WHERE merchant_id = $1 AND order_id = $2`,
          [merchant.id, orderId],
        );
      },
      commit: async () => {
        await holder.commitTransaction();
        await holder.release();
      },
    };
  }

  async function authorizedOrder(amount: string) {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await ledger.record(recordMessage(operation(merchant, orderId, 'auth', 'AUTHORIZE'), { transaction: txn('AUTHORIZATION', amount) }));
    return { merchant, orderId };
  }

  const capture = (merchant: MerchantContext, orderId: string, transactionId: string, amount: string) =>
    ledger.record(recordMessage(operation(merchant, orderId, transactionId, 'CAPTURE'), { transaction: txn('CAPTURE', amount) }));

  it('is read without a lock and written by one statement conditioned on the version read, committed when it returns', async () => {
    const { merchant, orderId } = await authorizedOrder('10.00');
    let body: JsonObject = {};
    const sent = await statementsOf(async () => {
      ({ body } = await capture(merchant, orderId, 'capture', '4.00'));
    });
    expect(sent.map((sql) => sql.split(' ')[0])).toEqual(['SELECT', 'WITH']);
    expect(sent[0]).not.toMatch(/FOR UPDATE/);
    expect(sent[1]).toMatch(/AND xmin = \$27::xid/);
    expect(body.order).toMatchObject({ status: 'PARTIALLY_CAPTURED', totalCapturedAmount: 4 });
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'PARTIALLY_CAPTURED', captured: '4.0000', operationCount: 2 });
  });

  it('writes nothing when another record changed the order after its read, and decides again on the locked row', async () => {
    const { merchant, orderId } = await authorizedOrder('10.00');
    const holder = await holdOrder(merchant, orderId);
    let refused: Promise<GatewayError> | undefined;
    const sent = await statementsOf(async () => {
      // Read while the other record is uncommitted: 7.00 of 10.00 fits the order as read.
      refused = rejection(capture(merchant, orderId, 'c2', '7.00'));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await holder.captureFour();
      await holder.commit();
      await refused;
    }, holder.client);

    // The conditional write waited for the row, found it changed, and wrote nothing; locked, the
    // capture limit counted the capture committed meanwhile: 4.00 + 7.00 > 10.00.
    expect(sent.map((sql) => sql.split(' ')[0])).toEqual(['SELECT', 'WITH', 'START', 'SELECT', 'ROLLBACK']);
    expect(await refused).toMatchObject({ field: 'transaction.amount', explanation: expect.stringContaining('6.00 USD') });
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'PARTIALLY_CAPTURED', captured: '4.0000', operationCount: 2 });
    expect(await counts(merchant, orderId)).toEqual({ transactions: 2, responses: 1 });
  });

  it('records on the locked row what the changed order still allows, numbered after the record that came first', async () => {
    const { merchant, orderId } = await authorizedOrder('10.00');
    const holder = await holdOrder(merchant, orderId);
    let recorded: Promise<{ body: JsonObject }> | undefined;
    const sent = await statementsOf(async () => {
      recorded = capture(merchant, orderId, 'c2', '5.00');
      await new Promise((resolve) => setTimeout(resolve, 300));
      await holder.captureFour();
      await holder.commit();
      await recorded;
    }, holder.client);

    expect(sent.map((sql) => sql.split(' ')[0])).toEqual(['SELECT', 'WITH', 'START', 'SELECT', 'WITH', 'COMMIT']);
    expect((await recorded!).body.order).toMatchObject({ status: 'PARTIALLY_CAPTURED', totalCapturedAmount: 9 });
    expect(await orderRow(merchant, orderId)).toMatchObject({ captured: '9.0000', operationCount: 3 });
    const sequences = await ledger.dataSource.query(
      'SELECT transaction_id AS id, sequence FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2 ORDER BY sequence',
      [merchant.id, orderId],
    );
    expect(sequences).toEqual([
      { id: 'auth', sequence: 1 },
      { id: 'c1', sequence: 2 },
      { id: 'c2', sequence: 3 },
    ]);
  });

  it('reads the transactions again when its lock waited for another record (its snapshot is older than the row it locked)', async () => {
    const { merchant, orderId } = await authorizedOrder('10.00');
    const holder = await holdOrder(merchant, orderId);
    const repository = ledger.running.app.get(LedgerRepository);
    let locked: Promise<LockedOrder | null> | undefined;
    const sent = await statementsOf(async () => {
      locked = repository.transaction((writer) => writer.lockOrder(merchant.id, orderId, 'c2', 'CAPTURE'));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await holder.captureFour();
      await holder.commit();
      await locked;
    }, holder.client);

    expect(sent.map((sql) => sql.split(' ')[0])).toEqual(['START', 'SELECT', 'SELECT', 'COMMIT']);
    expect((await locked!)?.contents.transactions.map((t) => t.transactionId)).toEqual(['auth', 'c1']);
  });
});

describe('the order as a record wrote it (the view its operation\'s next record is decided on)', () => {
  /** Decimals by value (the write sends '4', Postgres answers '4.0000'), times as instants. */
  function comparable(view: SeenOrder | null | undefined) {
    const decimal = (value: string | null) => (value === null ? null : new Decimal(value).toFixed());
    if (!view) {
      return view;
    }
    const { order, contents, version } = view;
    return JSON.parse(
      JSON.stringify({
        order: {
          ...order,
          amount: decimal(order.amount),
          totalAuthorizedAmount: decimal(order.totalAuthorizedAmount),
          totalCapturedAmount: decimal(order.totalCapturedAmount),
          totalRefundedAmount: decimal(order.totalRefundedAmount),
        },
        transactions: contents.transactions.map((t) => ({ ...t, amount: decimal(t.amount), taxAmount: decimal(t.taxAmount) })),
        stored: contents.stored,
        version,
      }),
    );
  }

  it('is the order as read back, through a new order, a reservation on it and its completion in place', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const records = ledger.running.app.get(RecordOperation);
    const repository = ledger.running.app.get(LedgerRepository);
    const readBack = (transactionId: string, apiOperation: string) => repository.findForBegin(merchant.id, orderId, transactionId, apiOperation);

    const paid = await records.execute({
      ...recordMessage(operation(merchant, orderId, 'pay', 'PAY'), { transaction: txn('PAYMENT', '100.00', 'SUCCESS', { taxAmount: '4.50', fundingType: 'CARD' }) }),
      newOrder: true,
    });
    expect(comparable(paid.written)).toEqual(comparable(await readBack('pay', 'PAY')));

    const refund = operation(merchant, orderId, 'refund', 'REFUND');
    const reservation = recordMessage(refund, { transaction: txn('REFUND', '30.00', 'PENDING', { targetTransactionId: 'pay' }) });
    // A view serves the records of the operation it was read or written for only.
    await expect(records.execute(reservation, 'RESERVE', paid.written)).rejects.toThrow('given the view of PAY');
    const reserved = await records.execute(reservation, 'RESERVE', await readBack('refund', 'REFUND'));
    expect(comparable(reserved.written)).toEqual(comparable(await readBack('refund', 'REFUND')));

    const completed = await records.execute(
      { ...reservation, mode: 'UPDATE', transaction: txn('REFUND', '30.00', 'SUCCESS', { targetTransactionId: 'pay' }) },
      'COMPLETE',
      reserved.written,
    );
    expect(completed.written?.contents.transactions.map((t) => [t.transactionId, t.sequence, t.result])).toEqual([
      ['pay', 1, 'SUCCESS'],
      ['refund', 2, 'SUCCESS'],
    ]);
    expect(comparable(completed.written)).toEqual(comparable(await readBack('refund', 'REFUND')));
  });
});

describe('begin\'s read of the transactions an operation may act on (TargetQuery)', () => {
  it('is the latest stored response of each successful transaction of the types asked, or of the named one only', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const records = ledger.running.app.get(RecordOperation);
    const repository = ledger.running.app.get(LedgerRepository);
    const record = (transactionId: string, apiOperation: string, transaction: Txn, mode: 'CREATE' | 'UPDATE' = 'CREATE') =>
      records.execute(
        {
          ...recordMessage(operation(merchant, orderId, transactionId, apiOperation), { transaction, mode, response: { note: `${transactionId} ${transaction.result}` } }),
          ...(transactionId === 'pay' ? { newOrder: true } : {}),
        },
        mode === 'UPDATE' ? 'COMPLETE' : 'RECORD',
      );
    await record('pay', 'PAY', txn('PAYMENT', '100.00'));
    await record('pay-2', 'PAY', txn('PAYMENT', '5.00', 'FAILURE'));
    await record('r1', 'REFUND', txn('REFUND', '30.00', 'PENDING', { targetTransactionId: 'pay' }));
    await record('r1', 'REFUND', txn('REFUND', '30.00', 'SUCCESS', { targetTransactionId: 'pay' }), 'UPDATE');
    const latest = async (transactionId: string) => (await repository.findTransactionResponse(merchant.id, orderId, transactionId))?.body;
    const targetsOf = async (query: TargetQuery) => {
      const found = await repository.findForBeginWithTargets(merchant.id, orderId, 'r2', 'REFUND', query);
      return Object.fromEntries(found?.targetResponses ?? []);
    };

    // A refund's: the successful payment, not the failed one.
    expect(await targetsOf({ types: ['PAYMENT', 'CAPTURE'] })).toEqual({ pay: await latest('pay') });
    // A refund completed in place: its response is the completion's.
    const voidable = await targetsOf({ types: ['AUTHORIZATION', 'CAPTURE', 'PAYMENT', 'REFUND'] });
    expect(voidable).toEqual({ pay: await latest('pay'), r1: await latest('r1') });
    expect(voidable.r1).toMatchObject({ note: 'r1 SUCCESS' });
    // Named: that one only, and only if it is of a type asked for and successful.
    expect(await targetsOf({ types: ['PAYMENT', 'REFUND'], transactionId: 'r1' })).toEqual({ r1: await latest('r1') });
    expect(await targetsOf({ types: ['PAYMENT'], transactionId: 'pay-2' })).toEqual({});
    expect(await targetsOf({ types: ['CAPTURE'] })).toEqual({});
    // The order itself as begin reads it without targets.
    const found = await repository.findForBeginWithTargets(merchant.id, orderId, 'r2', 'REFUND', { types: ['PAYMENT'] });
    expect(found?.seen).toEqual(await repository.findForBegin(merchant.id, orderId, 'r2', 'REFUND'));
    expect(await repository.findForBeginWithTargets(merchant.id, newOrderId(), 'r2', 'REFUND', { types: ['PAYMENT'] })).toBeNull();
  });
});

describe('card data', () => {
  it('is never stored unmasked, whatever the caller sends', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const { body } = await ledger.record(
      recordMessage(operation(merchant, orderId, 'v', 'VERIFY'), {
        transaction: txn('VERIFICATION', '0'),
        order: { currency: 'USD', details: { sourceOfFunds: { provided: { card: { number: TEST_CARD } } } } },
        response: { sourceOfFunds: { provided: { card: { number: TEST_CARD, securityCode: '100' } } } },
      }),
    );
    expect(body.sourceOfFunds).toEqual({ provided: { card: { number: '512345xxxxxx0008' } } });
    const [stored] = await ledger.dataSource.query(
      `SELECT (SELECT string_agg(body::text, '') FROM order_transaction.operation_responses WHERE merchant_id = $1) AS bodies,
              (SELECT details::text FROM order_transaction.orders WHERE merchant_id = $1) AS details`,
      [merchant.id],
    );
    expect(`${stored.bodies}${stored.details}`).not.toContain(TEST_CARD);
    expect(`${stored.bodies}${stored.details}`).not.toContain('securityCode');
  });
});

describe('the webhook outbox seam (LedgerEvents)', () => {
  function recordWith(events: LedgerEvents) {
    return new RecordOperation(ledger.running.app.get(LedgerRepository), events, ledger.running.app.get(UnknownInquiries), ledger.running.app.get(APP_LOGGER));
  }

  it('is called inside the record\'s database transaction, with the order\'s notification URL', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const seen: { insideCount: number; outsideCount: number; event: OrderRecordedEvent }[] = [];
    const countIn = async (runner: { query: (sql: string, params: unknown[]) => Promise<{ n: number }[]> }) =>
      (await runner.query('SELECT count(*)::int AS n FROM order_transaction.transactions WHERE merchant_id = $1', [merchant.id]))[0].n;
    const events: LedgerEvents = {
      announces: () => true,
      orderRecorded: async (manager, event) => {
        seen.push({ insideCount: await countIn(manager), outsideCount: await countIn(ledger.dataSource), event });
      },
    };
    // A new order hinted as such (newOrder) announcing itself: insert and outbox row in one transaction.
    await recordWith(events).execute({
      ...recordMessage(operation(merchant, orderId, 'p', 'PAY'), {
        transaction: txn('PAYMENT', '3.00'),
        order: { currency: 'USD', notificationUrl: 'https://merchant.example/hooks' },
      }),
      newOrder: true,
    });
    await recordWith(events).execute(recordMessage(operation(merchant, orderId, 'r', 'REFUND'), { transaction: txn('REFUND', '1.00') }));

    expect(seen.map((s) => [s.insideCount, s.outsideCount])).toEqual([
      [1, 0],
      [2, 1],
    ]);
    expect(seen.map((s) => [s.event.createdOrder, s.event.notificationUrl, (s.event.body.order as JsonObject).status])).toEqual([
      [true, 'https://merchant.example/hooks', 'CAPTURED'],
      [false, 'https://merchant.example/hooks', 'PARTIALLY_REFUNDED'],
    ]);
  });

  it('rolls the ledger write back when it fails, so an announcement never goes missing', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const failing: LedgerEvents = {
      announces: () => true,
      orderRecorded: async () => {
        throw new Error('outbox unavailable');
      },
    };
    await expect(
      recordWith(failing).execute({
        ...recordMessage(operation(merchant, orderId, 'p', 'PAY'), { transaction: txn('PAYMENT', '3.00') }),
        newOrder: true,
      }),
    ).rejects.toThrow('outbox unavailable');
    expect(await orderRow(merchant, orderId)).toBeUndefined();
  });
});
