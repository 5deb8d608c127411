import { validateOrderOperationRequest, VoidRequest } from '@gateway/contracts';
import { orderOf, refusal, txn } from '../card-operation/testing-orders';
import { planVoid } from './void-plan';

const voidOf = (targetTransactionId: string): VoidRequest =>
  validateOrderOperationRequest('VOID', { apiOperation: 'VOID', transaction: { targetTransactionId } });

describe('planVoid', () => {
  it.each([
    ['AUTHORIZATION', 'VOID_AUTHORIZATION'],
    ['CAPTURE', 'VOID_CAPTURE'],
    ['PAYMENT', 'VOID_PAYMENT'],
    ['REFUND', 'VOID_REFUND'],
  ] as const)('voids a %s whole as %s', (type, voidType) => {
    const plan = planVoid(voidOf('t1'), orderOf([txn('t1', type, '12.34')]), 'order-1');
    expect([plan.type, plan.amount.toFixed(), plan.target.id]).toEqual([voidType, '12.34', 't1']);
  });

  it('refuses a transaction already voided, or whose void is under way', () => {
    const voided = orderOf([txn('p1', 'PAYMENT', '9.00'), txn('v1', 'VOID_PAYMENT', '9.00', { targetTransactionId: 'p1' })]);
    expect(refusal(() => planVoid(voidOf('p1'), voided, 'order-1')).explanation).toBe(
      "Value 'p1' is invalid. Transaction 'p1' is already voided by transaction 'v1'.",
    );
    const pending = orderOf([txn('p1', 'PAYMENT', '9.00'), txn('v1', 'VOID_PAYMENT', '9.00', { targetTransactionId: 'p1', result: 'UNKNOWN' })]);
    expect(refusal(() => planVoid(voidOf('p1'), pending, 'order-1')).explanation).toContain('being voided (its void is UNKNOWN)');
    // A failed void voided nothing: the transaction may be voided again.
    const failed = orderOf([txn('p1', 'PAYMENT', '9.00'), txn('v1', 'VOID_PAYMENT', '9.00', { targetTransactionId: 'p1', result: 'FAILURE' })]);
    expect(planVoid(voidOf('p1'), failed, 'order-1').type).toBe('VOID_PAYMENT');
  });

  it('voids only the latest of a chain: captures before their authorization, refunds before their capture', () => {
    const order = orderOf([
      txn('a1', 'AUTHORIZATION', '50.00'),
      txn('c1', 'CAPTURE', '50.00', { targetTransactionId: 'a1' }),
      txn('r1', 'REFUND', '10.00', { targetTransactionId: 'c1' }),
    ]);
    expect(refusal(() => planVoid(voidOf('a1'), order, 'order-1')).explanation).toContain("void CAPTURE 'c1' first");
    expect(refusal(() => planVoid(voidOf('c1'), order, 'order-1')).explanation).toContain("void REFUND 'r1' first");
    expect(planVoid(voidOf('r1'), order, 'order-1').type).toBe('VOID_REFUND');
    const refundVoided = orderOf([...order.transactions, txn('v1', 'VOID_REFUND', '10.00', { targetTransactionId: 'r1' })]);
    expect(planVoid(voidOf('c1'), refundVoided, 'order-1').type).toBe('VOID_CAPTURE');
  });

  it('waits for the void of a capture or refund under way: that void may still fail, and its target then stands', () => {
    for (const result of ['PENDING', 'UNKNOWN'] as const) {
      const order = orderOf([
        txn('a1', 'AUTHORIZATION', '50.00'),
        txn('c1', 'CAPTURE', '50.00', { targetTransactionId: 'a1' }),
        txn('w1', 'VOID_CAPTURE', '50.00', { targetTransactionId: 'c1', result }),
      ]);
      expect(refusal(() => planVoid(voidOf('a1'), order, 'order-1')).explanation).toBe(
        `Value 'a1' is invalid. Transaction 'a1' is not the latest of its chain: void CAPTURE 'c1' first (a void under way must have succeeded: 'w1' is ${result}).`,
      );
    }
  });

  it('waits for a refund request on a capture or payment before voiding it', () => {
    for (const type of ['CAPTURE', 'PAYMENT'] as const) {
      const order = orderOf([txn('t1', type, '50.00'), txn('rr', 'REFUND_REQUEST', '10.00', { targetTransactionId: 't1', result: 'PENDING' })]);
      expect(refusal(() => planVoid(voidOf('t1'), order, 'order-1')).explanation).toContain("void REFUND_REQUEST 'rr' first");
    }
  });

  it('voids a card transaction at the acquirer, and a browser payment\'s authorization at its provider', () => {
    const card = planVoid(voidOf('a1'), orderOf([txn('a1', 'AUTHORIZATION', '12.34')]), 'order-1');
    expect([card.type, card.route]).toEqual(['VOID_AUTHORIZATION', 'ACQUIRER']);
    const provider = planVoid(voidOf('b1'), orderOf([txn('b1', 'AUTHORIZATION', '30.00', { fundingType: 'PROVIDER_A' })]), 'order-1');
    expect([provider.type, provider.amount.toFixed(), provider.target.id, provider.route]).toEqual(['VOID_AUTHORIZATION', '30.00', 'b1', 'PROVIDER']);
  });

  it('voids a browser payment\'s authorization only once nothing captured of it stands, and never what a provider moved', () => {
    const captured = orderOf([
      txn('b1', 'AUTHORIZATION', '30.00', { fundingType: 'PROVIDER_A' }),
      txn('c1', 'CAPTURE', '10.00', { targetTransactionId: 'b1', fundingType: 'PROVIDER_A' }),
    ]);
    expect(refusal(() => planVoid(voidOf('b1'), captured, 'order-1')).explanation).toContain("void CAPTURE 'c1' first");
    // The capture moved money at the provider: it goes back by a refund, not a void.
    expect(refusal(() => planVoid(voidOf('c1'), captured, 'order-1')).explanation).toBe(
      "Value 'c1' is invalid. Transaction 'c1' was funded through a browser payment provider, which voids only authorizations: refund it instead.",
    );
    const voided = orderOf([
      txn('b1', 'AUTHORIZATION', '30.00', { fundingType: 'PROVIDER_A' }),
      txn('v1', 'VOID_AUTHORIZATION', '30.00', { targetTransactionId: 'b1', fundingType: 'PROVIDER_A', result: 'PENDING' }),
    ]);
    expect(refusal(() => planVoid(voidOf('b1'), voided, 'order-1')).explanation).toContain('being voided (its void is PENDING)');
  });

  it('refuses what cannot be voided, saying why', () => {
    const order = orderOf([
      txn('v', 'VERIFICATION', '0'),
      txn('d', 'PAYMENT', '5.00', { result: 'FAILURE', gatewayCode: 'DECLINED' }),
      txn('b', 'PAYMENT', '5.00', { fundingType: 'PROVIDER_A' }),
    ]);
    expect(refusal(() => planVoid(voidOf('v'), order, 'order-1')).explanation).toContain("is a VERIFICATION: only a successful");
    expect(refusal(() => planVoid(voidOf('d'), order, 'order-1')).explanation).toContain('is a FAILURE PAYMENT');
    expect(refusal(() => planVoid(voidOf('b'), order, 'order-1')).explanation).toContain('browser payment provider');
    expect(refusal(() => planVoid(voidOf('x'), order, 'order-1'))).toMatchObject({ field: 'transaction.targetTransactionId', validationType: 'INVALID' });
    expect(refusal(() => planVoid(voidOf('x'), null, 'nope')).explanation).toContain("Order 'nope' does not exist");
  });
});
