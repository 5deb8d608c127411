import { CardPaymentRequest, validateOrderOperationRequest } from '@gateway/contracts';
import { TEST_CARD } from '@gateway/testing';
import { orderOf, refusal, txn } from '../card-operation/testing-orders';
import { planCardPayment } from './card-payment-plan';

const card = { number: TEST_CARD, expiry: { month: '1', year: '39' }, securityCode: '100' };
const pay = (extra: Record<string, unknown> = {}, apiOperation: 'PAY' | 'AUTHORIZE' = 'PAY'): CardPaymentRequest =>
  validateOrderOperationRequest(apiOperation, { apiOperation, order: { amount: '10.00', currency: 'USD' }, ...extra });
const session = { id: 'SESSION0001234567890123456789012', sealedCard: 'sealed-value' };
const AT = { now: new Date('2026-11-21T10:00:00.000Z') };

describe('planCardPayment', () => {
  it('sends a complete card in the request to the acquirer directly, its number held as a masked Pan', () => {
    const plan = planCardPayment(pay({ sourceOfFunds: { type: 'CARD', provided: { card } } }), null, AT);
    expect(plan).toMatchObject({ type: 'PAYMENT', apiOperation: 'PAY', acceptPartialAmount: false });
    expect(plan.route.kind).toBe('ACQUIRER');
    expect(JSON.stringify(plan.route)).not.toContain(TEST_CARD);
    expect(planCardPayment(pay({ sourceOfFunds: { provided: { card } } }, 'AUTHORIZE'), null, AT).type).toBe('AUTHORIZATION');
  });

  it('sends a token, or a session card the request does not complete alone, through the vault with the explicit values', () => {
    const token = planCardPayment(pay({ sourceOfFunds: { token: '9123456789012346', provided: { card: { securityCode: '100' } } } }), null, AT);
    expect(token.route).toEqual({ kind: 'VAULT', source: { token: '9123456789012346' } });
    expect(token.explicit).toEqual({ securityCode: '100' });
    const sealed = planCardPayment(pay({ sourceOfFunds: { provided: { card: { expiry: { month: '5', year: '39' } } } } }), null, { ...AT, session });
    expect(sealed.route).toEqual({ kind: 'VAULT', source: { sealed: { value: 'sealed-value', bindingId: session.id } } });
    // A whole card with its security code needs nothing of the session's.
    expect(planCardPayment(pay({ sourceOfFunds: { provided: { card } } }), null, { ...AT, session }).route.kind).toBe('ACQUIRER');
    // Without its code, the session's completes it (the payer entered it there): through the vault.
    const { securityCode: _code, ...withoutCode } = card;
    const completed = planCardPayment(pay({ sourceOfFunds: { provided: { card: withoutCode } } }), null, { ...AT, session });
    expect(completed.route).toEqual({ kind: 'VAULT', source: { sealed: { value: 'sealed-value', bindingId: session.id } } });
    expect(completed.explicit).toEqual({ number: TEST_CARD, expiry: { month: '1', year: '39' } });
  });

  it('answers MISSING for a payment without a card, or with an incomplete one and nothing to complete it', () => {
    expect(refusal(() => planCardPayment(pay(), null, AT))).toMatchObject({ field: 'sourceOfFunds', validationType: 'MISSING' });
    expect(refusal(() => planCardPayment(pay({ sourceOfFunds: { provided: { card: { number: TEST_CARD } } } }), null, AT))).toMatchObject({
      field: 'sourceOfFunds.provided.card.expiry',
      validationType: 'MISSING',
    });
    expect(refusal(() => planCardPayment(pay({ sourceOfFunds: { type: 'CARD' } }), null, AT))).toMatchObject({
      field: 'sourceOfFunds.provided.card.number',
    });
  });

  it('keeps the order currency, the partial acceptance and the tax', () => {
    const order = orderOf([txn('p0', 'PAYMENT', '1.00', { result: 'FAILURE' })]);
    const euros = validateOrderOperationRequest('PAY', { apiOperation: 'PAY', order: { amount: '1', currency: 'EUR' }, sourceOfFunds: { provided: { card } } });
    expect(refusal(() => planCardPayment(euros, order, AT))).toMatchObject({ field: 'order.currency', validationType: 'INVALID' });
    const plan = planCardPayment(
      pay({ order: { amount: '10.51', currency: 'USD', acceptPartialAmount: true, itemAmount: '9.46', taxAmount: '1.05' }, sourceOfFunds: { provided: { card } } }),
      order,
      AT,
    );
    expect([plan.amount.toFixed(), plan.taxAmount?.toFixed(), plan.acceptPartialAmount]).toEqual(['10.51', '1.05', true]);
  });

  it('takes no payment on an order a standalone refund opened, whatever that refund\'s result', () => {
    for (const first of [txn('r0', 'REFUND', '10.00'), txn('r0', 'REFUND', '10.00', { result: 'FAILURE' }), txn('r0', 'REFUND_REQUEST', '10.00', { result: 'PENDING' })]) {
      for (const apiOperation of ['PAY', 'AUTHORIZE'] as const) {
        const err = refusal(() => planCardPayment(pay({ sourceOfFunds: { provided: { card } } }, apiOperation), orderOf([first]), AT));
        expect([err.httpStatus, err.explanation]).toEqual([400, expect.stringContaining('was opened by a standalone refund: it takes no payment')]);
      }
    }
  });

  it('passes 3-D Secure performed elsewhere and the stored-credential agreement on to the issuer', () => {
    const plan = planCardPayment(
      pay({
        sourceOfFunds: { provided: { card } },
        authentication: { '3ds': { acsEci: '05', authenticationToken: 'kHyn+7YFi1EUAREAAAAvNUe6Hv8=' }, transactionId: 'auth-1' },
        agreement: { id: 'subscription-7', type: 'RECURRING', amountVariability: 'FIXED' },
      }),
      null,
      AT,
    );
    expect(plan.authentication).toEqual({ threeDs: { acsEci: '05', authenticationToken: 'kHyn+7YFi1EUAREAAAAvNUe6Hv8=' }, transactionId: 'auth-1' });
    expect(plan.agreement).toMatchObject({ id: 'subscription-7', type: 'RECURRING' });
    expect(planCardPayment(pay({ sourceOfFunds: { provided: { card } } }), null, AT)).not.toHaveProperty('authentication');
  });

  describe('the agreement, as VERIFY checks it (docs/decisions/agreements.md)', () => {
    const established = { type: 'RECURRING', amountVariability: 'FIXED', startDate: '2026-01-01', maximumAmountPerPayment: '50', amountCurrency: 'USD' };
    const withAgreement = (agreement: Record<string, unknown>) => pay({ sourceOfFunds: { provided: { card } }, agreement });

    it('refuses a RECURRING agreement without amountVariability when none is established', () => {
      expect(refusal(() => planCardPayment(withAgreement({ id: 'sub-1', type: 'RECURRING' }), null, AT))).toMatchObject({
        field: 'agreement.amountVariability',
        validationType: 'MISSING',
      });
      expect(refusal(() => planCardPayment(withAgreement({ id: 'sub-1', startDate: '2026-11-01' }), null, AT))).toMatchObject({
        field: 'agreement.startDate',
      });
    });

    it('tells the issuer the established terms the request leaves out', () => {
      const plan = planCardPayment(withAgreement({ id: 'sub-1', type: 'RECURRING' }), null, { ...AT, established });
      expect(plan.agreement).toEqual({ id: 'sub-1', type: 'RECURRING', amountVariability: 'FIXED', startDate: '2026-01-01', maximumAmountPerPayment: '50' });
    });

    it('asks a payment in a series with a token\'s card to name its agreement (spec, agreement.id)', () => {
      const byToken = (agreement: Record<string, unknown>) => pay({ sourceOfFunds: { token: '9123456789012346' }, agreement });
      expect(refusal(() => planCardPayment(byToken({ type: 'UNSCHEDULED' }), null, AT))).toMatchObject({
        field: 'agreement.id',
        validationType: 'MISSING',
      });
      expect(planCardPayment(byToken({ id: 'sub-2', type: 'UNSCHEDULED' }), null, AT).agreement).toEqual({ id: 'sub-2', type: 'UNSCHEDULED' });
      // The card given in the request: no id needed.
      expect(planCardPayment(withAgreement({ type: 'UNSCHEDULED' }), null, AT).agreement).toEqual({ type: 'UNSCHEDULED' });
    });

    it('refuses another type than the established one before anything else', () => {
      expect(refusal(() => planCardPayment(withAgreement({ id: 'sub-1', type: 'UNSCHEDULED' }), null, { ...AT, established }))).toMatchObject({
        field: 'agreement.type',
        validationType: 'INVALID',
      });
    });
  });
});
