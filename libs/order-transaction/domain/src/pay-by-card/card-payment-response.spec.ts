import { CardPaymentRequest, validateOrderOperationRequest } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { TEST_CARD } from '@gateway/testing';
import { planCardPayment } from './card-payment-plan';
import { cardPaymentOrderDetails, cardPaymentResponseBody, taxOfTransaction } from './card-payment-response';

const card = { number: TEST_CARD, expiry: { month: '1', year: '39' }, securityCode: '100' };

function pay(order: Record<string, unknown>, apiOperation: 'PAY' | 'AUTHORIZE' = 'PAY'): CardPaymentRequest {
  return validateOrderOperationRequest(apiOperation, { apiOperation, order, sourceOfFunds: { provided: { card } } });
}

const AT = { now: new Date('2026-11-21T10:00:00.000Z') };

const ORDER = {
  amount: '20.00',
  currency: 'USD',
  itemAmount: '18.00',
  shippingAndHandlingAmount: '0.50',
  taxAmount: '1.50',
  item: [{ name: 'Book', quantity: '2', unitPrice: '9.00', unitTaxAmount: '0.75', sku: 'B-1' }],
  tax: [{ amount: '1.50', type: 'VAT' }],
  reference: 'ref-1',
};

describe('a card payment\'s response and kept order details', () => {
  it.each(['PAY', 'AUTHORIZE'] as const)('%s answers the order\'s amounts as JSON numbers from the exact decimals (ARCHITECTURE 4.5)', (apiOperation) => {
    const request = pay(ORDER, apiOperation);
    const body = cardPaymentResponseBody(request, planCardPayment(request, null, AT));
    expect(JSON.stringify(body.order)).toBe(
      '{"item":[{"name":"Book","quantity":2,"unitPrice":9,"unitTaxAmount":0.75,"sku":"B-1"}],"itemAmount":18,"reference":"ref-1","shippingAndHandlingAmount":0.5,"tax":[{"amount":1.5,"type":"VAT"}],"taxAmount":1.5}',
    );
  });

  it('keeps the same numbers in order.details, which retrieval shows at the order\'s top level', () => {
    const details = cardPaymentOrderDetails(pay(ORDER), {});
    expect(details).toMatchObject({
      itemAmount: 18,
      shippingAndHandlingAmount: 0.5,
      taxAmount: 1.5,
      item: [{ name: 'Book', quantity: 2, unitPrice: 9, unitTaxAmount: 0.75, sku: 'B-1' }],
      tax: [{ amount: 1.5, type: 'VAT' }],
      reference: 'ref-1',
    });
    expect(details).not.toHaveProperty('notificationUrl');
  });

  it('answers and keeps the agreement the payment ran on, the established terms filled in, amounts as numbers', () => {
    const request = validateOrderOperationRequest('PAY', {
      apiOperation: 'PAY',
      order: { amount: '20.00', currency: 'USD' },
      sourceOfFunds: { provided: { card } },
      agreement: { id: 'sub-1' },
    });
    const plan = planCardPayment(request, null, { ...AT, established: { type: 'RECURRING', amountVariability: 'FIXED', maximumAmountPerPayment: '50.5', amountCurrency: 'USD' } });
    const agreement = { id: 'sub-1', type: 'RECURRING', amountVariability: 'FIXED', maximumAmountPerPayment: 50.5 };
    expect(cardPaymentResponseBody(request, plan).agreement).toEqual(agreement);
    expect(cardPaymentOrderDetails(request, plan).agreement).toEqual(agreement);
    expect(cardPaymentResponseBody(pay(ORDER), planCardPayment(pay(ORDER), null, AT))).not.toHaveProperty('agreement');
  });

  it('shows the request\'s card only masked 6.4 before the acquirer answered, with its BIN\'s profile, and never its security code', () => {
    const request = pay({ amount: '20.00', currency: 'USD' });
    const body = cardPaymentResponseBody(request, planCardPayment(request, null, AT));
    expect(body.sourceOfFunds).toEqual({
      type: 'CARD',
      provided: { card: { brand: 'MASTERCARD', expiry: { month: '1', year: '39' }, fundingMethod: 'CREDIT', number: '512345xxxxxx0008', scheme: 'MASTERCARD' } },
    });
    expect(JSON.stringify(body)).not.toContain(TEST_CARD);
    expect(JSON.stringify(body)).not.toContain('securityCode');
  });

  it('renders a decimal a float would garble exactly, and leaves out what the request did not give', () => {
    const request = pay({ amount: '0.30', currency: 'USD', itemAmount: '0.10', taxAmount: '0.20' });
    const order = cardPaymentResponseBody(request, planCardPayment(request, null, AT)).order;
    expect(JSON.stringify(order)).toBe('{"itemAmount":0.1,"taxAmount":0.2}');
  });
});

describe('a card payment\'s body before the acquirer answered (card-payment-rules.md, amendment 2026-11-26 "what a reservation\'s body shows")', () => {
  const request = pay({ amount: '20.00', currency: 'USD' });
  const plan = { ...planCardPayment(request, null, AT), acquirerId: 'TEST_ACQUIRER' };
  const answered = {
    result: 'SUCCESS' as const,
    gatewayCode: 'APPROVED',
    acquirer: { id: 'OTHER_ACQUIRER', merchantId: 'M1', transactionId: 'T1', date: '1127', time: '101010' },
    authorizationCode: '123456',
    receipt: '000000000001',
    card: { number: '512345xxxxxx0008', expiry: { month: '1', year: '39' }, brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'DEBIT' },
  };

  it('names the acquirer it is sent to, and nothing only the acquirer can say', () => {
    const body = cardPaymentResponseBody(request, plan);
    expect(body.transaction).toEqual({ acquirer: { id: 'TEST_ACQUIRER' } });
    expect(body).not.toHaveProperty('authorizationResponse');
    expect(body.response).toEqual({});
  });

  it('shows a token\'s card as the token alone: without a number there is no card group, not even the name on it', () => {
    const byToken = validateOrderOperationRequest('PAY', {
      apiOperation: 'PAY',
      order: { amount: '20.00', currency: 'USD' },
      sourceOfFunds: { token: '9123456789012345', provided: { card: { nameOnCard: 'A Payer' } } },
    });
    expect(cardPaymentResponseBody(byToken, planCardPayment(byToken, null, AT)).sourceOfFunds).toEqual({ type: 'CARD', token: '9123456789012345' });
  });

  it('gives way to the acquirer\'s answer: its card profile and its acquirer group win', () => {
    const body = cardPaymentResponseBody(request, plan, answered);
    expect(body.sourceOfFunds).toEqual({ type: 'CARD', provided: { card: answered.card } });
    expect(body.transaction).toEqual({ acquirer: answered.acquirer, authorizationCode: '123456', receipt: '000000000001' });
  });
});

describe('the tax of a partially approved payment (test-acquirer-partial-approvals.md, amendment 2026-11-26)', () => {
  const request = pay({ amount: '110.51', currency: 'USD', itemAmount: '100.51', taxAmount: '10.00', acceptPartialAmount: true });
  const plan = planCardPayment(request, null, AT);
  const approved = (amount: string) => ({ result: 'SUCCESS' as const, gatewayCode: amount === '110.51' ? 'APPROVED' : 'PARTIALLY_APPROVED', approvedAmount: Money.of(amount, 'USD') });

  it('keeps no transaction tax: the tax of the part approved is not known, and the whole tax could exceed it', () => {
    expect(taxOfTransaction(plan, approved('55.25'))).toBeNull();
    const body = cardPaymentResponseBody(request, plan, approved('55.25'));
    expect(body.transaction).not.toHaveProperty('taxAmount');
    expect(body.transaction).toMatchObject({ requestedAmount: 110.51 });
    // The order's sub-totals still echo the request.
    expect(body.order).toMatchObject({ taxAmount: 10 });
  });

  it("keeps the request's tax when the whole amount is approved, and before the issuer answered", () => {
    expect(taxOfTransaction(plan, approved('110.51'))?.toFixed()).toBe('10.00');
    expect(taxOfTransaction(plan, undefined)?.toFixed()).toBe('10.00');
    expect(cardPaymentResponseBody(request, plan, approved('110.51')).transaction).toMatchObject({ taxAmount: 10 });
  });
});
