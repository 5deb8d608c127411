import type { JsonObject } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { TEST_CARD } from '@gateway/testing';
import { completeResponse } from './complete-response';
import { OrderSnapshot, withOrderFields } from './order-snapshot';

const at = new Date('2026-01-02T03:04:05.678Z');
const order: OrderSnapshot = {
  id: 'order-1',
  currency: 'USD',
  amount: Money.of('0.3', 'USD'),
  status: 'REFUNDED',
  totalAuthorizedAmount: Money.of('0.30', 'USD'),
  totalCapturedAmount: Money.of('0.3', 'USD'),
  totalRefundedAmount: Money.of('0.1', 'USD').plus(Money.of('0.2', 'USD')),
  createdAt: new Date('2026-01-01T00:00:00.000Z'),
  updatedAt: at,
};

describe('completeResponse', () => {
  it('sets the fields the ledger owns from what it recorded, over whatever the caller sent', () => {
    const body = completeResponse(
      {
        order: { id: 'wrong', status: 'CAPTURED', description: 'kept', totalRefundedAmount: 99 },
        transaction: { id: 'wrong', amount: 1, reference: 'kept', targetTransactionId: 'stale' },
        result: 'SUCCESS',
        response: { gatewayCode: 'APPROVED', acquirerCode: '00' },
      },
      order,
      { id: 'txn-2', type: 'REFUND', amount: Money.of('0.20', 'USD'), result: 'FAILURE', gatewayCode: 'DECLINED', targetTransactionId: null },
      at,
    );
    expect(body).toEqual({
      order: {
        id: 'order-1',
        amount: 0.3,
        currency: 'USD',
        status: 'REFUNDED',
        totalAuthorizedAmount: 0.3,
        totalCapturedAmount: 0.3,
        totalRefundedAmount: 0.3,
        creationTime: '2026-01-01T00:00:00.000Z',
        lastUpdatedTime: '2026-01-02T03:04:05.678Z',
        description: 'kept',
      },
      transaction: { id: 'txn-2', type: 'REFUND', amount: 0.2, currency: 'USD', reference: 'kept' },
      result: 'FAILURE',
      response: { gatewayCode: 'DECLINED', acquirerCode: '00' },
      timeOfRecord: '2026-01-02T03:04:05.678Z',
    });
    expect(JSON.stringify(body)).toContain('"totalRefundedAmount":0.3');
  });

  it('answers the transaction a refund or void was recorded against, the ledger\'s and not the caller\'s', () => {
    const body = completeResponse(
      { transaction: { targetTransactionId: 'stale' }, result: 'SUCCESS' },
      order,
      { id: 'txn-3', type: 'VOID_CAPTURE', amount: Money.of('0.10', 'USD'), result: 'SUCCESS', gatewayCode: 'APPROVED', targetTransactionId: 'cap-1' },
      at,
    );
    expect(body.transaction).toEqual({ id: 'txn-3', type: 'VOID_CAPTURE', amount: 0.1, currency: 'USD', targetTransactionId: 'cap-1' });
  });

  it('keeps the caller\'s timeOfRecord and never stores a card number', () => {
    const body = completeResponse(
      { timeOfRecord: '2026-01-02T03:04:00.000Z', sourceOfFunds: { provided: { card: { number: TEST_CARD } } } },
      order,
      { id: 't', type: 'VERIFICATION', amount: Money.of('0', 'USD'), result: 'SUCCESS', gatewayCode: 'APPROVED', targetTransactionId: null },
      at,
    );
    expect(body.timeOfRecord).toBe('2026-01-02T03:04:00.000Z');
    expect(JSON.stringify(body)).not.toContain(TEST_CARD);
    expect(JSON.stringify(body)).toContain('512345xxxxxx0008');
  });
  it('puts the order group where a copy with it set would (withOrderFields): in its place, or last', () => {
    const recorded = { id: 'txn-2', type: 'REFUND' as const, amount: Money.of('0.20', 'USD'), result: 'SUCCESS' as const, gatewayCode: 'APPROVED', targetTransactionId: null };
    const bodies: JsonObject[] = [
      { order: { description: 'first' }, result: 'PENDING', merchant: 'M1' },
      { merchant: 'M1', order: { description: 'middle' }, transaction: { reference: 'r' } },
      { merchant: 'M1', response: { gatewayCode: 'PENDING' } },
    ];
    for (const body of bodies) {
      const completed = completeResponse(body, order, recorded, at);
      const { order: _order, ...rest } = completed;
      // Serialised, so the keys' order counts: the stored body and every replay of it.
      expect(JSON.stringify(completed)).toBe(JSON.stringify(withOrderFields({ ...body, ...rest }, order)));
    }
    expect(Object.keys(completeResponse(bodies[0], order, recorded, at))[0]).toBe('order');
    expect(Object.keys(completeResponse(bodies[2], order, recorded, at)).at(-1)).toBe('order');
  });
});
