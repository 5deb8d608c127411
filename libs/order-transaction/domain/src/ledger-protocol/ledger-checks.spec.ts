import { GatewayError, JsonObject } from '@gateway/contracts';
import { RECORDED_WITHOUT_REQUEST } from '@gateway/order-transaction/data-access';
import { Money } from '@gateway/money';
import { amountAsked, amountRetry, replayOf, RetryAsks } from './ledger-checks';

/**
 * replayOf on a transaction recorded from the acquirer's records (`transactions record-lost`):
 * it has no request hash to compare with, so the merchant's retry is answered from it only when
 * each thing the retry asks for is what the record holds; anything else would be a second
 * charge, capture, refund or void, and is refused as any retry with other values is.
 */
const IDS = { orderId: 'o-1', transactionId: 'c1' };
const HASH = 'a'.repeat(64);
/** A CAPTURE of 30.00 USD of authorization a1, as its stored response holds it. */
const BODY: JsonObject = { result: 'SUCCESS', transaction: { id: 'c1', amount: 30, currency: 'USD', targetTransactionId: 'a1' } };
const recorded = { requestHash: RECORDED_WITHOUT_REQUEST, body: BODY };
const usd = (amount: string) => Money.of(amount, 'USD');

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (err) {
    return err as GatewayError;
  }
  throw new Error('not refused');
}

describe('replayOf', () => {
  it('answers the same request from its stored response, and refuses another, as before', () => {
    expect(replayOf(null, HASH, IDS)).toBeNull();
    expect(replayOf({ requestHash: HASH, body: BODY }, HASH, IDS)).toBe(BODY);
    expect(refusal(() => replayOf({ requestHash: HASH, body: BODY }, 'b'.repeat(64), IDS))).toMatchObject({
      code: 'INVALID_REQUEST',
      explanation: "Transaction 'c1' on order 'o-1' was already processed with different values. Use a new transaction id for a new request.",
    });
  });

  it.each<[string, RetryAsks]>([
    ['the same amount', { amount: usd('30.00') }],
    ['the same amount written otherwise', { amount: usd('30') }],
    ['the same amount and target', { amount: usd('30.00'), targetTransactionId: 'a1' }],
    ['the same target (a void)', { targetTransactionId: 'a1' }],
  ])('answers a retry of a recorded transaction asking for %s from the record', (_, asks) => {
    expect(replayOf(recorded, HASH, IDS, () => asks)).toBe(BODY);
  });

  it.each<[string, RetryAsks]>([
    ['another amount', { amount: usd('30.01') }],
    ['the same digits in another currency', { amount: Money.of('30.00', 'EUR') }],
    ['another target', { amount: usd('30.00'), targetTransactionId: 'a2' }],
    ['another target alone (a void)', { targetTransactionId: 'a2' }],
    ['nothing it can compare (no valid amount)', {}],
  ])('refuses a retry of a recorded transaction asking for %s', (_, asks) => {
    expect(refusal(() => replayOf(recorded, HASH, IDS, () => asks)).explanation).toMatch(/already processed with different values/);
  });

  it('refuses a recorded transaction\'s retry when the operation says nothing of what it asks', () => {
    expect(refusal(() => replayOf(recorded, HASH, IDS)).explanation).toMatch(/already processed with different values/);
  });

  it('never answers a request with another hash from a transaction the gateway processed, whatever it asks', () => {
    const asks = jest.fn(() => ({ amount: usd('30.00'), targetTransactionId: 'a1' }));
    expect(refusal(() => replayOf({ requestHash: HASH, body: BODY }, 'b'.repeat(64), IDS, asks)).explanation).toMatch(/already processed with different values/);
    // Nothing of the request is parsed on the normal path.
    expect(asks).not.toHaveBeenCalled();
  });
});

describe('what a CAPTURE or REFUND asks for', () => {
  it('is its amount, and its target when it names one', () => {
    expect(amountRetry({ amount: '30.00', currency: 'USD' })).toEqual({ amount: usd('30.00') });
    expect(amountRetry({ amount: '30.00', currency: 'USD', targetTransactionId: 'a1' })).toEqual({ amount: usd('30.00'), targetTransactionId: 'a1' });
  });

  it('is nothing without a valid amount, so that the target alone never recognises its retry', () => {
    expect(amountRetry({ amount: 'thirty', currency: 'USD', targetTransactionId: 'a1' })).toEqual({});
    expect(amountRetry({ amount: '30.00', currency: 'XYZ', targetTransactionId: 'a1' })).toEqual({});
    expect(amountAsked(undefined, 'USD')).toBeUndefined();
    expect(amountAsked('30.00', undefined)).toBeUndefined();
  });
});
