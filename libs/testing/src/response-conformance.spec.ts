import { checkResponse, ConformanceRequest, describeViolations, inNotShown, isMerchantApiPath, operationOf, shown, Violation } from './response-conformance';

const base = '/api/rest/version/100/merchant/TESTM1';
const PAN = '5123450000000008';

/** A VERIFY answer as the gateway sends it, keys sorted. */
function verifyAnswer(): Record<string, unknown> {
  return {
    merchant: 'TESTM1',
    order: { amount: 0, currency: 'USD', id: 'o-1', status: 'VERIFIED', totalAuthorizedAmount: 0, totalCapturedAmount: 0, totalRefundedAmount: 0 },
    response: { acquirerCode: '00', gatewayCode: 'APPROVED' },
    result: 'SUCCESS',
    sourceOfFunds: {
      provided: { card: { brand: 'MASTERCARD', expiry: { month: '1', year: '39' }, fundingMethod: 'CREDIT', number: '512345xxxxxx0008', scheme: 'MASTERCARD' } },
      type: 'CARD',
    },
    timeOfRecord: '2026-11-26T00:00:00.000Z',
    transaction: { acquirer: { id: 'TEST_ACQUIRER' }, amount: 0, currency: 'USD', id: 't-1', type: 'VERIFICATION' },
    version: '100',
  };
}

const verify: ConformanceRequest = { method: 'PUT', path: `${base}/order/o-1/transaction/t-1`, body: { apiOperation: 'VERIFY' } };

function check(body: unknown, request: ConformanceRequest = verify, status = 201): Violation[] {
  return checkResponse(request, { status, body, text: JSON.stringify(body) });
}

function at(violations: Violation[], path: string): Violation | undefined {
  return violations.find((v) => v.path === path);
}

describe('response conformance', () => {
  it('accepts a conforming VERIFY answer', () => {
    expect(check(verifyAnswer())).toEqual([]);
  });

  it('fails on a missing ALWAYS PROVIDED field, at top level and within a present group', () => {
    const body = verifyAnswer();
    delete body.result;
    delete (body.transaction as Record<string, unknown>).currency;
    const violations = check(body);
    expect(at(violations, 'result')?.detail).toBe('missing');
    expect(at(violations, 'transaction.currency')?.rule).toMatch(/ALWAYS PROVIDED/);
  });

  it('requires a conditional group’s ALWAYS PROVIDED members only when the group is present', () => {
    const body = verifyAnswer();
    body['3DSecure'] = { acsEci: '05' };
    expect(at(check(body), '3DSecure.enrollmentStatus')?.detail).toBe('missing');
    expect(at(check(verifyAnswer()), '3DSecure.enrollmentStatus')).toBeUndefined();
  });

  it('fails on a wrong enumeration value', () => {
    const body = verifyAnswer();
    (body.response as Record<string, unknown>).gatewayCode = 'OK';
    (body.transaction as Record<string, unknown>).type = 'Verification';
    const violations = check(body);
    expect(at(violations, 'response.gatewayCode')?.detail).toMatch(/not one of the enumeration values/);
    expect(at(violations, 'transaction.type')).toBeDefined();
  });

  it('allows SUBMITTED only where the architecture decided it (browser payments)', () => {
    const body = verifyAnswer();
    (body.response as Record<string, unknown>).gatewayCode = 'SUBMITTED';
    expect(at(check(body), 'response.gatewayCode')).toBeDefined();
    const initiate: ConformanceRequest = { ...verify, body: { apiOperation: 'INITIATE_BROWSER_PAYMENT' } };
    expect(at(check(body, initiate), 'response.gatewayCode')).toBeUndefined();
  });

  it('accepts a missing transaction.acquirer only on a LOCK_FAILURE of a follow-on operation whose order the edge could not read', () => {
    const body = verifyAnswer();
    delete (body.transaction as Record<string, unknown>).acquirer;
    expect(at(check(body), 'transaction.acquirer')?.detail).toBe('missing');
    (body.response as Record<string, unknown>).gatewayCode = 'LOCK_FAILURE';
    body.result = 'FAILURE';
    // On an existing order (it has a status) the acquirer is known: still required.
    expect(at(check(body), 'transaction.acquirer')?.detail).toBe('missing');
    delete (body.order as Record<string, unknown>).status;
    // On an order not created yet a VERIFY's acquirer is the merchant's: still required.
    expect(at(check(body), 'transaction.acquirer')?.detail).toBe('missing');

    const refused = (requestBody: Record<string, unknown>): ConformanceRequest => ({ ...verify, body: requestBody });
    // The edge cannot see the target of a follow-on operation on an order it could not read.
    for (const apiOperation of ['CAPTURE', 'VOID', 'CONFIRM_BROWSER_PAYMENT']) {
      expect(at(check(body, refused({ apiOperation })), 'transaction.acquirer')).toBeUndefined();
    }
    expect(at(check(body, refused({ apiOperation: 'REFUND', transaction: { amount: '1.00' } })), 'transaction.acquirer')).toBeUndefined();
    expect(
      at(check(body, refused({ apiOperation: 'REFUND', sourceOfFunds: { token: '9123' }, transaction: { targetTransactionId: 'p-1' } })), 'transaction.acquirer'),
    ).toBeUndefined();
    // A standalone refund (sourceOfFunds, no target) goes to the merchant's card acquirer: required.
    expect(at(check(body, refused({ apiOperation: 'REFUND', sourceOfFunds: { token: '9123' } })), 'transaction.acquirer')?.detail).toBe('missing');
    // An initiate goes to its provider's: required.
    expect(at(check(body, refused({ apiOperation: 'INITIATE_BROWSER_PAYMENT' })), 'transaction.acquirer')?.detail).toBe('missing');
  });

  it('accepts missing order totals only on a LOCK_FAILURE whose order the edge could not read', () => {
    const body = verifyAnswer();
    delete (body.order as Record<string, unknown>).totalCapturedAmount;
    expect(at(check(body), 'order.totalCapturedAmount')?.detail).toBe('missing');
    (body.response as Record<string, unknown>).gatewayCode = 'LOCK_FAILURE';
    body.result = 'FAILURE';
    // On an order the ledger answered for (it has a status) the totals are known: still required.
    expect(at(check(body), 'order.totalCapturedAmount')?.detail).toBe('missing');
    delete (body.order as Record<string, unknown>).status;
    expect(at(check(body), 'order.totalCapturedAmount')).toBeUndefined();
  });

  it('requires transaction.acquirer on a standalone REFUND_REQUEST awaiting approval', () => {
    const refundRequest = { method: 'PUT', path: `${base}/order/o-1/transaction/r-1`, body: { apiOperation: 'REFUND', sourceOfFunds: { token: '9123' } } };
    const body = verifyAnswer();
    body.result = 'PENDING';
    body.response = { gatewayCode: 'PENDING' };
    body.order = { amount: 0, currency: 'USD', id: 'o-1', status: 'REFUND_REQUESTED', totalAuthorizedAmount: 0, totalCapturedAmount: 0, totalRefundedAmount: 0 };
    body.transaction = { amount: 9, currency: 'USD', id: 'r-1', type: 'REFUND_REQUEST' };
    expect(at(check(body, refundRequest), 'transaction.acquirer')?.detail).toBe('missing');
    body.transaction = { ...(body.transaction as Record<string, unknown>), acquirer: { id: 'TEST_ACQUIRER' } };
    expect(at(check(body, refundRequest), 'transaction.acquirer')).toBeUndefined();
  });

  it('fails on an over-long string', () => {
    const body = verifyAnswer();
    (body.transaction as Record<string, unknown>).id = 'x'.repeat(41);
    expect(at(check(body), 'transaction.id')?.detail).toMatch(/length 41 is outside 1-40/);
  });

  it('fails on a bad amount: a string, negative, too many decimals, a float artefact', () => {
    for (const amount of ['10.00', -1, 1.2345, 0.1 + 0.2, 1e13]) {
      const body = verifyAnswer();
      (body.transaction as Record<string, unknown>).amount = amount;
      expect(at(check(body), 'transaction.amount')?.rule).toMatch(/DecOut/);
    }
  });

  it('fails on an unknown field outside the operation’s "not shown" ranges, accepts one inside', () => {
    const token: ConformanceRequest = { method: 'PUT', path: '/api/rest/version/57/merchant/TESTM1/token/9123', body: {} };
    const answer = { merchant: 'TESTM1', repositoryId: 'TestR1', result: 'SUCCESS', token: '9123', version: '57' };
    const { merchant, ...rest } = answer;
    expect(check({ billingAgreement: 'x', merchant, ...rest }, token)).toEqual([expect.objectContaining({ path: 'billingAgreement' })]);
    expect(check({ merchant, repositoryId: 'TestR1', result: 'SUCCESS', token: '9123', usage: { lastUpdated: 'x' }, version: '57' }, token)).toEqual([]);
    expect(inNotShown('order.amount', [['3DSecure.authenticationToken', 'order.status']])).toBe(true);
    expect(inNotShown('order.totalCapturedAmount', [['3DSecure.authenticationToken', 'order.status']])).toBe(false);
    expect(inNotShown('constraints.x', [['browserPayment.~', 'paymentPlan.planId']])).toBe(true);
    expect(inNotShown('browserPayment.x', [['browserPayment.~', 'paymentPlan.planId']])).toBe(false);
  });

  it('fails on a group of the top level inside order, even within a "not shown" range (a REFUND answer\'s order.billing)', () => {
    const refund: ConformanceRequest = { method: 'PUT', path: '/api/rest/version/29/merchant/TESTM1/order/o-1/transaction/t-2', body: { apiOperation: 'REFUND' } };
    const answer = () => {
      const body = verifyAnswer();
      delete body.sourceOfFunds;
      body.version = '29';
      body.response = { gatewayCode: 'LOCK_FAILURE' };
      body.result = 'FAILURE';
      body.transaction = { acquirer: { id: 'TEST_ACQUIRER' }, amount: 10, currency: 'USD', id: 't-2', type: 'REFUND' };
      return body;
    };
    expect(check(answer(), refund)).toEqual([]);
    const leaky = answer();
    const order = leaky.order as Record<string, unknown>;
    leaky.order = { amount: 0, billing: { address: { city: 'Springfield' } }, currency: 'USD', customer: { firstName: 'Ada' }, id: 'o-1', reference: 'cart-7', status: 'VERIFIED', totalAuthorizedAmount: order.totalAuthorizedAmount, totalCapturedAmount: 0, totalRefundedAmount: 0 };
    expect(check(leaky, refund).map((v) => v.path)).toEqual(['order.billing', 'order.customer']);
    // An order's retrieval holds them beside its fields, where they belong.
    const retrieval: ConformanceRequest = { method: 'GET', path: `${base}/order/o-1` };
    const retrieved = { billing: { address: { city: 'Springfield' } }, currency: 'USD', id: 'o-1', merchant: 'TESTM1', result: 'SUCCESS', totalAuthorizedAmount: 0, totalCapturedAmount: 0, totalRefundedAmount: 0, transaction: [], version: '100' };
    expect(check(retrieved, retrieval, 200)).toEqual([]);
  });

  it('fails on an unmasked card number without UNMASK, and never prints the number', () => {
    const body = verifyAnswer();
    ((body.sourceOfFunds as Record<string, Record<string, Record<string, unknown>>>).provided.card as Record<string, unknown>).number = PAN;
    const violations = check(body);
    expect(at(violations, 'sourceOfFunds.provided.card.number')?.detail).toMatch(/unmasked number of 16 digits/);
    expect(describeViolations(verify, 201, violations)).not.toContain(PAN);
    expect(check(body, { ...verify, body: { apiOperation: 'VERIFY', responseControls: { sensitiveData: 'UNMASK' } } })).toEqual([]);
    expect(shown({ n: PAN })).toBe('{"n":"<16 digits>"}');
  });

  it('fails on keys out of alphabetical order', () => {
    const { result, ...rest } = verifyAnswer();
    expect(check({ result, ...rest })).toEqual([expect.objectContaining({ path: '(top level)' })]);
  });

  describe('error answers', () => {
    const error = (fields: Record<string, unknown>, status = 400) => check({ error: fields, result: 'ERROR' }, verify, status);

    it('accepts the spec’s shapes', () => {
      expect(error({ cause: 'INVALID_REQUEST', explanation: 'Value x is invalid.', field: 'order.amount', validationType: 'INVALID' })).toEqual([]);
      expect(error({ cause: 'SERVER_FAILED', supportCode: 'abc' }, 500)).toEqual([]);
    });

    it('fails on a wrong cause, an unknown validationType, a field without validationType', () => {
      expect(at(error({ cause: 'NOT_FOUND' }, 404), 'error.cause')).toBeDefined();
      expect(at(error({ cause: 'INVALID_REQUEST', field: 'a', validationType: 'BAD' }), 'error.validationType')).toBeDefined();
      expect(at(error({ cause: 'INVALID_REQUEST', field: 'a' }), 'error.field')?.rule).toMatch(/together/);
    });

    it('fails on a field its cause does not allow, an extra field, a result other than ERROR', () => {
      expect(at(error({ cause: 'SERVER_FAILED', supportCode: 's', explanation: 'x' }, 500), 'error.explanation')?.rule).toMatch(/only when cause/);
      expect(at(check({ error: { cause: 'INVALID_REQUEST' }, result: 'ERROR', version: '100' }, verify, 400), 'version')).toBeDefined();
      expect(at(check({ error: { cause: 'INVALID_REQUEST' }, result: 'FAILURE' }, verify, 400), 'result')).toBeDefined();
      expect(at(error({ cause: 'INVALID_REQUEST', explanation: 'x'.repeat(1001) }), 'error.explanation')?.detail).toMatch(/length 1001/);
    });

    it('fails on a status that does not match the cause, and on a missing supportCode', () => {
      expect(at(error({ cause: 'SERVER_BUSY', explanation: 'busy' }, 500), '(status)')).toBeDefined();
      expect(at(error({ cause: 'REQUEST_REJECTED' }, 403), 'error.supportCode')?.detail).toBe('missing');
    });

    it('fails on a body that is not JSON', () => {
      expect(checkResponse(verify, { status: 400, body: undefined, text: 'Bad Request' })).toEqual([expect.objectContaining({ path: '(body)' })]);
    });
  });

  it('tells operations apart by method, path and apiOperation', () => {
    expect(operationOf({ method: 'PUT', path: '/api/rest/version/57/merchant/M/token/1' })).toBe('TOKEN');
    expect(operationOf({ method: 'GET', path: '/api/rest/version/57/merchant/M/token/1' })).toBe('TOKEN_EXTENSION');
    expect(operationOf({ method: 'GET', path: '/api/rest/version/57/merchant/M/order/o' })).toBe('ORDER_RETRIEVAL');
    expect(operationOf({ ...verify, body: { apiOperation: 'REFUND' } })).toBe('REFUND');
    expect(operationOf({ ...verify, body: { apiOperation: 'PAY' } })).toBe('CARD_PAYMENT');
    expect(isMerchantApiPath('/bpui/provider_a/out/BP-1')).toBe(false);
    expect(isMerchantApiPath('/api/rest/version/100/merchant/M/order/o')).toBe(true);
  });
});
