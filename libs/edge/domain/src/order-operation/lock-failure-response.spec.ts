import { defaultMerchantSettings, JsonObject } from '@gateway/contracts';
import { lockFailureBody, ORDER_UNREAD, RefusedOperation } from './lock-failure-response';

const TEST: RefusedOperation['merchant'] = { mode: 'TEST', settings: defaultMerchantSettings() };
/** A live merchant: no acquirer or provider is configured for it (docs/decisions/live-merchants-without-acquirer.md). */
const LIVE: RefusedOperation['merchant'] = { mode: 'LIVE', settings: defaultMerchantSettings() };

const refused = (
  apiOperation: RefusedOperation['apiOperation'],
  body: JsonObject,
  transactionId = 'txn-2',
  merchant: RefusedOperation['merchant'] = TEST,
): RefusedOperation => ({
  apiOperation,
  orderId: 'order-1',
  transactionId,
  body: { apiOperation, ...body },
  merchant,
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

  it("holds only the order's own fields: the groups the order keeps beside them (billing, customer, shipping, agreement, DCC) are not the order group's", () => {
    const ownFields = {
      ...orderFields,
      description: 'Two tickets',
      custom: { channel: 'app' },
      customerReference: 'CUST-9',
      taxAmount: 1.5,
      item: [{ name: 'Ticket', quantity: 2, unitPrice: 49.25 }],
      walletProvider: 'SOME_WALLET',
    };
    // The retrieval puts the order's stored details at its top level, groups and fields alike.
    const withDetails: JsonObject = {
      ...retrieved,
      ...ownFields,
      agreement: { id: 'agr-1', type: 'RECURRING' },
      billing: { address: { street: '1 Main Street', city: 'Springfield' } },
      currencyConversion: { requestId: 'quote-1', uptake: 'NOT_REQUIRED' },
      customer: { email: 'payer@example.com', firstName: 'Ada' },
      shipping: { address: { city: 'Springfield' }, contact: { firstName: 'Ada' } },
    };

    const body = lockFailureBody(refused('REFUND', { transaction: { amount: '10.00', currency: 'USD' } }), withDetails);

    expect(body.order).toEqual(ownFields);
    for (const group of ['agreement', 'billing', 'currencyConversion', 'customer', 'shipping', 'result', 'transaction']) {
      expect(body.order).not.toHaveProperty(group);
    }
  });

  it('on an order that does not exist yet: the request\'s amount and currency, totals zero', () => {
    const body = lockFailureBody(refused('PAY', { order: { amount: '10.50', currency: 'USD' } }), null);

    expect(body.order).toEqual({ id: 'order-1', amount: 10.5, currency: 'USD', totalAuthorizedAmount: 0, totalCapturedAmount: 0, totalRefundedAmount: 0 });
    expect(body.transaction).toEqual({ id: 'txn-2', type: 'PAYMENT', amount: 10.5, currency: 'USD', acquirer: { id: 'TEST_ACQUIRER' } });
  });

  it('on an order the ledger did not answer for: the request\'s amount and currency, no totals (it may hold funds; zero would say it holds none)', () => {
    const body = lockFailureBody(refused('PAY', { order: { amount: '10.50', currency: 'USD' } }), ORDER_UNREAD);

    expect(body.order).toEqual({ id: 'order-1', amount: 10.5, currency: 'USD' });
    expect(body.transaction).toEqual({ id: 'txn-2', type: 'PAYMENT', amount: 10.5, currency: 'USD', acquirer: { id: 'TEST_ACQUIRER' } });
    // A REFUND gives no order group: the order group is its id alone.
    const refund = lockFailureBody(refused('REFUND', { transaction: { amount: '5.00', currency: 'USD', targetTransactionId: 'pay-1' } }), ORDER_UNREAD);
    expect(refund.order).toEqual({ id: 'order-1', currency: 'USD' });
  });

  it('a VERIFY is a VERIFICATION of zero in the order currency', () => {
    const body = lockFailureBody(refused('VERIFY', { order: { currency: 'JPY' } }), null);

    expect(body.transaction).toEqual({ id: 'txn-2', type: 'VERIFICATION', amount: 0, currency: 'JPY', acquirer: { id: 'TEST_ACQUIRER' } });
    expect(body.order).toEqual({ id: 'order-1', currency: 'JPY', totalAuthorizedAmount: 0, totalCapturedAmount: 0, totalRefundedAmount: 0 });
  });

  it('an AUTHORIZE takes order.amount in the currency\'s own minor units', () => {
    const body = lockFailureBody(refused('AUTHORIZE', { order: { amount: '1250', currency: 'JPY' } }), null);
    expect(body.transaction).toEqual({ id: 'txn-2', type: 'AUTHORIZATION', amount: 1250, currency: 'JPY', acquirer: { id: 'TEST_ACQUIRER' } });
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

  it('a REFUND that waits for approval is a REFUND_REQUEST, as the ledger would record it', () => {
    const refund = { transaction: { amount: '5.00', currency: 'USD', targetTransactionId: 'pay-1' } };
    const approving: RefusedOperation['merchant'] = {
      mode: 'TEST',
      settings: { ...TEST.settings, privileges: { ...TEST.settings.privileges, refundRequiresApproval: true } },
    };
    expect(lockFailureBody(refused('REFUND', refund, 'txn-2', approving), retrieved).transaction).toMatchObject({ type: 'REFUND_REQUEST' });
    const asked = { transaction: { ...refund.transaction, priorApproval: 'REQUESTED' } };
    expect(lockFailureBody(refused('REFUND', asked), retrieved).transaction).toMatchObject({ type: 'REFUND_REQUEST' });
    expect(lockFailureBody(refused('REFUND', refund), retrieved).transaction).toMatchObject({ type: 'REFUND' });
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

    // A merchant with no acquirer configured: the order's, where it names one.
    expect(lockFailureBody(refused('VERIFY', { order: { currency: 'USD' } }, 'txn-2', LIVE), cardOrder).transaction).toMatchObject({
      acquirer: { id: 'TEST_ACQUIRER' },
    });
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

  it('an INITIATE_BROWSER_PAYMENT is a PAYMENT or an AUTHORIZATION as browserPayment.provider_a.operation says; a bank transfer always pays', () => {
    const initiate = (sourceOfFunds: JsonObject, browserPayment: JsonObject = { returnUrl: 'https://shop.example/back' }) =>
      lockFailureBody(refused('INITIATE_BROWSER_PAYMENT', { order: { amount: '42.50', currency: 'EUR' }, browserPayment, sourceOfFunds }), null).transaction;
    const providerA = (operation: string) => ({ returnUrl: 'https://shop.example/back', provider_a: { operation, paymentConfirmation: 'CONFIRM_AT_PROVIDER' } });

    expect(initiate({ type: 'PROVIDER_A' }, providerA('PAY'))).toMatchObject({ id: 'txn-2', type: 'PAYMENT', amount: 42.5, currency: 'EUR' });
    expect(initiate({ type: 'PROVIDER_A' }, providerA('AUTHORIZE'))).toMatchObject({ type: 'AUTHORIZATION' });
    expect(initiate({ type: 'PROVIDER_A' })).toMatchObject({ type: 'PAYMENT' });
    expect(initiate({ type: 'PROVIDER_B', provided: { provider_b: { bankIdentifier: '12345678' } } })).toMatchObject({ type: 'PAYMENT' });
    expect(initiate({ type: 'PROVIDER_C' })).toMatchObject({ type: 'PAYMENT' });
  });

  it('a CONFIRM_BROWSER_PAYMENT is its initiated payment, at the amount it confirms or the one initiated', () => {
    const changed = lockFailureBody(refused('CONFIRM_BROWSER_PAYMENT', { order: { amount: '40.00' } }, 'bp-1'), retrieved);
    expect(changed.transaction).toEqual({ id: 'bp-1', type: 'AUTHORIZATION', amount: 40, currency: 'EUR', acquirer: { id: 'PROVIDER_A' } });
    const same = lockFailureBody(refused('CONFIRM_BROWSER_PAYMENT', {}, 'bp-1'), retrieved);
    expect(same.transaction).toEqual({ id: 'bp-1', type: 'AUTHORIZATION', amount: 42.5, currency: 'EUR', acquirer: { id: 'PROVIDER_A' } });
  });

  describe('the acquirer of an operation on an order not created yet (or not read): the one it would have gone to', () => {
    const newOrder = null;

    it('a VERIFY, AUTHORIZE or PAY: the merchant\'s card acquirer', () => {
      expect(lockFailureBody(refused('VERIFY', { order: { currency: 'USD' } }), newOrder).transaction).toEqual({
        id: 'txn-2',
        type: 'VERIFICATION',
        amount: 0,
        currency: 'USD',
        acquirer: { id: 'TEST_ACQUIRER' },
      });
      for (const apiOperation of ['AUTHORIZE', 'PAY'] as const) {
        const body = lockFailureBody(refused(apiOperation, { order: { amount: '10.00', currency: 'USD' }, sourceOfFunds: { token: '9123456789012345' } }), newOrder);
        expect(body.transaction).toMatchObject({ acquirer: { id: 'TEST_ACQUIRER' } });
      }
    });

    it('an INITIATE_BROWSER_PAYMENT: its provider\'s, as sourceOfFunds.type names it', () => {
      const initiate = (type: string) =>
        lockFailureBody(refused('INITIATE_BROWSER_PAYMENT', { order: { amount: '42.50', currency: 'EUR' }, sourceOfFunds: { type } }), newOrder).transaction;
      expect(initiate('PROVIDER_A')).toMatchObject({ acquirer: { id: 'PROVIDER_A_SIMULATOR' } });
      expect(initiate('PROVIDER_B')).toMatchObject({ acquirer: { id: 'PROVIDER_B_SIMULATOR' } });
      expect(initiate('PROVIDER_C')).toMatchObject({ acquirer: { id: 'PROVIDER_C_SIMULATOR' } });
    });

    it('a standalone REFUND (sourceOfFunds, no target): the merchant\'s card acquirer', () => {
      const toToken = { sourceOfFunds: { token: '9123456789012345' }, transaction: { amount: '5.00', currency: 'USD' } };
      expect(lockFailureBody(refused('REFUND', toToken), newOrder).transaction).toEqual({
        id: 'txn-2',
        type: 'REFUND',
        amount: 5,
        currency: 'USD',
        acquirer: { id: 'TEST_ACQUIRER' },
      });
      const toCard = { sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008' } } }, transaction: { amount: '5.00', currency: 'USD' } };
      expect(lockFailureBody(refused('REFUND', toCard), newOrder).transaction).toMatchObject({ acquirer: { id: 'TEST_ACQUIRER' } });
    });

    it('is not named where it depends on a target the edge cannot see: a CAPTURE, VOID, CONFIRM, a REFUND naming a target or giving no card', () => {
      const unseen = [
        refused('CAPTURE', { transaction: { amount: '5.00', currency: 'USD', targetTransactionId: 'pay-1' } }),
        refused('VOID', { transaction: { targetTransactionId: 'pay-1' } }),
        refused('CONFIRM_BROWSER_PAYMENT', {}, 'bp-1'),
        refused('REFUND', { transaction: { amount: '5.00', currency: 'USD' } }),
        refused('REFUND', { sourceOfFunds: { token: '9123456789012345' }, transaction: { amount: '5.00', currency: 'USD', targetTransactionId: 'pay-1' } }),
      ];
      for (const operation of unseen) {
        expect(lockFailureBody(operation, newOrder).transaction).not.toHaveProperty('acquirer');
      }
    });

    it('is not named for a merchant with no acquirer or provider configured (a live merchant)', () => {
      const live = [
        refused('VERIFY', { order: { currency: 'USD' } }, 'txn-2', LIVE),
        refused('PAY', { order: { amount: '10.00', currency: 'USD' } }, 'txn-2', LIVE),
        refused('AUTHORIZE', { order: { amount: '10.00', currency: 'USD' } }, 'txn-2', LIVE),
        refused('INITIATE_BROWSER_PAYMENT', { order: { amount: '42.50', currency: 'EUR' }, sourceOfFunds: { type: 'PROVIDER_A' } }, 'txn-2', LIVE),
        refused('REFUND', { sourceOfFunds: { token: '9123456789012345' }, transaction: { amount: '5.00', currency: 'USD' } }, 'txn-2', LIVE),
      ];
      for (const operation of live) {
        expect(lockFailureBody(operation, newOrder).transaction).not.toHaveProperty('acquirer');
      }
    });

    it('wins over the order\'s: a card operation on an order a browser payment opened still goes to the card acquirer', () => {
      const browserOrder = { ...retrieved, transaction: [(retrieved.transaction as JsonObject[])[1]] };
      expect(lockFailureBody(refused('PAY', { order: { amount: '1.00', currency: 'EUR' } }), browserOrder).transaction).toMatchObject({
        acquirer: { id: 'TEST_ACQUIRER' },
      });
      const cardOrder = { ...retrieved, transaction: [(retrieved.transaction as JsonObject[])[0]] };
      const initiate = refused('INITIATE_BROWSER_PAYMENT', { order: { amount: '1.00', currency: 'USD' }, sourceOfFunds: { type: 'PROVIDER_B' } });
      expect(lockFailureBody(initiate, cardOrder).transaction).toMatchObject({ acquirer: { id: 'PROVIDER_B_SIMULATOR' } });
    });
  });
});
