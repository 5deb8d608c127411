import { JsonObject } from '@gateway/contracts';
import { lockFailureBody, RefusedOperation } from './lock-failure-response';

const refused = (apiOperation: RefusedOperation['apiOperation'], body: JsonObject, transactionId = 'txn-2'): RefusedOperation => ({
  apiOperation,
  orderId: 'order-1',
  transactionId,
  body: { apiOperation, ...body },
});

/** The order's own fields, as the ledger holds them. */
const orderFields = {
  id: 'order-1',
  reference: 'cart-7',
  amount: 100,
  currency: 'USD',
  status: 'CAPTURED',
  totalAuthorizedAmount: 100,
  totalCapturedAmount: 100,
  totalRefundedAmount: 0,
  creationTime: '2026-11-25T10:00:00.000Z',
  lastUpdatedTime: '2026-11-25T10:00:01.000Z',
};

/** The order as GET .../order/{id} answers it: its fields at the top level, then every transaction's response. */
const retrieved: JsonObject = {
  ...orderFields,
  result: 'SUCCESS',
  transaction: [
    {
      order: { id: 'order-1' },
      result: 'SUCCESS',
      transaction: { id: 'pay-1', type: 'PAYMENT', amount: 100, currency: 'USD', acquirer: { id: 'TEST_ACQUIRER', transactionId: 'acq-9' } },
    },
    {
      order: { id: 'order-1' },
      result: 'PENDING',
      transaction: { id: 'bp-1', type: 'AUTHORIZATION', amount: 42.5, currency: 'EUR', acquirer: { id: 'PROVIDER_A' } },
    },
  ],
};

describe('lockFailureBody', () => {
  it('is a FAILURE with gatewayCode LOCK_FAILURE, the order group as the ledger holds the order now', () => {
    const body = lockFailureBody(refused('REFUND', { transaction: { amount: '10.00', currency: 'USD' } }), retrieved);

    expect(body).toEqual({
      order: orderFields,
      response: { gatewayCode: 'LOCK_FAILURE' },
      result: 'FAILURE',
      timeOfRecord: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      transaction: { id: 'txn-2', type: 'REFUND', amount: 10, currency: 'USD' },
    });
  });

  it('on an order that does not exist yet: the request\'s amount and currency, totals zero', () => {
    const body = lockFailureBody(refused('PAY', { order: { amount: '10.50', currency: 'USD' } }), null);

    expect(body.order).toEqual({ id: 'order-1', amount: 10.5, currency: 'USD', totalAuthorizedAmount: 0, totalCapturedAmount: 0, totalRefundedAmount: 0 });
    expect(body.transaction).toEqual({ id: 'txn-2', type: 'PAYMENT', amount: 10.5, currency: 'USD' });
  });

  it('a VERIFY is a VERIFICATION of zero in the order currency', () => {
    const body = lockFailureBody(refused('VERIFY', { order: { currency: 'JPY' } }), null);

    expect(body.transaction).toEqual({ id: 'txn-2', type: 'VERIFICATION', amount: 0, currency: 'JPY' });
    expect(body.order).toEqual({ id: 'order-1', currency: 'JPY', totalAuthorizedAmount: 0, totalCapturedAmount: 0, totalRefundedAmount: 0 });
  });

  it('an AUTHORIZE takes order.amount in the currency\'s own minor units', () => {
    const body = lockFailureBody(refused('AUTHORIZE', { order: { amount: '1250', currency: 'JPY' } }), null);
    expect(body.transaction).toEqual({ id: 'txn-2', type: 'AUTHORIZATION', amount: 1250, currency: 'JPY' });
  });

  it('a CAPTURE or REFUND naming its target: the target and the acquirer that holds it', () => {
    const capture = lockFailureBody(refused('CAPTURE', { transaction: { amount: '5.00', currency: 'USD', targetTransactionId: 'pay-1' } }), retrieved);
    expect(capture.transaction).toEqual({
      id: 'txn-2',
      type: 'CAPTURE',
      amount: 5,
      currency: 'USD',
      targetTransactionId: 'pay-1',
      acquirer: { id: 'TEST_ACQUIRER' },
    });

    // This order's transactions name two acquirers: which one holds an unnamed refund cannot be known.
    const unnamed = lockFailureBody(refused('REFUND', { transaction: { amount: '5.00', currency: 'USD' } }), retrieved);
    expect(unnamed.transaction).not.toHaveProperty('acquirer');
    expect(unnamed.transaction).not.toHaveProperty('targetTransactionId');
  });

  it('without a target, the acquirer every transaction of the order names (transaction.acquirer is ALWAYS PROVIDED)', () => {
    const cardOrder = { ...retrieved, transaction: [(retrieved.transaction as JsonObject[])[0]] };
    const refund = lockFailureBody(refused('REFUND', { transaction: { amount: '5.00', currency: 'USD' } }), cardOrder);
    expect(refund.transaction).toEqual({ id: 'txn-2', type: 'REFUND', amount: 5, currency: 'USD', acquirer: { id: 'TEST_ACQUIRER' } });
    const verify = lockFailureBody(refused('VERIFY', { order: { currency: 'USD' } }), cardOrder);
    expect(verify.transaction).toMatchObject({ acquirer: { id: 'TEST_ACQUIRER' } });

    const browserOrder = { ...retrieved, transaction: [(retrieved.transaction as JsonObject[])[1]] };
    const confirm = lockFailureBody(refused('CONFIRM_BROWSER_PAYMENT', {}, 'bp-1'), browserOrder);
    expect(confirm.transaction).toEqual({ id: 'bp-1', type: 'AUTHORIZATION', amount: 42.5, currency: 'EUR', acquirer: { id: 'PROVIDER_A' } });

    // An order not created yet: no acquirer to name.
    expect(lockFailureBody(refused('VERIFY', { order: { currency: 'USD' } }), null).transaction).not.toHaveProperty('acquirer');
  });

  it('without a target, the acquirer of the order\'s transactions that name one: a transaction naming none is no other acquirer', () => {
    const unnamed = { transaction: { id: 'v-1', type: 'VERIFICATION', amount: 0, currency: 'USD' } };
    const order = { ...retrieved, transaction: [(retrieved.transaction as JsonObject[])[0], unnamed] };
    expect(lockFailureBody(refused('VERIFY', { order: { currency: 'USD' } }), order).transaction).toMatchObject({ acquirer: { id: 'TEST_ACQUIRER' } });
  });

  it('a VOID is the void of its target\'s type, for the target\'s amount', () => {
    const body = lockFailureBody(refused('VOID', { transaction: { targetTransactionId: 'pay-1' } }), retrieved);
    expect(body.transaction).toEqual({
      id: 'txn-2',
      type: 'VOID_PAYMENT',
      amount: 100,
      currency: 'USD',
      targetTransactionId: 'pay-1',
      acquirer: { id: 'TEST_ACQUIRER' },
    });

    const ofAuthorization = lockFailureBody(refused('VOID', { transaction: { targetTransactionId: 'bp-1' } }), retrieved);
    expect(ofAuthorization.transaction).toMatchObject({ type: 'VOID_AUTHORIZATION', amount: 42.5, currency: 'EUR' });
  });

  it('leaves out what it cannot know rather than guess: a VOID of a target it cannot see', () => {
    expect(lockFailureBody(refused('VOID', { transaction: { targetTransactionId: 'nowhere' } }), retrieved).transaction).toEqual({
      id: 'txn-2',
      targetTransactionId: 'nowhere',
    });
    const verification = { ...retrieved, transaction: [{ transaction: { id: 'v-1', type: 'VERIFICATION', amount: 0, currency: 'USD' } }] };
    expect(lockFailureBody(refused('VOID', { transaction: { targetTransactionId: 'v-1' } }), verification).transaction).not.toHaveProperty('type');
    const unread = lockFailureBody(refused('VOID', { transaction: { targetTransactionId: 'pay-1' } }), null);
    expect(unread.transaction).toEqual({ id: 'txn-2', targetTransactionId: 'pay-1' });
    expect(unread.order).toEqual({ id: 'order-1' });
  });

  it('an INITIATE_BROWSER_PAYMENT is a PAYMENT or an AUTHORIZATION as its browserPayment.operation says', () => {
    const pay = lockFailureBody(refused('INITIATE_BROWSER_PAYMENT', { order: { amount: '42.50', currency: 'EUR' }, browserPayment: { operation: 'PAY' } }), null);
    expect(pay.transaction).toEqual({ id: 'txn-2', type: 'PAYMENT', amount: 42.5, currency: 'EUR' });
    const authorize = lockFailureBody(
      refused('INITIATE_BROWSER_PAYMENT', { order: { amount: '42.50', currency: 'EUR' }, browserPayment: { operation: 'AUTHORIZE' } }),
      null,
    );
    expect(authorize.transaction).toMatchObject({ type: 'AUTHORIZATION' });
  });

  it('a CONFIRM_BROWSER_PAYMENT is its initiated payment, at the amount it confirms or the one initiated', () => {
    const changed = lockFailureBody(refused('CONFIRM_BROWSER_PAYMENT', { order: { amount: '40.00' } }, 'bp-1'), retrieved);
    expect(changed.transaction).toEqual({ id: 'bp-1', type: 'AUTHORIZATION', amount: 40, currency: 'EUR', acquirer: { id: 'PROVIDER_A' } });
    const same = lockFailureBody(refused('CONFIRM_BROWSER_PAYMENT', {}, 'bp-1'), retrieved);
    expect(same.transaction).toEqual({ id: 'bp-1', type: 'AUTHORIZATION', amount: 42.5, currency: 'EUR', acquirer: { id: 'PROVIDER_A' } });
  });
});
