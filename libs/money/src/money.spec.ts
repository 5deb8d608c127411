import fc from 'fast-check';
import { decimalToJsonNumber, Money, MoneyError, sumDecimals } from './money';

describe('Money', () => {
  it('adds 0.1 and 0.2 to exactly 0.3', () => {
    const sum = Money.of('0.1', 'USD').plus(Money.of('0.2', 'USD'));
    expect(sum.equals(Money.of('0.3', 'USD'))).toBe(true);
    expect(JSON.stringify({ amount: sum })).toBe('{"amount":0.3}');
  });

  it('rejects more decimals than the currency has minor units', () => {
    expect(() => Money.of('1.5', 'JPY')).toThrow(MoneyError);
    expect(() => Money.of('1.005', 'USD')).toThrow(MoneyError);
    expect(Money.of('1.005', 'BHD').toFixed()).toBe('1.005');
    expect(Money.of('100', 'JPY').toFixed()).toBe('100');
  });

  it('rejects unknown currencies and mixed-currency arithmetic', () => {
    expect(() => Money.of('1', 'ZZZ')).toThrow(/Unknown currency/);
    expect(() => Money.of('1', 'USD').plus(Money.of('1', 'EUR'))).toThrow(/Cannot combine/);
  });

  it('rejects text that is not a decimal', () => {
    for (const bad of ['', '1e3', '0x10', '1,5', ' 1', '1.2.3', 'NaN', 'Infinity']) {
      expect(() => Money.of(bad, 'USD')).toThrow(MoneyError);
    }
  });

  it('renders amounts as JSON numbers equal to their decimal text', () => {
    expect(decimalToJsonNumber('1000000000000')).toBe(1000000000000);
    expect(JSON.stringify(decimalToJsonNumber('999999999999.999'))).toBe('999999999999.999');
    expect(JSON.stringify(decimalToJsonNumber('10.50'))).toBe('10.5');
    expect(() => decimalToJsonNumber('1234567890123.4567')).toThrow(MoneyError);
  });

  it('sums any list of 3-decimal amounts exactly (property)', () => {
    const milli = fc.bigInt({ min: 0n, max: 10n ** 15n });
    fc.assert(
      fc.property(fc.array(milli, { maxLength: 30 }), (values) => {
        const texts = values.map((v) => `${v / 1000n}.${String(v % 1000n).padStart(3, '0')}`);
        const expected = values.reduce((a, b) => a + b, 0n);
        const [int, frac = ''] = sumDecimals(texts).split('.');
        expect(BigInt(int) * 1000n + BigInt(frac.padEnd(3, '0'))).toBe(expected);
      }),
    );
  });

  it('never prints a binary artefact for a bounded 3-decimal amount (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), (milli) => {
        const text = `${milli / 1000n}.${String(milli % 1000n).padStart(3, '0')}`;
        const printed = JSON.stringify(decimalToJsonNumber(text));
        expect(Money.of(printed, 'BHD').equals(Money.of(text, 'BHD'))).toBe(true);
      }),
    );
  });
});
