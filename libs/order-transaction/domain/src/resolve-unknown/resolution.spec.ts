import { GatewayError, JsonObject, TransactionResult, TransactionType } from '@gateway/contracts';
import { Money } from '@gateway/money';
import type { LockedOrder, OrderRow, TransactionRow } from '@gateway/order-transaction/data-access';
import { refusal } from '../card-operation/testing-orders';
import { refundable } from '../order-state/ledger-rules';
import { entryOfRow } from '../record-operation/ledger-write';
import { assertLearnedOutcome, LearnedOutcome, learnedResponse } from './learned-outcome';
import { decideResolution } from './resolution';

const KEY = { merchantId: 'M1', orderId: 'o1', transactionId: 'p2' };
const RECORDED_AT = new Date('2030-01-01T00:00:00.000Z');
const LEARNED_AT = new Date('2030-01-01T01:00:00.000Z');
const APPROVED: LearnedOutcome = { gatewayCode: 'APPROVED', acquirerTransactionId: 'MCC1234560101', authorizationCode: '654321' };
const DECLINED: LearnedOutcome = { gatewayCode: 'DECLINED' };

let sequence = 0;
function row(
  transactionId: string,
  type: TransactionType,
  amount: string,
  result: TransactionResult,
  extra: Partial<TransactionRow> = {},
): TransactionRow {
  sequence += 1;
  const gatewayCode = { SUCCESS: 'APPROVED', FAILURE: 'DECLINED', PENDING: 'PENDING', UNKNOWN: 'UNKNOWN' }[result];
  return {
    transactionId,
    sequence,
    apiOperation: type === 'PAYMENT' ? 'PAY' : type === 'AUTHORIZATION' ? 'AUTHORIZE' : type,
    type,
    amount,
    currency: 'USD',
    result,
    gatewayCode,
    targetTransactionId: null,
    fundingType: 'CARD',
    taxAmount: null,
    createdAt: RECORDED_AT,
    updatedAt: RECORDED_AT,
    ...extra,
  };
}

/** The UNKNOWN response of transaction p2 as the ledger stored it: no approval code, the acquirer's fields of its answer. */
const UNKNOWN_BODY: JsonObject = {
  order: { id: 'o1', status: 'INITIATED', totalCapturedAmount: 0 },
  result: 'UNKNOWN',
  response: { gatewayCode: 'UNKNOWN', cardSecurityCode: { gatewayCode: 'NOT_PROCESSED' } },
  sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008' } } },
  authorizationResponse: { stan: '123456' },
  timeOfRecord: RECORDED_AT.toISOString(),
  transaction: { id: 'p2', type: 'PAYMENT', acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC9999990101' } },
};

/** Order o1 with `transactions`, as a view read for p2's creating operation. */
function orderWith(transactions: TransactionRow[], overrides: Partial<OrderRow> = {}): LockedOrder {
  return {
    order: {
      merchantId: 'M1',
      orderId: 'o1',
      currency: 'USD',
      amount: '25.0000',
      status: 'INITIATED',
      totalAuthorizedAmount: '0',
      totalCapturedAmount: '0',
      totalRefundedAmount: '0',
      details: { reference: 'kept' },
      notificationUrl: 'https://merchant.example/hooks',
      lastFencingToken: '77',
      operationCount: transactions.length + 1,
      createdAt: RECORDED_AT,
      updatedAt: RECORDED_AT,
      ...overrides,
    },
    contents: { transactions, stored: { requestHash: 'hash-of-the-original-request', body: UNKNOWN_BODY } },
  };
}

function written(order: LockedOrder, learned: LearnedOutcome) {
  const decided = decideResolution(order, KEY, learned, LEARNED_AT);
  if ('replay' in decided) {
    throw new Error('expected a write');
  }
  return decided;
}

describe('decideResolution', () => {
  it('an approved PAY captures its amount: the order is CAPTURED, the stored response replaced under the original request', () => {
    const { write, body } = written(orderWith([row('p2', 'PAYMENT', '25.0000', 'UNKNOWN')]), APPROVED);
    expect(write.order).toMatchObject({
      status: 'CAPTURED',
      totalAuthorizedAmount: '25.00',
      totalCapturedAmount: '25.00',
      totalRefundedAmount: '0.00',
      // The row's own fields stay: no request is being served.
      amount: '25.00',
      details: { reference: 'kept' },
      notificationUrl: 'https://merchant.example/hooks',
      lastFencingToken: '77',
      operationCount: 3,
      updatedAt: LEARNED_AT,
    });
    expect(write.transaction).toMatchObject({ transactionId: 'p2', apiOperation: 'PAY', type: 'PAYMENT', amount: '25.0000', result: 'SUCCESS', gatewayCode: 'APPROVED' });
    expect(write.response).toEqual({ apiOperation: 'PAY', requestHash: 'hash-of-the-original-request', body, replaces: true });
    expect(body).toMatchObject({
      result: 'SUCCESS',
      response: { gatewayCode: 'APPROVED', cardSecurityCode: { gatewayCode: 'NOT_PROCESSED' } },
      order: { status: 'CAPTURED', totalCapturedAmount: 25, lastUpdatedTime: LEARNED_AT.toISOString() },
      transaction: { id: 'p2', amount: 25, authorizationCode: '654321', acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC1234560101' } },
      sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } },
      // When the transaction happened, not when the ledger learned its outcome.
      timeOfRecord: RECORDED_AT.toISOString(),
    });
  });

  it('an approved AUTHORIZE authorises, an approved REFUND refunds, each as its approval would have', () => {
    const authorized = written(orderWith([row('p2', 'AUTHORIZATION', '25.0000', 'UNKNOWN')]), APPROVED);
    expect(authorized.write.order).toMatchObject({ status: 'AUTHORIZED', totalAuthorizedAmount: '25.00', totalCapturedAmount: '0.00' });
    const refunded = written(
      orderWith([row('p1', 'PAYMENT', '25.0000', 'SUCCESS'), row('p2', 'REFUND', '10.0000', 'UNKNOWN', { targetTransactionId: 'p1' })], {
        status: 'CAPTURED',
      }),
      APPROVED,
    );
    expect(refunded.write.order).toMatchObject({ status: 'PARTIALLY_REFUNDED', totalCapturedAmount: '25.00', totalRefundedAmount: '10.00' });
    expect(refunded.body.transaction).toMatchObject({ type: 'REFUND', targetTransactionId: 'p1' });
  });

  it('a declined PAY that opened its order leaves it FAILED with nothing moved, and no approval code', () => {
    const { write, body } = written(orderWith([row('p2', 'PAYMENT', '25.0000', 'UNKNOWN')]), { gatewayCode: 'DECLINED', acquirerCode: '25', acquirerMessage: 'Unable to locate record' });
    expect(write.order).toMatchObject({ status: 'FAILED', totalAuthorizedAmount: '0.00', totalCapturedAmount: '0.00' });
    expect(write.transaction).toMatchObject({ result: 'FAILURE', gatewayCode: 'DECLINED', amount: '25.0000' });
    expect(body).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'DECLINED', acquirerCode: '25', acquirerMessage: 'Unable to locate record' } });
    expect((body.transaction as JsonObject).authorizationCode).toBeUndefined();
    expect(body.authorizationResponse).toEqual({ stan: '123456', responseCode: '25' });
  });

  it('a declined REFUND frees the amount it held: refundable again in full', () => {
    const order = orderWith(
      [row('p1', 'PAYMENT', '25.0000', 'SUCCESS'), row('r1', 'REFUND', '20.0000', 'SUCCESS', { targetTransactionId: 'p1' }), row('p2', 'REFUND', '5.0000', 'UNKNOWN', { targetTransactionId: 'p1' })],
      { status: 'PARTIALLY_REFUNDED' },
    );
    const entries = (transactions: TransactionRow[]) => transactions.map(entryOfRow);
    expect(refundable('USD', entries(order.contents.transactions)).toFixed()).toBe('0.00');
    const { write, transaction } = written(order, DECLINED);
    const after = order.contents.transactions.map((t) => (t.transactionId === 'p2' ? transaction : t));
    expect(refundable('USD', entries(after)).toFixed()).toBe('5.00');
    expect(write.order).toMatchObject({ status: 'PARTIALLY_REFUNDED', totalCapturedAmount: '25.00', totalRefundedAmount: '20.00' });
  });

  it('an approved refund adds no exposure: recorded on an order already refunded beyond its captures (a privilege since withdrawn)', () => {
    const order = orderWith(
      [row('p1', 'PAYMENT', '25.0000', 'SUCCESS'), row('r1', 'REFUND', '30.0000', 'SUCCESS', { targetTransactionId: 'p1' }), row('p2', 'REFUND', '1.0000', 'UNKNOWN', { targetTransactionId: 'p1' })],
      { status: 'EXCESSIVELY_REFUNDED' },
    );
    expect(written(order, APPROVED).write.order).toMatchObject({ status: 'EXCESSIVELY_REFUNDED', totalRefundedAmount: '31.00' });
  });

  it('answers the stored response without a write when the ledger already holds the learned outcome (a second resolution)', () => {
    const resolvedBody = { ...UNKNOWN_BODY, result: 'SUCCESS' };
    const order = orderWith([row('p2', 'PAYMENT', '25.0000', 'SUCCESS')]);
    order.contents.stored = { requestHash: 'hash-of-the-original-request', body: resolvedBody };
    expect(decideResolution(order, KEY, APPROVED, LEARNED_AT)).toEqual({ replay: resolvedBody });
  });

  it('refuses another outcome than the one recorded, without a write', () => {
    const error = refusal(() => decideResolution(orderWith([row('p2', 'PAYMENT', '25.0000', 'SUCCESS')]), KEY, DECLINED, LEARNED_AT));
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', explanation: expect.stringContaining('is recorded SUCCESS (APPROVED), not UNKNOWN') });
  });

  it('refuses another gateway code than the one recorded even with the same result: only the very outcome recorded is a second resolution', () => {
    const declined = orderWith([row('p2', 'PAYMENT', '25.0000', 'FAILURE', { gatewayCode: 'INSUFFICIENT_FUNDS' })]);
    const error = refusal(() => decideResolution(declined, KEY, DECLINED, LEARNED_AT));
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', explanation: expect.stringContaining('is recorded FAILURE (INSUFFICIENT_FUNDS), not UNKNOWN') });
    const approved = orderWith([row('p2', 'PAYMENT', '25.0000', 'SUCCESS', { gatewayCode: 'APPROVED_PENDING_SETTLEMENT' })]);
    expect(() => decideResolution(approved, KEY, APPROVED, LEARNED_AT)).toThrow(GatewayError);
  });

  it('an approved VERIFY whose AVS result a REJECT rule named is DECLINED_AVS, as its record would have been: FAILURE, no approval code, order FAILED', () => {
    // Recorded UNKNOWN with the AVS result the issuer never gave and the rule's decision under risk
    // (the REJECT could not act on an unknown outcome: transaction-filtering.rule.ts).
    const verifyBody: JsonObject = {
      ...UNKNOWN_BODY,
      order: { id: 'o1', status: 'INITIATED', amount: 0, currency: 'USD' },
      response: {
        gatewayCode: 'UNKNOWN',
        cardSecurityCode: { gatewayCode: 'NOT_PROCESSED', acquirerCode: 'P' },
        cardholderVerification: { avs: { gatewayCode: 'SERVICE_NOT_AVAILABLE_RETRY', acquirerCode: 'R' } },
      },
      risk: { response: { gatewayCode: 'REJECTED', rule: [{ data: 'R', name: 'AVS', recommendation: 'REJECT', type: 'MSO_AVS' }] } },
      transaction: { id: 'p2', type: 'VERIFICATION', acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC9999990101' } },
    };
    const order = orderWith([row('p2', 'VERIFICATION', '0.0000', 'UNKNOWN', { apiOperation: 'VERIFY' })], { amount: '0' });
    order.contents.stored = { requestHash: 'hash-of-the-original-request', body: verifyBody };
    const { write, body } = written(order, APPROVED);
    expect(write.transaction).toMatchObject({ result: 'FAILURE', gatewayCode: 'DECLINED_AVS' });
    expect(write.order).toMatchObject({ status: 'FAILED' });
    expect(body).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'DECLINED_AVS' }, risk: verifyBody.risk });
    expect((body.transaction as JsonObject).authorizationCode).toBeUndefined();
    // A second resolution with the same learned approval finds it recorded: nothing written.
    const resolved = orderWith([row('p2', 'VERIFICATION', '0.0000', 'FAILURE', { apiOperation: 'VERIFY', gatewayCode: 'DECLINED_AVS' })], { amount: '0' });
    resolved.contents.stored = { requestHash: 'hash-of-the-original-request', body };
    expect(decideResolution(resolved, KEY, APPROVED, LEARNED_AT)).toEqual({ replay: body });
    // Without a REJECT under risk (a REVIEW, or no rule), the approval is the verification's.
    const reviewed = orderWith([row('p2', 'VERIFICATION', '0.0000', 'UNKNOWN', { apiOperation: 'VERIFY' })], { amount: '0' });
    reviewed.contents.stored = {
      requestHash: 'hash-of-the-original-request',
      body: { ...verifyBody, risk: { response: { gatewayCode: 'REVIEW_REQUIRED', review: { decision: 'PENDING' }, rule: [] } } },
    };
    expect(written(reviewed, APPROVED).write.transaction).toMatchObject({ result: 'SUCCESS', gatewayCode: 'APPROVED' });
    expect(written(reviewed, APPROVED).write.order).toMatchObject({ status: 'VERIFIED' });
  });

  it('refuses a PENDING reservation its operation may still complete (reserved minutes ago) and a browser payment\'s transaction', () => {
    const recent = orderWith([row('p2', 'PAYMENT', '25.0000', 'PENDING', { updatedAt: new Date(LEARNED_AT.getTime() - 60_000) })]);
    expect(refusal(() => decideResolution(recent, KEY, APPROVED, LEARNED_AT)).explanation).toContain(
      'is recorded PENDING (PENDING), not UNKNOWN',
    );
    const provider = orderWith([row('p2', 'REFUND', '25.0000', 'UNKNOWN', { fundingType: 'PROVIDER_A' })]);
    expect(refusal(() => decideResolution(provider, KEY, APPROVED, LEARNED_AT)).explanation).toContain('is funded by PROVIDER_A');
    const staleProvider = orderWith([row('p2', 'PAYMENT', '25.0000', 'PENDING', { fundingType: 'PROVIDER_A' })]);
    expect(refusal(() => decideResolution(staleProvider, KEY, APPROVED, LEARNED_AT)).explanation).toContain('is funded by PROVIDER_A');
    // Not told to wait for the ten minutes: nothing here would ever resolve it.
    const recentProvider = orderWith([row('p2', 'PAYMENT', '25.0000', 'PENDING', { fundingType: 'PROVIDER_A', updatedAt: new Date(LEARNED_AT.getTime() - 60_000) })]);
    expect(refusal(() => decideResolution(recentProvider, KEY, APPROVED, LEARNED_AT)).explanation).not.toContain('minutes');
  });

  it('resolves a card reservation left PENDING for good (its process died, or its database stayed away, after the acquirer call)', () => {
    // Reserved an hour before: no operation runs that long, so nothing will complete it any more.
    const approved = written(orderWith([row('p2', 'PAYMENT', '25.0000', 'PENDING')]), APPROVED);
    expect(approved.write.order).toMatchObject({ status: 'CAPTURED', totalCapturedAmount: '25.00' });
    expect(approved.write.transaction).toMatchObject({ result: 'SUCCESS', gatewayCode: 'APPROVED' });
    expect(approved.body).toMatchObject({ result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } });
    // Never sent (the reservation committed, its answer was lost): the acquirer has no record of it.
    const declined = written(orderWith([row('p2', 'AUTHORIZATION', '25.0000', 'PENDING')]), { gatewayCode: 'DECLINED', acquirerCode: '25' });
    expect(declined.write.order).toMatchObject({ status: 'FAILED', totalAuthorizedAmount: '0.00' });
  });

  it('refuses a refund request waiting for approval: PENDING by design, not a call whose outcome was lost', () => {
    const order = orderWith(
      [row('p1', 'PAYMENT', '25.0000', 'SUCCESS'), row('p2', 'REFUND_REQUEST', '5.0000', 'PENDING', { targetTransactionId: 'p1' })],
      { status: 'CAPTURED' },
    );
    expect(refusal(() => decideResolution(order, KEY, APPROVED, LEARNED_AT)).explanation).toContain('is recorded PENDING');
  });

  it('refuses a transaction the order does not have', () => {
    expect(refusal(() => decideResolution(orderWith([row('p1', 'PAYMENT', '25.0000', 'UNKNOWN')]), KEY, APPROVED, LEARNED_AT))).toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

/** The UNKNOWN response of a PAY or AUTHORIZE whose request accepted partial amounts, with the request's tax. */
const PARTIAL_ALLOWED_BODY: JsonObject = {
  ...UNKNOWN_BODY,
  order: { id: 'o1', status: 'INITIATED', totalCapturedAmount: 0, acceptPartialAmount: true, taxAmount: 2.5 },
  transaction: { id: 'p2', type: 'PAYMENT', acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC9999990101' }, taxAmount: 2.5 },
};

function partialOrder(type: TransactionType, body: JsonObject = PARTIAL_ALLOWED_BODY, extra: Partial<TransactionRow> = {}): LockedOrder {
  const order = orderWith([row('p2', type, '25.0000', 'UNKNOWN', { taxAmount: '2.5000', ...extra })]);
  order.contents.stored = { requestHash: 'hash-of-the-original-request', body };
  return order;
}

const PARTIAL: LearnedOutcome = { gatewayCode: 'PARTIALLY_APPROVED', approvedAmount: '12.5', acquirerTransactionId: 'MCC1234560101', authorizationCode: '654321' };

describe('decideResolution of a partial approval (learned later, recorded as its completion records one)', () => {
  it('a PAY is captured at the approved amount: the transaction and the order hold it, requestedAmount what was asked, no tax', () => {
    const { write, body, transaction } = written(partialOrder('PAYMENT'), PARTIAL);
    expect(write.order).toMatchObject({
      status: 'CAPTURED',
      amount: '12.50',
      totalAuthorizedAmount: '12.50',
      totalCapturedAmount: '12.50',
      totalRefundedAmount: '0.00',
      details: { reference: 'kept' },
      lastFencingToken: '77',
      operationCount: 3,
    });
    expect(write.transaction).toMatchObject({ transactionId: 'p2', type: 'PAYMENT', amount: '12.50', result: 'SUCCESS', gatewayCode: 'PARTIALLY_APPROVED', taxAmount: null });
    expect(transaction).toMatchObject({ amount: '12.50', result: 'SUCCESS', gatewayCode: 'PARTIALLY_APPROVED', taxAmount: null });
    expect(write.response).toEqual({ apiOperation: 'PAY', requestHash: 'hash-of-the-original-request', body, replaces: true });
    expect(body).toMatchObject({
      result: 'SUCCESS',
      response: { gatewayCode: 'PARTIALLY_APPROVED' },
      // order.taxAmount echoes the request, as a live partial approval's does.
      order: { amount: 12.5, status: 'CAPTURED', totalCapturedAmount: 12.5, acceptPartialAmount: true, taxAmount: 2.5 },
      transaction: { id: 'p2', amount: 12.5, requestedAmount: 25, currency: 'USD', authorizationCode: '654321', acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC1234560101' } },
      timeOfRecord: RECORDED_AT.toISOString(),
    });
    expect(body.transaction).not.toHaveProperty('taxAmount');
  });

  it('an AUTHORIZE is authorised at the approved amount, which bounds its captures', () => {
    const { write, transaction } = written(partialOrder('AUTHORIZATION'), { gatewayCode: 'PARTIALLY_APPROVED', approvedAmount: '0.01', approvedCurrency: 'USD' });
    expect(write.order).toMatchObject({ status: 'AUTHORIZED', amount: '0.01', totalAuthorizedAmount: '0.01', totalCapturedAmount: '0.00' });
    expect(Money.of(transaction.amount, 'USD').toFixed()).toBe('0.01');
  });

  it('is refused when the request did not accept partial amounts, or for another operation than AUTHORIZE and PAY', () => {
    const { order: _asked, ...withoutOrder } = PARTIAL_ALLOWED_BODY;
    const notAccepted = { ...PARTIAL_ALLOWED_BODY, order: { id: 'o1', acceptPartialAmount: false } };
    for (const body of [notAccepted, withoutOrder]) {
      expect(refusal(() => decideResolution(partialOrder('PAYMENT', body), KEY, PARTIAL, LEARNED_AT))).toMatchObject({
        code: 'INVALID_REQUEST',
        explanation: expect.stringContaining('was requested without order.acceptPartialAmount'),
      });
    }
    const refund = orderWith([row('p1', 'PAYMENT', '25.0000', 'SUCCESS'), row('p2', 'REFUND', '25.0000', 'UNKNOWN', { targetTransactionId: 'p1' })], { status: 'CAPTURED' });
    refund.contents.stored = { requestHash: 'hash-of-the-original-request', body: PARTIAL_ALLOWED_BODY };
    expect(refusal(() => decideResolution(refund, KEY, PARTIAL, LEARNED_AT)).explanation).toContain('only an AUTHORIZE or a PAY is approved in part');
  });

  it('is refused for an amount that is not above 0 and below the amount asked, in the order\'s currency and decimals', () => {
    const field = (approvedAmount: string, approvedCurrency?: string) =>
      refusal(() => decideResolution(partialOrder('PAYMENT'), KEY, { gatewayCode: 'PARTIALLY_APPROVED', approvedAmount, ...(approvedCurrency ? { approvedCurrency } : {}) }, LEARNED_AT));
    for (const amount of ['0', '0.00', '-1.00', '25.00', '25.01', '12.505', '12,50', '1e1', '']) {
      expect(field(amount)).toMatchObject({ field: 'approvedAmount', validationType: 'INVALID' });
    }
    expect(field('12.50', 'EUR')).toMatchObject({ field: 'approvedAmount', explanation: expect.stringContaining("is in EUR, not the transaction's currency USD") });
    expect(field('25.00').explanation).toContain('below the transaction\'s amount, 25.00 USD');
  });

  it('answers the stored response when that partial approval is already recorded; another amount or outcome is refused', () => {
    const recorded = partialOrder('PAYMENT', { ...PARTIAL_ALLOWED_BODY, result: 'SUCCESS' }, { amount: '12.5000', result: 'SUCCESS', gatewayCode: 'PARTIALLY_APPROVED', taxAmount: null });
    expect(decideResolution(recorded, KEY, PARTIAL, LEARNED_AT)).toEqual({ replay: { ...PARTIAL_ALLOWED_BODY, result: 'SUCCESS' } });
    expect(refusal(() => decideResolution(recorded, KEY, { ...PARTIAL, approvedAmount: '10.00' }, LEARNED_AT)).explanation).toContain(
      'is recorded SUCCESS (PARTIALLY_APPROVED), not UNKNOWN',
    );
    expect(refusal(() => decideResolution(recorded, KEY, APPROVED, LEARNED_AT)).explanation).toContain('is recorded SUCCESS (PARTIALLY_APPROVED), not UNKNOWN');
  });
});

describe('the learned outcome', () => {
  it('keeps what the stored response knew and adds what was learned', () => {
    const body = learnedResponse(UNKNOWN_BODY, { gatewayCode: 'APPROVED' });
    expect(body.transaction).toEqual(UNKNOWN_BODY.transaction);
    expect(body.response).toEqual(UNKNOWN_BODY.response);
  });

  it('names the acquirer of a reference: the stored response\'s, or the one given when a call got no answer at all', () => {
    const { transaction: _answered, ...noAnswer } = UNKNOWN_BODY;
    expect(refusal(() => learnedResponse(noAnswer, { gatewayCode: 'APPROVED', acquirerTransactionId: 'MCC1234560101' }))).toMatchObject({ field: 'acquirerId', validationType: 'MISSING' });
    expect(learnedResponse(noAnswer, { gatewayCode: 'APPROVED', acquirerTransactionId: 'MCC1234560101', acquirerId: 'TEST_ACQUIRER' }).transaction).toEqual({
      acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC1234560101' },
    });
    expect((learnedResponse(UNKNOWN_BODY, { ...APPROVED, acquirerId: 'OTHER' }).transaction as JsonObject).acquirer).toEqual({ id: 'TEST_ACQUIRER', transactionId: 'MCC1234560101' });
  });

  it('is refused when the spec\'s fields could not hold it, or an approval code comes with a decline', () => {
    const refused = (learned: LearnedOutcome) => {
      try {
        assertLearnedOutcome(learned);
        return undefined;
      } catch (err) {
        return (err as GatewayError).field;
      }
    };
    expect(refused(APPROVED)).toBeUndefined();
    expect(refused({ gatewayCode: 'PARTIALLY_REFUNDED' as LearnedOutcome['gatewayCode'] })).toBe('gatewayCode');
    expect(refused({ gatewayCode: 'PARTIALLY_APPROVED' })).toBe('approvedAmount');
    expect(refused({ gatewayCode: 'APPROVED', approvedAmount: '5.00' })).toBe('approvedAmount');
    expect(refused({ gatewayCode: 'PARTIALLY_APPROVED', approvedAmount: '5.00', authorizationCode: '654321' })).toBeUndefined();
    expect(refused({ gatewayCode: 'DECLINED', authorizationCode: '123456' })).toBe('authorizationCode');
    expect(refused({ gatewayCode: 'APPROVED', acquirerTransactionId: 'x'.repeat(101) })).toBe('acquirerTransactionId');
    expect(refused({ gatewayCode: 'APPROVED', authorizationCode: 'é' })).toBe('authorizationCode');
  });
});
