import { isPersonalDataKey, notificationUrlKept, returnUrlKept, withoutPersonalData } from './personal-data';

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

  it('cuts every returnUrl to its origin and path, and leaves one that has nothing else as it is', () => {
    const body = { browserPayment: { returnUrl: 'https://shop.example/checkout/return?cart=7&email=z%40example.org#paid', interaction: { status: 'COMPLETED' } } };
    expect(withoutPersonalData(body)).toEqual({ browserPayment: { returnUrl: 'https://shop.example/checkout/return', interaction: { status: 'COMPLETED' } } });
    const plain = { browserPayment: { returnUrl: 'https://shop.example/checkout/return' } };
    expect(withoutPersonalData(plain)).toBe(plain);
  });
});

describe('withoutPersonalData, URLs and groups (2026-11-27)', () => {
  it('cuts every notificationUrl to what its delivery needs, user info included, and leaves one with nothing else as it is', () => {
    const body = { order: { id: 'o-1', notificationUrl: 'https://hooks:pw@merchant.example/hooks?customer=zelda#x' } };
    expect(withoutPersonalData(body)).toEqual({ order: { id: 'o-1', notificationUrl: 'https://hooks:pw@merchant.example/hooks' } });
    const plain = { order: { id: 'o-1', notificationUrl: 'https://merchant.example/hooks' } };
    expect(withoutPersonalData(plain)).toBe(plain);
  });

  it("drops an agreement's customData, and no other customData", () => {
    const body = {
      agreement: { id: 'a-1', type: 'RECURRING', amountVariability: 'FIXED', customData: 'member zelda-42' },
      transaction: { acquirer: { customData: 'acquirer text' } },
      externalTokenProvider: { customData: '{"site":"s1"}' },
    };
    expect(withoutPersonalData(body)).toEqual({
      agreement: { id: 'a-1', type: 'RECURRING', amountVariability: 'FIXED' },
      transaction: { acquirer: { customData: 'acquirer text' } },
      externalTokenProvider: { customData: '{"site":"s1"}' },
    });
    const once = withoutPersonalData(body);
    expect(withoutPersonalData(once)).toBe(once);
  });
});

describe('notificationUrlKept', () => {
  it.each([
    ['https://merchant.example/hooks?customer=zelda', 'https://merchant.example/hooks'],
    ['https://merchant.example/hooks#z', 'https://merchant.example/hooks'],
    ['https://user:secret@merchant.example:8443/hooks?c=1', 'https://user:secret@merchant.example:8443/hooks'],
    ['https://merchant.example/hooks', 'https://merchant.example/hooks'],
    ['not a url?x', 'not a url?x'],
    // The text before the query, as the merchant wrote it: the dispatcher's receiver key
    // (RECEIVER_SQL, the https:// authority as written, port included) and the path it posts to
    // stay the ones of the order's other notifications.
    ['https://Hooks.Merchant.example:443/hooks?customer=zelda', 'https://Hooks.Merchant.example:443/hooks'],
    ['https://merchant.example/a/../hooks/./in?c=1', 'https://merchant.example/a/../hooks/./in'],
    ['https://merchant.example?c=1', 'https://merchant.example'],
  ])('%s: %s', (url, kept) => {
    expect(notificationUrlKept(url)).toBe(kept);
    expect(notificationUrlKept(kept)).toBe(kept);
  });
});

describe('returnUrlKept', () => {
  it.each([
    ['https://shop.example/checkout/return?cart=7', 'https://shop.example/checkout/return'],
    ['https://shop.example/return#step-2', 'https://shop.example/return'],
    ['https://shop.example?', 'https://shop.example/'],
    ['https://zelda:pw@shop.example/r', 'https://shop.example/r'],
    ['https://Shop.Example:443/r', 'https://Shop.Example:443/r'],
    ['not a url', 'not a url'],
  ])('%s: %s', (url, kept) => {
    expect(returnUrlKept(url)).toBe(kept);
    expect(returnUrlKept(kept)).toBe(kept);
  });
});
