import { showValue } from '@gateway/api-fields';
import { refusal } from '../card-operation/testing-orders';
import { MAX_AGREEMENT_AMOUNT } from '@gateway/money';
import { moneyField } from './request-errors';

/**
 * moneyField is the services' second line behind the edge's request rules: a message from
 * anywhere with an amount the API cannot answer is a 400 on the amount's field, never an
 * overflowing numeric(17,4) insert (docs/decisions/amount-bounds.md).
 */
describe('moneyField', () => {
  const refund = (amount: string, currency = 'USD') =>
    moneyField('transaction.amount', amount, 'transaction.currency', currency);

  it('accepts exactly 1000000000000', () => {
    expect(refund('1000000000000').toString()).toBe('1000000000000');
  });

  it.each(['1000000000000.01', '10000000000000', '99999999999999'])(
    "refuses %s on the amount's field",
    (amount) => {
      expect(refusal(() => refund(amount))).toMatchObject({
        field: 'transaction.amount',
        validationType: 'INVALID',
        explanation: `Value '${showValue(amount)}' is invalid. Amounts are at most 1000000000000.`,
      });
    },
  );

  it('refuses a negative amount past -1000000000000 (item unit prices)', () => {
    const price = (amount: string) =>
      moneyField('transaction.item[0].unitPrice', amount, 'transaction.currency', 'USD');
    expect(price('-1000000000000').toString()).toBe('-1000000000000');
    expect(refusal(() => price('-1000000000000.01'))).toMatchObject({
      field: 'transaction.item[0].unitPrice',
      validationType: 'INVALID',
      explanation: `Value '${showValue('-1000000000000.01')}' is invalid. Amounts are at least -1000000000000.`,
    });
  });

  it("takes the field's own bound where the spec gives one (agreement amounts per payment, up to 99999999999999)", () => {
    const maximum = (amount: string) =>
      moneyField('agreement.maximumAmountPerPayment', amount, 'order.currency', 'USD', MAX_AGREEMENT_AMOUNT);
    expect(maximum('99999999999999').toString()).toBe('99999999999999');
    expect(refusal(() => maximum('100000000000000'))).toMatchObject({
      field: 'agreement.maximumAmountPerPayment',
      validationType: 'INVALID',
    });
  });

  it('limits CLF to 3 decimal places, saying why', () => {
    expect(refund('1.234', 'CLF').toJSON()).toBe(1.234);
    expect(refusal(() => refund('1.2345', 'CLF'))).toMatchObject({
      field: 'transaction.amount',
      validationType: 'INVALID',
      explanation:
        "Value '1.2345' is invalid. CLF amounts have at most 3 decimal places: ISO 4217 gives CLF 4, but the gateway answers amounts with at most 3.",
    });
  });

  it("keeps refusing an unknown currency on the currency's field and extra decimals on the amount's", () => {
    expect(refusal(() => refund('1', 'ZZZ'))).toMatchObject({
      field: 'transaction.currency',
      validationType: 'INVALID',
    });
    expect(refusal(() => refund('1.005'))).toMatchObject({
      field: 'transaction.amount',
      validationType: 'INVALID',
    });
  });
});
