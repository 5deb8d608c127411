import fc from 'fast-check';
import { amountDecimalPlaces, minorUnits } from './currencies';
import { decimalToJsonNumber, MAX_AGREEMENT_AMOUNT, MAX_AMOUNT, Money, MoneyError, quantityToJson, sumDecimals, withinMaxAmount } from './money';

describe('Money', () => {
  it('adds 0.1 and 0.2 to exactly 0.3', () => {
    const sum = Money.of('0.1', 'USD').plus(Money.of('0.2', 'USD'));
    expect(sum.equals(Money.of('0.3', 'USD'))).toBe(true);
    expect(JSON.stringify({ amount: sum })).toBe('{"amount":0.3}');
  });

  it('multiplies by a decimal factor rounded down to the digits an amount of the currency has, never up', () => {
    expect(Money.of('30.00', 'EUR').timesRoundedDown('1.15').toFixed()).toBe('34.50');
    // 19.99 × 1.15 = 22.9885: the cent below, not the nearest.
    expect(Money.of('19.99', 'USD').timesRoundedDown('1.15').toFixed()).toBe('22.98');
    expect(Money.of('0.01', 'USD').timesRoundedDown('1.15').toFixed()).toBe('0.01');
    expect(Money.of('999', 'JPY').timesRoundedDown('1.15').toFixed()).toBe('1148');
    expect(Money.of('1.999', 'BHD').timesRoundedDown('1.15').toFixed()).toBe('2.298');
    // ISO 4217 gives CLF 4 decimals; a request amount has at most 3: 1.2345 × 1 cut to 1.234.
    expect(Money.of('1.2345', 'CLF').timesRoundedDown('1').toString()).toBe('1.234');
    // Exact in decimal: 0.1 × 3 is 0.3, not 0.30000000000000004.
    expect(Money.of('0.10', 'USD').timesRoundedDown('3').equals(Money.of('0.3', 'USD'))).toBe(true);
    expect(() => Money.of('1', 'USD').timesRoundedDown('1.1x')).toThrow(MoneyError);
  });

  it('rejects more decimals than the currency has minor units', () => {
    expect(() => Money.of('1.5', 'JPY')).toThrow(MoneyError);
    expect(() => Money.of('1.005', 'USD')).toThrow(MoneyError);
    expect(Money.of('1.005', 'BHD').toFixed()).toBe('1.005');
    expect(Money.of('100', 'JPY').toFixed()).toBe('100');
  });

  it('rejects unknown currencies and mixed-currency arithmetic', () => {
    expect(() => Money.of('1', 'ZZZ')).toThrow(/Unknown currency/);
    expect(() => Money.zero('ZZZ')).toThrow(/Unknown currency/);
    expect(() => Money.of('1', 'USD').plus(Money.of('1', 'EUR'))).toThrow(/Cannot combine/);
    // Subtracted or compared, too: 100 JPY is not more than 1 USD, nor 1 USD less 100 JPY anything.
    expect(() => Money.of('1', 'USD').minus(Money.of('1', 'EUR'))).toThrow(/Cannot combine USD and EUR/);
    for (const compare of [
      () => Money.of('100', 'JPY').compare(Money.of('1', 'USD')),
      () => Money.of('100', 'JPY').greaterThan(Money.of('1', 'USD')),
      () => Money.of('1', 'USD').lessThan(Money.of('100', 'JPY')),
    ]) {
      expect(compare).toThrow(/Cannot combine/);
    }
  });

  it('never equals the same amount in another currency', () => {
    expect(Money.of('1.00', 'USD').equals(Money.of('1', 'USD'))).toBe(true);
    expect(Money.of('1.00', 'USD').equals(Money.of('1.00', 'EUR'))).toBe(false);
  });

  it('rejects text that is not a decimal', () => {
    for (const bad of ['', '1e3', '0x10', '1,5', ' 1', '1.2.3', 'NaN', 'Infinity', '+1.00']) {
      expect(() => Money.of(bad, 'USD')).toThrow(MoneyError);
    }
  });

  it('renders amounts as JSON numbers equal to their decimal text', () => {
    expect(decimalToJsonNumber('1000000000000')).toBe(1000000000000);
    expect(JSON.stringify(decimalToJsonNumber('999999999999.999'))).toBe('999999999999.999');
    expect(JSON.stringify(decimalToJsonNumber('10.50'))).toBe('10.5');
    expect(() => decimalToJsonNumber('1234567890123.4567')).toThrow(MoneyError);
    // 16 significant digits: a double would print 9007199254740992.
    expect(() => decimalToJsonNumber('9007199254740993')).toThrow(MoneyError);
  });

  it('reads zero, whatever its sign, as neither negative nor positive', () => {
    for (const zero of [Money.zero('USD'), Money.of('-0.00', 'USD'), Money.of('0', 'USD')]) {
      expect([zero.isNegative(), zero.isPositive(), zero.isZero()]).toEqual([false, false, true]);
    }
    expect([Money.of('-0.01', 'USD').isNegative(), Money.of('0.01', 'USD').isPositive()]).toEqual([true, true]);
  });

  it('multiplies by a quantity of up to 16 digits exactly, never through a JS number', () => {
    expect(Money.of('0.01', 'USD').times('9007199254740993').toString()).toBe('90071992547409.93');
    expect(Money.of('1.50', 'USD').times(3n).toFixed()).toBe('4.50');
  });

  it('renders a quantity as a JSON number while exact, else as its digits without leading zeros', () => {
    expect(quantityToJson('01')).toBe(1);
    expect(quantityToJson('9007199254740991')).toBe(9007199254740991);
    expect(quantityToJson('9999999999999999')).toBe('9999999999999999');
    expect(quantityToJson('0009999999999999999')).toBe('9999999999999999');
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

  it('renders an amount as decimalToJsonNumber renders its text, also after arithmetic, or refuses it alike (property)', () => {
    // toJSON checks the amount itself instead of parsing its text back: the same number, or the same error.
    const asText = (money: Money) => {
      try {
        return decimalToJsonNumber(money.amount.toFixed());
      } catch (err) {
        return (err as Error).message;
      }
    };
    const asJson = (money: Money) => {
      try {
        return money.toJSON();
      } catch (err) {
        return (err as Error).message;
      }
    };
    const amount = fc.tuple(fc.bigInt({ min: -(10n ** 17n), max: 10n ** 17n }), fc.integer({ min: 0, max: 4 })).map(([units, places]) => {
      const digits = (units < 0n ? -units : units).toString().padStart(places + 1, '0');
      const text = places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
      return `${units < 0n ? '-' : ''}${text}`;
    });
    fc.assert(
      fc.property(amount, amount, fc.constantFrom('plus', 'minus', 'times'), (a, b, op) => {
        const x = Money.of(a, 'CLF');
        const y = Money.of(b, 'CLF');
        const results = [x, y, op === 'plus' ? x.plus(y) : op === 'minus' ? x.minus(y) : x.times(BigInt(b.split('.')[0]))];
        for (const money of results) {
          expect(asJson(money)).toBe(asText(money));
        }
      }),
      { numRuns: 2_000 },
    );
    for (const text of ['-0', '0.0000', '-0.0010', '100.00', '999999999999999', '1000000000000000', '0.0001', '123456789012.3456']) {
      expect(asJson(Money.of(text, 'CLF'))).toBe(asText(Money.of(text, 'CLF')));
    }
  });

  it('gives the same zero of a currency every time, and still refuses an unknown currency', () => {
    expect(Money.zero('USD')).toBe(Money.zero('USD'));
    expect(Money.zero('USD').equals(Money.of('0.00', 'USD'))).toBe(true);
    expect(Money.zero('JPY').currency).toBe('JPY');
    expect(() => Money.zero('XYZ')).toThrow("Unknown currency 'XYZ'.");
    expect(() => Money.zero('XYZ')).toThrow("Unknown currency 'XYZ'.");
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

/** What a thrown MoneyError says, for expectations. */
function moneyError(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (err) {
    if (err instanceof MoneyError) {
      return { code: err.code, message: err.message };
    }
    throw err;
  }
  throw new Error('expected a MoneyError');
}

describe('request amounts (Money.ofRequest): only what the API can answer', () => {
  it('accepts exactly MAX_AMOUNT, 1000000000000, and its negative', () => {
    expect(MAX_AMOUNT).toBe('1000000000000');
    expect(Money.ofRequest('1000000000000', 'USD').toString()).toBe('1000000000000');
    expect(Money.ofRequest('1000000000000.00', 'USD').toString()).toBe('1000000000000');
    expect(Money.ofRequest('-1000000000000', 'USD').toString()).toBe('-1000000000000');
  });

  it.each(['1000000000000.01', '10000000000000', '99999999999999', '-1000000000000.01'])('refuses %s as OUT_OF_RANGE', (amount) => {
    expect(moneyError(() => Money.ofRequest(amount, 'USD'))).toEqual({
      code: 'OUT_OF_RANGE',
      message: amount.startsWith('-') ? 'Amounts are at least -1000000000000.' : 'Amounts are at most 1000000000000.',
    });
  });

  it('takes a field\'s own larger range when given one (agreement amounts)', () => {
    expect(Money.ofRequest('99999999999999', 'USD', MAX_AGREEMENT_AMOUNT).toString()).toBe('99999999999999');
    expect(moneyError(() => Money.ofRequest('100000000000000', 'USD', MAX_AGREEMENT_AMOUNT)).code).toBe('OUT_OF_RANGE');
  });

  it('still refuses what Money.of refuses', () => {
    expect(moneyError(() => Money.ofRequest('1.005', 'USD')).code).toBe('TOO_MANY_DECIMALS');
    expect(moneyError(() => Money.ofRequest('1', 'ZZZ')).code).toBe('UNKNOWN_CURRENCY');
    expect(moneyError(() => Money.ofRequest('1e3', 'USD')).code).toBe('NOT_A_DECIMAL');
  });

  it.each(['CLF', 'UYW'])('limits %s (ISO 4217 exponent 4) to the 3 decimal places a response carries', (currency) => {
    expect(minorUnits(currency)).toBe(4);
    expect(amountDecimalPlaces(currency)).toBe(3);
    expect(Money.ofRequest('1.234', currency).toJSON()).toBe(1.234);
    expect(Money.ofRequest('1.2340', currency).toJSON()).toBe(1.234);
    expect(moneyError(() => Money.ofRequest('1.2345', currency))).toEqual({
      code: 'TOO_MANY_DECIMALS',
      message: `${currency} amounts have at most 3 decimal places: ISO 4217 gives ${currency} 4, but the gateway answers amounts with at most 3.`,
    });
    // Money.of keeps the ISO 4217 exponent: amounts already stored with 4 places stay readable.
    expect(Money.of('1.2345', currency).toString()).toBe('1.2345');
  });

  it('leaves every other currency at its ISO 4217 minor units', () => {
    expect(amountDecimalPlaces('JPY')).toBe(0);
    expect(amountDecimalPlaces('USD')).toBe(2);
    expect(amountDecimalPlaces('BHD')).toBe(3);
    expect(amountDecimalPlaces('ZZZ')).toBeUndefined();
  });

  it('knows every ISO 4217 currency without two minor units (a wrong exponent misreads an amount tenfold)', () => {
    for (const code of ['BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'UYI', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']) {
      expect([code, minorUnits(code)]).toEqual([code, 0]);
    }
    for (const code of ['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']) {
      expect([code, minorUnits(code)]).toEqual([code, 3]);
    }
    for (const code of ['CLF', 'UYW']) {
      expect([code, minorUnits(code)]).toEqual([code, 4]);
    }
  });

  it('bounds exactly, never through a JS number (property around the bound)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n * 10n ** 15n }), (milli) => {
        const text = `${milli / 1000n}.${String(milli % 1000n).padStart(3, '0')}`;
        const within = milli <= 10n ** 15n;
        expect(withinMaxAmount(Money.of(text, 'BHD').amount)).toBe(within);
        expect(withinMaxAmount(Money.of(`-${text}`, 'BHD').amount)).toBe(within);
      }),
    );
    expect(withinMaxAmount(Money.of('1000000000000.001', 'BHD').amount)).toBe(false);
  });
});
