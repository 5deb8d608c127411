import { deriveSameAsBilling } from './shipping-same-as-billing.rule';

const billing = { street: '12 Main St.', city: 'Springfield', postcodeZip: '10001', country: 'USA' };

describe('shipping.address.sameAsBilling', () => {
  it('is SAME when both addresses are given and equal', () => {
    expect(deriveSameAsBilling(billing, { ...billing })).toBe('SAME');
  });

  it('is SAME when the addresses differ only in non-alphanumeric characters', () => {
    expect(
      deriveSameAsBilling(billing, {
        street: '12, Main St',
        city: 'Springfield',
        postcodeZip: '100-01',
        country: 'USA',
      }),
    ).toBe('SAME');
    expect(
      deriveSameAsBilling(
        { street: 'Königsallee 1', city: 'Düsseldorf' },
        { street: 'Königsallee-1', city: 'Düsseldorf.' },
      ),
    ).toBe('SAME');
  });

  it('reads street and street2 as one line', () => {
    expect(
      deriveSameAsBilling({ ...billing, street2: 'Apt 4' }, { ...billing, street: '12 Main St. Apt 4' }),
    ).toBe('SAME');
  });

  it('is DIFFERENT when both are given and differ', () => {
    expect(deriveSameAsBilling(billing, { ...billing, street: '14 Main St.' })).toBe('DIFFERENT');
    expect(deriveSameAsBilling(billing, { ...billing, company: 'Acme' })).toBe('DIFFERENT');
    expect(
      deriveSameAsBilling(billing, { street: '12 Main St.', city: 'Springfield', postcodeZip: '10001' }),
    ).toBe('DIFFERENT');
  });

  it('keeps letter case significant: the spec ignores only non-alphanumerics', () => {
    expect(deriveSameAsBilling(billing, { ...billing, city: 'SPRINGFIELD' })).toBe('DIFFERENT');
  });

  it('is UNKNOWN when one of the addresses is absent', () => {
    expect(deriveSameAsBilling(billing, undefined)).toBe('UNKNOWN');
    expect(deriveSameAsBilling(undefined, billing)).toBe('UNKNOWN');
    expect(deriveSameAsBilling(billing, { source: 'NEW_ADDRESS' } as never)).toBe('UNKNOWN');
  });

  it('says nothing when neither address is given', () => {
    expect(deriveSameAsBilling(undefined, undefined)).toBeUndefined();
    expect(deriveSameAsBilling({}, {})).toBeUndefined();
  });

  it("keeps the merchant's own value", () => {
    expect(deriveSameAsBilling(billing, { ...billing, street: 'elsewhere', sameAsBilling: 'SAME' })).toBe(
      'SAME',
    );
    expect(deriveSameAsBilling(undefined, { sameAsBilling: 'DIFFERENT' })).toBe('DIFFERENT');
  });
});
