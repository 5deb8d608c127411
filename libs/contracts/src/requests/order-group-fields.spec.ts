import { LEDGER_ORDER_FIELDS, ORDER_GROUP_FIELDS, orderGroupOf } from './order-group-fields';

describe('ORDER_GROUP_FIELDS', () => {
  it("is the ledger's order fields and every operation's order.* request fields", () => {
    for (const field of LEDGER_ORDER_FIELDS) expect(ORDER_GROUP_FIELDS).toContain(field);
    // VERIFY's, REFUND's, the browser payments' and the card payments' own order fields.
    for (const field of ['reference', 'description', 'custom', 'purchaseType', 'acceptPartialAmount', 'item', 'tax', 'taxAmount', 'walletProvider', 'notificationUrl']) {
      expect(ORDER_GROUP_FIELDS).toContain(field);
    }
  });

  it('holds none of the groups a response carries beside the order', () => {
    for (const group of ['agreement', 'billing', 'currencyConversion', 'customer', 'device', 'shipping', 'sourceOfFunds', 'transaction', 'result']) {
      expect(ORDER_GROUP_FIELDS).not.toContain(group);
    }
  });
});

describe('orderGroupOf', () => {
  it("keeps an order retrieval's own fields and drops the groups beside them", () => {
    expect(
      orderGroupOf({
        id: 'o-1',
        reference: 'cart-7',
        status: 'CAPTURED',
        billing: { address: { city: 'Springfield' } },
        customer: { firstName: 'Ada' },
        result: 'SUCCESS',
        transaction: [],
      }),
    ).toEqual({ id: 'o-1', reference: 'cart-7', status: 'CAPTURED' });
  });
});
