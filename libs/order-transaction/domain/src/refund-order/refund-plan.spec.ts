import {
  defaultMerchantSettings,
  LedgerOrderView,
  LedgerTransactionView,
  MerchantContext,
  RefundRequest,
  validateOrderOperationRequest,
} from '@gateway/contracts';
import { Money } from '@gateway/money';
import { TEST_CARD } from '@gateway/testing';
import { refusal } from '../card-operation/testing-orders';
import { defaultTaxAmount, planRefund, unrefunded } from './refund-plan';

const merchant = (privileges: Partial<MerchantContext['settings']['privileges']> = {}): MerchantContext => {
  const settings = defaultMerchantSettings();
  return { id: 'TESTM1', mode: 'TEST', settings: { ...settings, privileges: { ...settings.privileges, ...privileges } } };
};

const refund = (transaction: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): RefundRequest =>
  validateOrderOperationRequest('REFUND', { apiOperation: 'REFUND', transaction: { amount: '10.00', currency: 'USD', ...transaction }, ...extra });

let sequence = 0;
const txn = (id: string, type: LedgerTransactionView['type'], amount: string, extra: Partial<LedgerTransactionView> = {}): LedgerTransactionView => ({
  id,
  type,
  apiOperation: type,
  amount,
  currency: 'USD',
  result: 'SUCCESS',
  gatewayCode: 'APPROVED',
  createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, sequence++)).toISOString(),
  ...extra,
});

function order(transactions: LedgerTransactionView[], captured = '100.00'): LedgerOrderView {
  return {
    id: 'order-1',
    currency: 'USD',
    amount: '100.00',
    status: 'CAPTURED',
    totalAuthorizedAmount: '100.00',
    totalCapturedAmount: captured,
    totalRefundedAmount: '0.00',
    creationTime: '2030-01-01T00:00:00.000Z',
    lastUpdatedTime: '2030-01-01T00:00:00.000Z',
    transactions,
  };
}

const card = { number: TEST_CARD, expiry: { month: '1', year: '39' } };

describe('a linked refund (the order exists)', () => {
  const paid = order([txn('pay-1', 'PAYMENT', '100.00', { fundingType: 'CARD' })]);

  it('refunds the one payment through the acquirer, without a card', () => {
    const plan = planRefund(refund(), paid, merchant());
    expect(plan).toMatchObject({ linked: true, type: 'REFUND', target: { id: 'pay-1' }, route: { kind: 'ACQUIRER' } });
    expect(plan.route).toEqual({ kind: 'ACQUIRER' });
    expect(plan.amount.equals(Money.of('10.00', 'USD'))).toBe(true);
  });

  it('refuses sourceOfFunds (UNSUPPORTED)', () => {
    const err = refusal(() => planRefund(refund({}, { sourceOfFunds: { provided: { card } } }), paid, merchant()));
    expect(err).toMatchObject({ code: 'INVALID_FIELD', field: 'sourceOfFunds', validationType: 'UNSUPPORTED' });
    expect(err.explanation).toContain("Order 'order-1' exists");
    expect(err.explanation).not.toContain(TEST_CARD);
  });

  it("takes the CARD type a named session's card filled in, and still refuses a source (UNSUPPORTED)", () => {
    const session = { id: 'SESSION0002ABCDEFGHIJKLMNOPQRSTU', sealedCard: 'sealed-by-the-vault' };
    const typeOnly = refund({}, { sourceOfFunds: { type: 'CARD' } });
    expect(planRefund(typeOnly, paid, merchant(), session)).toMatchObject({ linked: true, type: 'REFUND', target: { id: 'pay-1' }, route: { kind: 'ACQUIRER' } });
    // Without a session's card the type came from the request itself.
    expect(refusal(() => planRefund(typeOnly, paid, merchant(), { id: session.id }))).toMatchObject({ field: 'sourceOfFunds', validationType: 'UNSUPPORTED' });
    expect(refusal(() => planRefund(typeOnly, paid, merchant()))).toMatchObject({ field: 'sourceOfFunds', validationType: 'UNSUPPORTED' });
    for (const sourceOfFunds of [{ type: 'CARD', token: '9123456789012345' }, { type: 'CARD', provided: { card: { securityCode: '100' } } }]) {
      expect(refusal(() => planRefund(refund({}, { sourceOfFunds }), paid, merchant(), session))).toMatchObject({ field: 'sourceOfFunds', validationType: 'UNSUPPORTED' });
    }
  });

  it("refuses a currency other than the order's", () => {
    const err = refusal(() => planRefund(refund({ currency: 'EUR' }), paid, merchant()));
    expect(err.toResponseBody()).toEqual({
      error: {
        cause: 'INVALID_REQUEST',
        explanation: "Value 'EUR' is invalid. The order's currency is USD.",
        field: 'transaction.currency',
        validationType: 'INVALID',
      },
      result: 'ERROR',
    });
  });

  it('goes to browser-payment for an order a provider funded', () => {
    const providerPaid = order([txn('bp-1', 'PAYMENT', '100.00', { fundingType: 'PROVIDER_A' })]);
    expect(planRefund(refund(), providerPaid, merchant()).route).toEqual({ kind: 'PROVIDER' });
  });

  it('waits for approval (REFUND_REQUEST) when the merchant requires it or the request asks for it', () => {
    expect(planRefund(refund(), paid, merchant({ refundRequiresApproval: true }))).toMatchObject({ type: 'REFUND_REQUEST', route: { kind: 'APPROVAL' } });
    expect(planRefund(refund({ priorApproval: 'REQUESTED' }), paid, merchant())).toMatchObject({ type: 'REFUND_REQUEST', route: { kind: 'APPROVAL' } });
  });
});

describe('target identification without transaction.targetTransactionId (spec refund rule 4)', () => {
  it('refuses an order with nothing captured or paid to refund (zero candidates)', () => {
    const cases = [
      order([txn('v', 'VERIFICATION', '0.00')], '0.00'),
      order([txn('a', 'AUTHORIZATION', '100.00')], '0.00'),
      order([txn('p', 'PAYMENT', '100.00', { result: 'FAILURE', gatewayCode: 'DECLINED' })], '0.00'),
    ];
    for (const candidateless of cases) {
      const err = refusal(() => planRefund(refund(), candidateless, merchant()));
      expect(err.toResponseBody()).toEqual({
        error: { cause: 'INVALID_REQUEST', explanation: "Order 'order-1' has no captured or paid transaction to refund." },
        result: 'ERROR',
      });
    }
  });

  it('refuses an order whose payment is voided or being voided: a pending void takes it out of reach', () => {
    for (const result of ['SUCCESS', 'PENDING', 'UNKNOWN'] as const) {
      const voiding = order([txn('p', 'PAYMENT', '100.00'), txn('vp', 'VOID_PAYMENT', '100.00', { targetTransactionId: 'p', result })], '100.00');
      expect(refusal(() => planRefund(refund(), voiding, merchant())).explanation).toBe(
        "Order 'order-1' has nothing to refund: its payments and captures are voided or being voided.",
      );
      const named = refusal(() => planRefund(refund({ targetTransactionId: 'p' }), voiding, merchant()));
      expect([named.field, named.explanation]).toEqual([
        'transaction.targetTransactionId',
        `Value 'p' is invalid. Transaction 'p' is ${result === 'SUCCESS' ? 'voided' : `being voided (its void is ${result})`} by transaction 'vp': nothing of it is left to refund.`,
      ]);
    }
    // A failed void leaves the payment refundable.
    const failedVoid = order([txn('p', 'PAYMENT', '100.00'), txn('vp', 'VOID_PAYMENT', '100.00', { targetTransactionId: 'p', result: 'FAILURE' })], '100.00');
    expect(planRefund(refund(), failedVoid, merchant()).target?.id).toBe('p');
  });

  it('refuses a named capture that is voided even while the order has another capture to refund', () => {
    const twoCaptures = order(
      [
        txn('a', 'AUTHORIZATION', '100.00'),
        txn('c1', 'CAPTURE', '50.00', { targetTransactionId: 'a' }),
        txn('c2', 'CAPTURE', '50.00', { targetTransactionId: 'a' }),
        txn('vc1', 'VOID_CAPTURE', '50.00', { targetTransactionId: 'c1' }),
      ],
      '50.00',
    );
    expect(refusal(() => planRefund(refund({ targetTransactionId: 'c1' }), twoCaptures, merchant())).field).toBe('transaction.targetTransactionId');
    expect(planRefund(refund({ targetTransactionId: 'c2' }), twoCaptures, merchant()).target?.id).toBe('c2');
  });

  it('answers an order whose payments are all refunded with the refund limit (zero candidates)', () => {
    const refunded = order([txn('p', 'PAYMENT', '100.00'), txn('r', 'REFUND', '100.00', { targetTransactionId: 'p' })]);
    expect(refusal(() => planRefund(refund(), refunded, merchant()))).toMatchObject({
      field: 'transaction.amount',
      validationType: 'INVALID',
      explanation: "Value '10.00' is invalid. The amount available for refund on this order is 0.00 USD.",
    });
    // With the Excessive Refund privilege the payment may be refunded beyond its amount: it is the target.
    expect(planRefund(refund(), refunded, merchant({ excessiveRefund: true })).target?.id).toBe('p');
  });

  it('picks the one PAYMENT or CAPTURE with an unrefunded remainder', () => {
    const captured = order([
      txn('a', 'AUTHORIZATION', '100.00'),
      txn('c1', 'CAPTURE', '40.00'),
      txn('c2', 'CAPTURE', '60.00'),
      txn('r1', 'REFUND', '40.00', { targetTransactionId: 'c1' }),
    ]);
    expect(planRefund(refund(), captured, merchant()).target?.id).toBe('c2');
  });

  it('refuses two candidates, naming them', () => {
    const twice = order([txn('c1', 'CAPTURE', '40.00'), txn('c2', 'CAPTURE', '60.00')]);
    const err = refusal(() => planRefund(refund(), twice, merchant()));
    expect(err).toMatchObject({ field: 'transaction.targetTransactionId', validationType: 'MISSING' });
    expect(err.explanation).toContain('has 2 transactions that can be refunded (c1, c2)');
  });

  it('takes a named target among several, and refuses one that is not a successful PAYMENT or CAPTURE', () => {
    const twice = order([txn('c1', 'CAPTURE', '40.00'), txn('c2', 'CAPTURE', '60.00'), txn('v', 'VERIFICATION', '0.00')]);
    expect(planRefund(refund({ targetTransactionId: 'c1' }), twice, merchant()).target?.id).toBe('c1');
    expect(refusal(() => planRefund(refund({ targetTransactionId: 'nope' }), twice, merchant()))).toMatchObject({
      field: 'transaction.targetTransactionId',
      validationType: 'INVALID',
      explanation: "Value 'nope' is invalid. Order 'order-1' has no transaction with this id.",
    });
    expect(refusal(() => planRefund(refund({ targetTransactionId: 'v' }), twice, merchant())).explanation).toBe(
      "Value 'v' is invalid. Transaction 'v' is a VERIFICATION: only a successful PAYMENT or CAPTURE can be refunded.",
    );
  });
});

describe('what is left to refund of a transaction', () => {
  it('counts refunds that moved or may move money and outstanding requests, not failed or voided ones', () => {
    const p = txn('p', 'PAYMENT', '100.00');
    const view = order([
      p,
      txn('r1', 'REFUND', '10.00', { targetTransactionId: 'p' }),
      txn('r2', 'REFUND', '20.00', { targetTransactionId: 'p', result: 'PENDING' }),
      txn('r3', 'REFUND', '30.00', { targetTransactionId: 'p', result: 'FAILURE' }),
      txn('r4', 'REFUND_REQUEST', '5.00', { targetTransactionId: 'p', result: 'PENDING' }),
      txn('r5', 'REFUND', '1.00', { targetTransactionId: 'p' }),
      txn('vr', 'VOID_REFUND', '1.00', { targetTransactionId: 'r5' }),
    ]);
    expect(unrefunded(view, p).toFixed()).toBe('65.00');
  });

  it('keeps counting a refund whose void is under way or failed: only a voided refund gives its amount back', () => {
    const p = txn('p', 'PAYMENT', '100.00');
    const view = order([
      p,
      txn('r1', 'REFUND', '10.00', { targetTransactionId: 'p' }),
      txn('v1', 'VOID_REFUND', '10.00', { targetTransactionId: 'r1', result: 'PENDING' }),
      txn('r2', 'REFUND', '20.00', { targetTransactionId: 'p' }),
      txn('v2', 'VOID_REFUND', '20.00', { targetTransactionId: 'r2', result: 'FAILURE' }),
    ]);
    expect(unrefunded(view, p).toFixed()).toBe('70.00');
  });

  it('is nothing once the transaction is voided or being voided', () => {
    const p = txn('p', 'PAYMENT', '100.00');
    for (const result of ['SUCCESS', 'PENDING', 'UNKNOWN'] as const) {
      expect(unrefunded(order([p, txn('v', 'VOID_PAYMENT', '100.00', { targetTransactionId: 'p', result })], '0.00'), p).toFixed()).toBe('0.00');
    }
  });
});

describe('the default taxAmount of a full refund (spec refund rule 5)', () => {
  const taxed = order([
    txn('a', 'AUTHORIZATION', '100.00'),
    txn('c1', 'CAPTURE', '40.00', { taxAmount: '4.00' }),
    txn('c2', 'CAPTURE', '60.00', { taxAmount: '6.50' }),
  ]);

  it('is the total tax captured on the order, for the whole captured amount', () => {
    expect(defaultTaxAmount(taxed, Money.of('100.00', 'USD'))?.toFixed()).toBe('10.50');
    // One refund of the whole order through one of its two captures: only with the Excessive Refund
    // privilege since each capture is refunded up to its own amount (refund-rules.md, amendment 2026-11-26).
    const plan = planRefund(refund({ amount: '100.00', targetTransactionId: 'c2' }), taxed, merchant({ excessiveRefund: true }));
    expect(plan.taxAmount?.toFixed()).toBe('10.50');
  });

  it('is absent for a partial refund, or when no capture named its tax', () => {
    expect(defaultTaxAmount(taxed, Money.of('99.99', 'USD'))).toBeNull();
    expect(defaultTaxAmount(order([txn('p', 'PAYMENT', '100.00')]), Money.of('100.00', 'USD'))).toBeNull();
  });

  it('leaves out the tax of a voided capture', () => {
    const voided = order([...taxed.transactions, txn('vc', 'VOID_CAPTURE', '40.00', { targetTransactionId: 'c1' })], '60.00');
    expect(defaultTaxAmount(voided, Money.of('60.00', 'USD'))?.toFixed()).toBe('6.50');
  });

  it("is the authorisation's tax when a capture naming no tax captured all of it", () => {
    const whole = order([
      txn('a', 'AUTHORIZATION', '100.00', { taxAmount: '8.00' }),
      txn('c', 'CAPTURE', '100.00', { targetTransactionId: 'a' }),
    ]);
    expect(defaultTaxAmount(whole, Money.of('100.00', 'USD'))?.toFixed()).toBe('8.00');
    // A capture's own tax wins; a capture of part of it says nothing about the tax captured.
    const own = order([whole.transactions[0], txn('c', 'CAPTURE', '100.00', { targetTransactionId: 'a', taxAmount: '7.00' })]);
    expect(defaultTaxAmount(own, Money.of('100.00', 'USD'))?.toFixed()).toBe('7.00');
    const part = order([whole.transactions[0], txn('c', 'CAPTURE', '60.00', { targetTransactionId: 'a' })], '60.00');
    expect(defaultTaxAmount(part, Money.of('60.00', 'USD'))).toBeNull();
  });

  it("gives way to the request's own taxAmount", () => {
    expect(planRefund(refund({ amount: '100.00', taxAmount: '1.25', targetTransactionId: 'c1' }), taxed, merchant()).taxAmount?.toFixed()).toBe('1.25');
  });
});

describe('a standalone refund (a new order)', () => {
  it("goes to the merchant's card acquirer, named before it answers (a REFUND_REQUEST's too); a linked refund's is its target's", () => {
    const toToken = refund({}, { sourceOfFunds: { token: '9123456789012345' } });
    expect(planRefund(toToken, null, merchant()).acquirerId).toBe('TEST_ACQUIRER');
    expect(planRefund(refund({}, { sourceOfFunds: { type: 'CARD', provided: { card } } }), null, merchant()).acquirerId).toBe('TEST_ACQUIRER');
    const awaiting = planRefund(toToken, null, merchant({ refundRequiresApproval: true }));
    expect(awaiting).toMatchObject({ type: 'REFUND_REQUEST', route: { kind: 'APPROVAL' }, acquirerId: 'TEST_ACQUIRER' });
    // A live merchant has no acquirer configured: none to name.
    const live: MerchantContext = { ...merchant({ refundRequiresApproval: true }), mode: 'LIVE' };
    expect(planRefund(toToken, null, live)).not.toHaveProperty('acquirerId');
    expect(planRefund(refund(), order([txn('pay-1', 'PAYMENT', '100.00', { fundingType: 'CARD' })]), merchant())).not.toHaveProperty('acquirerId');
  });

  it('refunds to the card the request gives, through the acquirer', () => {
    const plan = planRefund(refund({}, { sourceOfFunds: { type: 'CARD', provided: { card } } }), null, merchant());
    expect(plan).toMatchObject({ linked: false, type: 'REFUND', target: null, route: { kind: 'ACQUIRER' } });
    expect(plan.route.kind === 'ACQUIRER' && plan.route.card?.number.masked).toBe('512345xxxxxx0008');
  });

  it('refunds to a token through the vault, passing the explicit card values along', () => {
    const plan = planRefund(refund({}, { sourceOfFunds: { token: '9123456789012345', provided: { card: { securityCode: '100' } } } }), null, merchant());
    expect(plan.route).toEqual({ kind: 'VAULT', source: { token: '9123456789012345' } });
    expect(plan.card).toMatchObject({ securityCode: '100' });
  });

  it("refunds to the named session's card through the vault, with the token and the explicit values beside it", () => {
    const session = { id: 'SESSION0002ABCDEFGHIJKLMNOPQRSTU', sealedCard: 'sealed-by-the-vault' };
    const sealed = { value: 'sealed-by-the-vault', bindingId: session.id };
    const sessionOnly = planRefund(refund({}, { sourceOfFunds: { type: 'CARD', provided: { card: { securityCode: '100' } } } }), null, merchant(), session);
    expect(sessionOnly.route).toEqual({ kind: 'VAULT', source: { sealed } });
    expect(sessionOnly.card).toMatchObject({ securityCode: '100' });
    const withToken = planRefund(refund({}, { sourceOfFunds: { token: '9123456789012345' } }), null, merchant(), session);
    expect(withToken.route).toEqual({ kind: 'VAULT', source: { token: '9123456789012345', sealed } });
    // A number without its expiry completes the session's card: still the vault's to open.
    const numberOnly = planRefund(refund({}, { sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD } } } }), null, merchant(), session);
    expect(numberOnly.route).toEqual({ kind: 'VAULT', source: { sealed } });
    // A complete card in the request wins whole: no need for the vault.
    const explicit = planRefund(refund({}, { sourceOfFunds: { type: 'CARD', provided: { card } } }), null, merchant(), session);
    expect(explicit.route.kind).toBe('ACQUIRER');
  });

  it('needs sourceOfFunds (MISSING), a card number and an expiry', () => {
    expect(refusal(() => planRefund(refund(), null, merchant()))).toMatchObject({ field: 'sourceOfFunds', validationType: 'MISSING' });
    expect(refusal(() => planRefund(refund({}, { sourceOfFunds: { type: 'CARD' } }), null, merchant()))).toMatchObject({
      field: 'sourceOfFunds.provided.card.number',
      validationType: 'MISSING',
    });
    expect(
      refusal(() => planRefund(refund({}, { sourceOfFunds: { provided: { card: { number: TEST_CARD } } } }), null, merchant())),
    ).toMatchObject({ field: 'sourceOfFunds.provided.card.expiry', validationType: 'MISSING' });
  });

  it('has no transaction to target', () => {
    const err = refusal(() =>
      planRefund(refund({ targetTransactionId: 'pay-1' }, { sourceOfFunds: { provided: { card } } }), null, merchant()),
    );
    expect(err).toMatchObject({ field: 'transaction.targetTransactionId', validationType: 'INVALID' });
  });

  it('waits for approval only with a token: the ledger cannot hold a card number until then', () => {
    const approving = merchant({ refundRequiresApproval: true });
    expect(planRefund(refund({}, { sourceOfFunds: { token: '9123456789012345' } }), null, approving)).toMatchObject({
      type: 'REFUND_REQUEST',
      route: { kind: 'APPROVAL' },
    });
    expect(refusal(() => planRefund(refund({}, { sourceOfFunds: { provided: { card } } }), null, approving))).toMatchObject({
      field: 'sourceOfFunds.provided.card',
      validationType: 'UNSUPPORTED',
    });
  });

  it('is retried with a new transaction id on the order its declined attempt opened (spec: a failed operation needs a new id for each retry)', () => {
    const declined = order([txn('refund-1', 'REFUND', '10.00', { result: 'FAILURE', gatewayCode: 'EXPIRED_CARD', fundingType: 'CARD' })], '0.00');
    const retry = planRefund(refund({}, { sourceOfFunds: { type: 'CARD', provided: { card } } }), declined, merchant());
    expect(retry).toMatchObject({ linked: false, type: 'REFUND', target: null, route: { kind: 'ACQUIRER' }, acquirerId: 'TEST_ACQUIRER' });
    // Still the order's currency, and still no target: it is the same standalone refund.
    expect(refusal(() => planRefund(refund({ currency: 'EUR' }, { sourceOfFunds: { provided: { card } } }), declined, merchant()))).toMatchObject({
      field: 'transaction.currency',
      validationType: 'INVALID',
    });
    const targeted = refusal(() => planRefund(refund({ targetTransactionId: 'refund-1' }, { sourceOfFunds: { provided: { card } } }), declined, merchant()));
    expect(targeted).toMatchObject({ field: 'transaction.targetTransactionId', validationType: 'INVALID' });
    expect(targeted.explanation).toContain('only declined standalone refunds');
    // Without sourceOfFunds it is no retry but a refund of the order, which has nothing to refund.
    expect(refusal(() => planRefund(refund(), declined, merchant())).explanation).toBe("Order 'order-1' has no captured or paid transaction to refund.");
    // Once one of them moved money (or may have), the order is no longer new: rule 2's new order id.
    for (const result of ['SUCCESS', 'PENDING', 'UNKNOWN'] as const) {
      const moved = order([txn('refund-1', 'REFUND', '10.00', { result, fundingType: 'CARD' })], '0.00');
      expect(refusal(() => planRefund(refund({}, { sourceOfFunds: { provided: { card } } }), moved, merchant()))).toMatchObject({
        field: 'sourceOfFunds',
        validationType: 'UNSUPPORTED',
      });
    }
  });

  it('refuses an unknown currency on its field', () => {
    expect(refusal(() => planRefund(refund({ currency: 'XQQ' }, { sourceOfFunds: { provided: { card } } }), null, merchant()))).toMatchObject({
      field: 'transaction.currency',
    });
  });
});
