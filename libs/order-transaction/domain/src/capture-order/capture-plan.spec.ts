import { CaptureRequest, validateOrderOperationRequest } from '@gateway/contracts';
import { orderOf, refusal, txn } from '../card-operation/testing-orders';
import { planCapture } from './capture-plan';

const capture = (transaction: Record<string, unknown> = {}): CaptureRequest =>
  validateOrderOperationRequest('CAPTURE', { apiOperation: 'CAPTURE', transaction: { amount: '10.00', currency: 'USD', ...transaction } });

describe('planCapture', () => {
  it('captures the single authorization with something left when none is named', () => {
    const order = orderOf([txn('a1', 'AUTHORIZATION', '100.00'), txn('c1', 'CAPTURE', '100.00', { targetTransactionId: 'a1' }), txn('a2', 'AUTHORIZATION', '50.00')]);
    const plan = planCapture(capture(), order, 'order-1');
    expect(plan.target.id).toBe('a2');
    expect(plan.amount.toFixed()).toBe('10.00');
  });

  it('allows captures in parts up to what is left, pending captures counted, voided ones not', () => {
    const order = orderOf([
      txn('a1', 'AUTHORIZATION', '100.00'),
      txn('c1', 'CAPTURE', '30.00', { targetTransactionId: 'a1' }),
      txn('c2', 'CAPTURE', '20.00', { targetTransactionId: 'a1', result: 'PENDING' }),
      txn('c3', 'CAPTURE', '40.00', { targetTransactionId: 'a1' }),
      txn('v1', 'VOID_CAPTURE', '40.00', { targetTransactionId: 'c3' }),
    ]);
    expect(planCapture(capture({ amount: '50.00' }), order, 'order-1').target.id).toBe('a1');
    const beyond = refusal(() => planCapture(capture({ amount: '50.01', targetTransactionId: 'a1' }), order, 'order-1'));
    expect(beyond).toMatchObject({ field: 'transaction.amount', validationType: 'INVALID' });
    expect(beyond.explanation).toBe("Value '50.01' is invalid. The amount available for capture on this order is 50.00 USD.");
  });

  it('answers the capture limit when the only authorization is captured in full', () => {
    const order = orderOf([txn('a1', 'AUTHORIZATION', '10.00'), txn('c1', 'CAPTURE', '10.00', { targetTransactionId: 'a1' })]);
    expect(refusal(() => planCapture(capture({ amount: '0.01' }), order, 'order-1')).explanation).toContain('available for capture on this order is 0.00 USD');
  });

  it('leaves out a voided authorization', () => {
    const order = orderOf([
      txn('a1', 'AUTHORIZATION', '100.00'),
      txn('v1', 'VOID_AUTHORIZATION', '100.00', { targetTransactionId: 'a1' }),
      txn('a2', 'AUTHORIZATION', '50.00'),
    ]);
    expect(planCapture(capture(), order, 'order-1').target.id).toBe('a2');
    expect(refusal(() => planCapture(capture({ targetTransactionId: 'a1' }), order, 'order-1')).explanation).toBe(
      "Value '10.00' is invalid. The amount available for capture on this order is 0.00 USD.",
    );
  });

  it('leaves out an authorization whose void is under way: that void may release it any moment', () => {
    for (const result of ['PENDING', 'UNKNOWN'] as const) {
      const order = orderOf([
        txn('a1', 'AUTHORIZATION', '100.00'),
        txn('v1', 'VOID_AUTHORIZATION', '100.00', { targetTransactionId: 'a1', result }),
        txn('a2', 'AUTHORIZATION', '50.00'),
      ]);
      expect(planCapture(capture(), order, 'order-1').target.id).toBe('a2');
      expect(refusal(() => planCapture(capture({ targetTransactionId: 'a1' }), order, 'order-1')).explanation).toBe(
        "Value '10.00' is invalid. The amount available for capture on this order is 0.00 USD.",
      );
    }
  });

  it('captures a card authorization at the acquirer', () => {
    const order = orderOf([txn('a1', 'AUTHORIZATION', '100.00')]);
    expect(planCapture(capture({ targetTransactionId: 'a1' }), order, 'order-1')).toMatchObject({ route: 'ACQUIRER', target: { id: 'a1' } });
    expect(planCapture(capture(), order, 'order-1').route).toBe('ACQUIRER');
  });

  it('captures a browser payment\'s authorization at its provider, named or identified, under the card rules', () => {
    const order = orderOf([txn('b1', 'AUTHORIZATION', '100.00', { fundingType: 'PROVIDER_A' })]);
    expect(planCapture(capture({ targetTransactionId: 'b1' }), order, 'order-1')).toMatchObject({ route: 'PROVIDER', target: { id: 'b1' } });
    expect(planCapture(capture({ amount: '100.00' }), order, 'order-1')).toMatchObject({ route: 'PROVIDER', target: { id: 'b1' } });

    // In parts up to what is left, pending captures counted: the limit before any money moves at the provider.
    const partly = orderOf([
      txn('b1', 'AUTHORIZATION', '100.00', { fundingType: 'PROVIDER_A' }),
      txn('c1', 'CAPTURE', '60.00', { targetTransactionId: 'b1', fundingType: 'PROVIDER_A' }),
      txn('c2', 'CAPTURE', '15.00', { targetTransactionId: 'b1', fundingType: 'PROVIDER_A', result: 'PENDING' }),
    ]);
    expect(planCapture(capture({ amount: '25.00' }), partly, 'order-1')).toMatchObject({ route: 'PROVIDER', target: { id: 'b1' } });
    expect(refusal(() => planCapture(capture({ amount: '25.01', targetTransactionId: 'b1' }), partly, 'order-1')).explanation).toBe(
      "Value '25.01' is invalid. The amount available for capture on this order is 25.00 USD.",
    );

    // Beside a card authorization with something left, it is one of two: the merchant names one.
    const both = orderOf([txn('b1', 'AUTHORIZATION', '100.00', { fundingType: 'PROVIDER_A' }), txn('a1', 'AUTHORIZATION', '10.00')]);
    expect(refusal(() => planCapture(capture(), both, 'order-1')).explanation).toContain('(b1, a1)');
    // Voided at the provider: nothing left.
    const voided = orderOf([
      txn('b1', 'AUTHORIZATION', '100.00', { fundingType: 'PROVIDER_A' }),
      txn('v1', 'VOID_AUTHORIZATION', '100.00', { targetTransactionId: 'b1', fundingType: 'PROVIDER_A' }),
    ]);
    expect(refusal(() => planCapture(capture(), voided, 'order-1')).explanation).toContain('available for capture on this order is 0.00 USD');
    // Not completed (the payer not back yet): nothing authorised to capture.
    const pending = orderOf([txn('b1', 'AUTHORIZATION', '100.00', { fundingType: 'PROVIDER_A', result: 'PENDING', gatewayCode: 'SUBMITTED' })]);
    expect(refusal(() => planCapture(capture({ targetTransactionId: 'b1' }), pending, 'order-1')).explanation).toContain('is a PENDING AUTHORIZATION');
  });

  it('asks for the target when several authorizations have something left', () => {
    const order = orderOf([txn('a1', 'AUTHORIZATION', '10.00'), txn('a2', 'AUTHORIZATION', '10.00')]);
    const missing = refusal(() => planCapture(capture(), order, 'order-1'));
    expect(missing).toMatchObject({ field: 'transaction.targetTransactionId', validationType: 'MISSING' });
    expect(missing.explanation).toContain('(a1, a2)');
  });

  it('refuses a target that is not a successful authorization, saying what it is', () => {
    const order = orderOf([
      txn('p1', 'PAYMENT', '10.00'),
      txn('a1', 'AUTHORIZATION', '10.00', { result: 'FAILURE', gatewayCode: 'DECLINED' }),
      txn('b1', 'PAYMENT', '10.00', { fundingType: 'PROVIDER_A' }),
    ]);
    expect(refusal(() => planCapture(capture({ targetTransactionId: 'p1' }), order, 'order-1')).explanation).toContain("is a PAYMENT: only a successful AUTHORIZATION");
    expect(refusal(() => planCapture(capture({ targetTransactionId: 'a1' }), order, 'order-1')).explanation).toContain('is a FAILURE AUTHORIZATION');
    expect(refusal(() => planCapture(capture({ targetTransactionId: 'b1' }), order, 'order-1')).explanation).toContain("is a PAYMENT: only a successful AUTHORIZATION");
    expect(refusal(() => planCapture(capture({ targetTransactionId: 'zz' }), order, 'order-1')).explanation).toContain('has no transaction with this id');
    expect(refusal(() => planCapture(capture(), orderOf([txn('p1', 'PAYMENT', '10.00')]), 'order-1')).explanation).toBe(
      "Order 'order-1' has no successful authorization to capture.",
    );
  });

  it('refuses a capture of an order that does not exist, or in another currency', () => {
    expect(refusal(() => planCapture(capture(), null, 'nope')).explanation).toContain("Order 'nope' does not exist");
    const order = orderOf([txn('a1', 'AUTHORIZATION', '10.00')]);
    expect(refusal(() => planCapture(capture({ currency: 'EUR' }), order, 'order-1'))).toMatchObject({ field: 'transaction.currency' });
  });
});
