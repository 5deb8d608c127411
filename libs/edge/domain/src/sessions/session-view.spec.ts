import type { StoredSession } from '@gateway/edge/data-access';
import { sessionView } from './session-view';

function stored(fields: StoredSession['fields']): StoredSession {
  return {
    id: 'SESSION0002ABCDEFGHIJKLMNOPQRSTU',
    merchantId: 'TESTM',
    version: '0123456789',
    updateStatus: 'SUCCESS',
    fields,
    createdAt: '2026-11-26T00:00:00.000Z',
    updatedAt: '2026-11-26T00:00:00.000Z',
  };
}

describe('sessionView', () => {
  it('shows every amount the session holds as a JSON number, as every response does (ARCHITECTURE 4.5)', () => {
    const view = sessionView(
      stored({
        order: {
          amount: '010.50',
          currency: 'USD',
          itemAmount: '10.',
          shippingAndHandlingAmount: '.5',
          taxAmount: '0.000',
          item: [{ name: 'discount', quantity: '02', unitPrice: '-0', unitTaxAmount: '-1.25', sku: '0042' }],
          tax: [{ amount: '1000000000000', type: 'VAT' }],
          reference: '0100',
        },
        transaction: { amount: '99999999999999', currency: 'JPY', taxAmount: '7', item: [{ name: 'a', quantity: '9999999999999999', unitPrice: '1' }] },
      }),
    );
    expect(view).toMatchObject({
      order: {
        amount: 10.5,
        currency: 'USD',
        itemAmount: 10,
        shippingAndHandlingAmount: 0.5,
        taxAmount: 0,
        item: [{ name: 'discount', quantity: 2, unitPrice: 0, unitTaxAmount: -1.25, sku: '0042' }],
        tax: [{ amount: 1000000000000, type: 'VAT' }],
        reference: '0100',
      },
      transaction: { amount: 99999999999999, currency: 'JPY', taxAmount: 7, item: [{ name: 'a', quantity: '9999999999999999', unitPrice: 1 }] },
    });
    expect(Object.is((view.order as { item: { unitPrice: number }[] }).item[0].unitPrice, -0)).toBe(false);
  });

  it('leaves the values an operation is filled with as they were given', () => {
    const session = stored({ order: { amount: '010.50', currency: 'USD' } });
    sessionView(session);
    expect(session.fields).toEqual({ order: { amount: '010.50', currency: 'USD' } });
  });
});
