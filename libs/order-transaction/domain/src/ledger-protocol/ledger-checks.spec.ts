import { GatewayError, JsonObject, RequestEnvelope } from '@gateway/contracts';
import { OrderRow, RECORDED_WITHOUT_REQUEST, TransactionRow } from '@gateway/order-transaction/data-access';
import { Money } from '@gateway/money';
import { MalformedMessageError } from '@gateway/platform';
import { amountAsked, amountRetry, assertFenceCurrent, assertUpdatable, replayOf, requireFencingToken, RetryAsks } from './ledger-checks';

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

describe('fencing tokens (stale-fencing-token.md)', () => {
  const order = (lastFencingToken: string) => ({ lastFencingToken }) as OrderRow;

  it("refuses a token older than the order's newest as ORDER_LOCK_LOST; the same token (one lease, two steps) and newer ones pass", () => {
    expect(refusal(() => assertFenceCurrent(1700000000000001n, order('1700000000000002')))).toMatchObject({ code: 'ORDER_LOCK_LOST' });
    expect(() => assertFenceCurrent(1700000000000002n, order('1700000000000002'))).not.toThrow();
    expect(() => assertFenceCurrent(1700000000000003n, order('1700000000000002'))).not.toThrow();
    // Exactly, beyond what a JS number holds (2^53 + 1 against 2^53 + 2).
    expect(refusal(() => assertFenceCurrent(9007199254740993n, order('9007199254740994')))).toMatchObject({ code: 'ORDER_LOCK_LOST' });
  });

  it('says a refusal came before any acquirer call only when the caller says the check is made before one', () => {
    const before = refusal(() => assertFenceCurrent(1n, order('2'), true));
    expect(before).toMatchObject({ code: 'ORDER_LOCK_LOST', beforeAnyAcquirer: true });
    expect(before.toWire()).toMatchObject({ code: 'ORDER_LOCK_LOST', beforeAnyAcquirer: true });
    expect(GatewayError.fromWire(before.toWire()).beforeAnyAcquirer).toBe(true);
    const after = refusal(() => assertFenceCurrent(1n, order('2')));
    expect(after.beforeAnyAcquirer).toBeUndefined();
    expect(after.toWire()).not.toHaveProperty('beforeAnyAcquirer');
  });

  it('takes the token of a ledger message, and treats one without as a fault between processes', () => {
    expect(requireFencingToken({ fencingToken: '9007199254740993' } as RequestEnvelope)).toBe(9007199254740993n);
    expect(() => requireFencingToken({} as RequestEnvelope)).toThrow(MalformedMessageError);
  });
});

describe('an UPDATE of a transaction', () => {
  const row = (result: TransactionRow['result'], apiOperation = 'INITIATE_BROWSER_PAYMENT') => ({ transactionId: 'bp-1', apiOperation, result }) as TransactionRow;

  it('continues one still open, created by the operation it names', () => {
    for (const result of ['PENDING', 'UNKNOWN'] as const) {
      expect(() => assertUpdatable(row(result), 'INITIATE_BROWSER_PAYMENT')).not.toThrow();
      expect(() => assertUpdatable(row(result), null)).not.toThrow();
    }
  });

  it('never writes over a result the merchant was given, a decline as much as an approval', () => {
    for (const result of ['SUCCESS', 'FAILURE'] as const) {
      expect(refusal(() => assertUpdatable(row(result), 'INITIATE_BROWSER_PAYMENT'))).toMatchObject({
        code: 'INVALID_REQUEST',
        explanation: `Transaction 'bp-1' is already complete (result ${result}) and cannot be changed.`,
      });
    }
  });

  it("refuses to continue a transaction another operation created: the id is taken", () => {
    expect(refusal(() => assertUpdatable(row('PENDING', 'PAY'), 'INITIATE_BROWSER_PAYMENT'))).toMatchObject({ field: 'transactionid', validationType: 'INVALID' });
  });
});
