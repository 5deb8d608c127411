import { isPersonalDataKey, withoutPersonalData } from './personal-data';

describe('withoutPersonalData', () => {
  it('drops the personal groups and fields at any depth, in arrays too, and keeps every other member', () => {
    const body = {
      order: { id: 'o-1', amount: 10, custom: { colour: 'mauve' }, customerNote: 'n', item: [{ name: 'x', recipient: { firstName: 'Z' } }] },
      customer: { email: 'z@example.org' },
      sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008', nameOnCard: 'Z Q' } } },
      browserPayment: { paypal: { accountEmail: 'z@example.org', accountHolder: 'Z Q' } },
      transaction: { id: 't-1', merchantNote: 'm', acquirer: { transactionId: 'MCC1' } },
    };
    expect(withoutPersonalData(body)).toEqual({
      order: { id: 'o-1', amount: 10, item: [{ name: 'x' }] },
      sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } },
      browserPayment: { paypal: {} },
      transaction: { id: 't-1', acquirer: { transactionId: 'MCC1' } },
    });
  });

  it('answers the value itself when it holds none, so stripping twice changes nothing', () => {
    const body = { order: { id: 'o-1', item: [{ name: 'x' }] }, result: 'SUCCESS' };
    expect(withoutPersonalData(body)).toBe(body);
    const once = withoutPersonalData({ ...body, device: { ipAddress: '203.0.113.7' } });
    expect(withoutPersonalData(once)).toBe(once);
  });

  it('matches keys as the API spells them, in any case, and not other keys', () => {
    expect(['billing', 'Shipping', 'nameOnCard', 'POSTCODEZIP', 'custom'].every(isPersonalDataKey)).toBe(true);
    expect(['name', 'number', 'customerReference', 'order', 'url'].some(isPersonalDataKey)).toBe(false);
  });
});
