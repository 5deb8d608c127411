import { TEST_CARD } from '@gateway/testing';
import { copyOf, maskPan, redactCardData } from './redact-card-data';

describe('redactCardData', () => {
  it('masks a full card number 6.4 and drops the security code and track data', () => {
    const body = {
      sourceOfFunds: {
        type: 'CARD',
        provided: { card: { number: TEST_CARD, securityCode: '100', track2: ';5123450000000008=3901?', expiry: { month: '1', year: '39' } } },
      },
    };
    const redacted = redactCardData(body);
    expect(redacted).toEqual({
      sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', expiry: { month: '1', year: '39' } } } },
    });
    expect(JSON.stringify(redacted)).not.toContain(TEST_CARD);
    // The caller's object is left as it was.
    expect(body.sourceOfFunds.provided.card.number).toBe(TEST_CARD);
  });

  it('drops track 1 data as well as track 2', () => {
    const redacted = redactCardData({
      sourceOfFunds: { provided: { card: { number: TEST_CARD, track1: '%B5123450000000008^CARDHOLDER/A^3901?' } } },
    });
    expect(redacted).toEqual({ sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } } });
  });

  it('masks a bank account number of four characters or fewer entirely', () => {
    const redacted = redactCardData({ sourceOfFunds: { provided: { provider_c: { bankAccountNumber: '1234' } } } });
    expect(redacted).toEqual({ sourceOfFunds: { provided: { provider_c: { bankAccountNumber: 'xxxx' } } } });
  });

  it('keeps a number the caller already masked', () => {
    expect(maskPan('512345xxxxxx0008')).toBe('512345xxxxxx0008');
  });

  it('masks a partly masked number that still shows too many digits', () => {
    expect(maskPan('51234500000xxxx8')).toBe('xxxxxxxx0008');
  });

  it('masks short card numbers like every other response does, and keeps only the last four of bank account numbers', () => {
    expect(maskPan('123456789')).toBe('12xxx6789');
    const redacted = redactCardData({
      sourceOfFunds: { provided: { provider_c: { bankAccountNumber: '0012345678', iban: 'DE89370400440532013000' } } },
    });
    expect(redacted).toEqual({
      sourceOfFunds: { provided: { provider_c: { bankAccountNumber: 'xxxxxx5678', iban: 'xxxxxxxxxxxxxxxxxx3000' } } },
    });
  });

  it('leaves bodies without card data untouched', () => {
    const body = { order: { id: 'o1' }, transaction: { id: 't1' } };
    expect(redactCardData(body)).toEqual(body);
  });
});

describe('copyOf (redactCardData\'s copy)', () => {
  const body = () => ({
    result: 'SUCCESS',
    order: { id: 'o1', amount: -12.345, currency: 'BHD', totalCapturedAmount: 0, chargeback: { amount: 1000000000000, currency: 'JPY' } },
    sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { month: '1', year: '39' } } } },
    transaction: { id: 't1', amount: 0.5, nothing: null, absent: undefined, flags: [true, false], items: [{ sku: 'a', quantity: 3 }, [1, [2]]] },
    '10': 'an integer-like key', 'z-last': -0,
  });

  it('equals structuredClone\'s copy of a JSON body, keys in the same order, sharing nothing with the input', () => {
    const input = body();
    const copy = copyOf(input as never);
    const expected = structuredClone(input);
    expect(copy).toStrictEqual(expected);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(expected));
    expect(Object.keys(copy)).toEqual(Object.keys(expected));
    expect('absent' in (copy.transaction as object)).toBe(true);
    expect(Object.is(copy['z-last'], -0)).toBe(true);
    const objects = (value: unknown, into: object[] = []): object[] => {
      if (value !== null && typeof value === 'object') {
        into.push(value);
        Object.values(value).forEach((v) => objects(v, into));
      }
      return into;
    };
    const inputObjects = new Set(objects(input));
    expect(objects(copy).filter((o) => inputObjects.has(o))).toEqual([]);
  });

  it.each([
    ['a shared object', () => { const card = { number: TEST_CARD }; return { sourceOfFunds: { provided: { card } }, copyOfCard: card }; }],
    ['a cycle', () => { const cyclic: Record<string, unknown> = { id: 'o1' }; cyclic.self = cyclic; return { order: cyclic }; }],
    ['a class instance', () => ({ timeOfRecord: new Date(0), amount: new Number(5) })],
    ['an object without a prototype', () => ({ order: Object.assign(Object.create(null), { id: 'o1' }) })],
    ['a sparse array', () => ({ items: [1, , 3] })],
    ['an array with a property of its own', () => ({ items: Object.assign([1, 2], { extra: 'x' }) })],
    ['an own __proto__ key', () => JSON.parse('{"order":{"__proto__":{"polluted":true},"id":"o1"}}')],
    ['nesting deeper than 64', () => { let deep: Record<string, unknown> = { leaf: true }; for (let i = 0; i < 70; i++) deep = { deep }; return deep; }],
  ])('gives structuredClone\'s copy of a body with %s', (_, make) => {
    const input = make() as never;
    const copy = copyOf(input);
    expect(copy).toStrictEqual(structuredClone(input));
    expect(copy).not.toBe(input);
  });

  it('keeps the aliasing structuredClone keeps: a card shared with another place is redacted in both, as before', () => {
    const card = { number: TEST_CARD, securityCode: '100' };
    const redacted = redactCardData({ sourceOfFunds: { provided: { card } }, copyOfCard: card } as never);
    expect(JSON.stringify(redacted)).not.toContain(TEST_CARD);
    expect(JSON.stringify(redacted)).not.toContain('securityCode');
    expect(card.number).toBe(TEST_CARD);
  });

  it('keeps the own __proto__ key as its own field, not as the copy\'s prototype', () => {
    const copy = copyOf(JSON.parse('{"order":{"__proto__":{"polluted":true},"id":"o1"}}'));
    const order = copy.order as Record<string, unknown>;
    expect(Object.keys(order)).toEqual(['__proto__', 'id']);
    expect(Object.getOwnPropertyDescriptor(order, '__proto__')?.value).toEqual({ polluted: true });
    expect(order.polluted).toBeUndefined();
  });

  it.each([
    ['a symbol', () => ({ id: Symbol('x') })],
    ['a function', () => ({ id: () => 'x' })],
    ['a proxy', () => ({ order: new Proxy({ id: 'o1' }, {}) })],
  ])('throws structuredClone\'s DataCloneError for a body with %s', (_, make) => {
    const input = make() as never;
    expect(() => structuredClone(input)).toThrow();
    expect(() => copyOf(input)).toThrow(expect.objectContaining({ name: 'DataCloneError' }));
  });
});
