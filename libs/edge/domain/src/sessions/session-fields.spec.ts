import { RefundRequest, SaveTokenRequest, VerifyRequest } from '@gateway/contracts';
import { acceptsPath, mergeValues, sessionChangeOf, valuesFor } from './session-fields';

describe('session fields', () => {
  it('keep an update\'s values without the transient ones, and take card details out to be sealed', () => {
    const change = sessionChangeOf({
      correlationId: 'c',
      session: { version: '0123456789' },
      order: { currency: 'USD' },
      sourceOfFunds: { token: '9123', provided: { card: { number: '5123450000000008', securityCode: '100' } } },
    });
    expect(change).toEqual({
      fields: { order: { currency: 'USD' }, sourceOfFunds: { token: '9123', type: 'CARD' } },
      card: { number: '5123450000000008', securityCode: '100' },
    });
    expect(sessionChangeOf({ sourceOfFunds: { type: 'PROVIDER_A', provided: { card: { nameOnCard: 'A' } } } }).fields).toEqual({
      sourceOfFunds: { type: 'PROVIDER_A' },
    });
    expect(sessionChangeOf({ customer: { firstName: 'Ada' } })).toEqual({ fields: { customer: { firstName: 'Ada' } } });
  });

  it('merge objects key by key and replace values and arrays', () => {
    expect(
      mergeValues(
        { order: { amount: '1', item: [{ name: 'a' }, { name: 'b' }] }, customer: { firstName: 'Ada' } },
        { order: { currency: 'USD', item: [{ name: 'c' }] }, customer: 'x' as never },
      ),
    ).toEqual({ order: { amount: '1', currency: 'USD', item: [{ name: 'c' }] }, customer: 'x' });
  });

  it('give an operation only the values its request class declares', () => {
    const values = {
      order: { amount: '10.00', currency: 'USD', reference: 'r', notificationUrl: 'https://m.example/h' },
      transaction: { amount: '2.00', currency: 'USD' },
      shipping: { method: 'OVERNIGHT', address: { city: 'Oslo' } },
      customer: { email: 'a@b.co' },
    };
    // VERIFY takes the order's reference but no amount, nor a transaction amount or currency.
    expect(valuesFor(VerifyRequest, values)).toEqual({
      order: { currency: 'USD', reference: 'r', notificationUrl: 'https://m.example/h' },
      shipping: { method: 'OVERNIGHT', address: { city: 'Oslo' } },
      customer: { email: 'a@b.co' },
    });
    expect(valuesFor(RefundRequest, values)).toEqual({
      order: { reference: 'r', notificationUrl: 'https://m.example/h' },
      transaction: { amount: '2.00', currency: 'USD' },
      shipping: { method: 'OVERNIGHT', address: { city: 'Oslo' } },
      customer: { email: 'a@b.co' },
    });
  });

  it('tell whether an operation takes card details', () => {
    expect(acceptsPath(VerifyRequest, 'sourceOfFunds.provided.card')).toBe(true);
    expect(acceptsPath(SaveTokenRequest, 'sourceOfFunds.provided.card')).toBe(true);
    expect(acceptsPath(RefundRequest, 'sourceOfFunds.provided.card.number')).toBe(true);
    expect(acceptsPath(VerifyRequest, 'browserPayment.returnUrl')).toBe(false);
  });
});
