import { asJsonObject, jsonObjectAt } from './json';

describe('asJsonObject', () => {
  it('answers an object as it is, and undefined for null, arrays and scalars', () => {
    const object = { a: 1 };
    expect(asJsonObject(object)).toBe(object);
    for (const value of [null, undefined, [], [{ a: 1 }], 'x', 0, true]) {
      expect(asJsonObject(value)).toBeUndefined();
    }
  });
});

describe('jsonObjectAt', () => {
  const body = { sourceOfFunds: { provided: { card: { number: 'x' } }, list: [{}] }, order: null };

  it('follows the path through objects', () => {
    expect(jsonObjectAt(body, 'sourceOfFunds', 'provided', 'card')).toBe(body.sourceOfFunds.provided.card);
    expect(jsonObjectAt(body)).toBe(body);
  });

  it('answers undefined when a step is missing, null, an array or a scalar', () => {
    expect(jsonObjectAt(body, 'billing', 'address')).toBeUndefined();
    expect(jsonObjectAt(body, 'order')).toBeUndefined();
    expect(jsonObjectAt(body, 'sourceOfFunds', 'list')).toBeUndefined();
    expect(jsonObjectAt(body, 'sourceOfFunds', 'provided', 'card', 'number')).toBeUndefined();
    expect(jsonObjectAt(undefined, 'a')).toBeUndefined();
  });
});
