import { CardExpiry } from './card-expiry';

describe('CardExpiry', () => {
  it('reads the request form and renders MMYY', () => {
    expect(CardExpiry.of('1', '39')?.mmyy).toBe('0139');
    expect(CardExpiry.of('12', '05')?.mmyy).toBe('1205');
    expect(CardExpiry.fromMmyy('0427')).toMatchObject({ month: 4, year: 2027 });
  });

  it('refuses impossible values', () => {
    for (const [month, year] of [['0', '39'], ['13', '39'], ['1', '2039'], ['x', '39'], ['1', '3']]) {
      expect(CardExpiry.of(month, year)).toBeNull();
    }
  });

  it('is valid through the last day of its month', () => {
    const expiry = CardExpiry.of('4', '27')!;
    expect(expiry.isExpired(new Date('2027-04-30T23:59:59.999Z'))).toBe(false);
    expect(expiry.isExpired(new Date('2027-05-01T00:00:00.000Z'))).toBe(true);
    expect(CardExpiry.of('12', '27')!.isExpired(new Date('2027-12-31T12:00:00Z'))).toBe(false);
    expect(CardExpiry.of('12', '27')!.isExpired(new Date('2028-01-01T00:00:00Z'))).toBe(true);
  });
});
