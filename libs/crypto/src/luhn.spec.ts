import fc from 'fast-check';
import { isCardNumber, luhnCheckDigit, mayHoldCardNumber, passesLuhn } from './luhn';

describe('Luhn', () => {
  it('accepts the test card and rejects its broken twin', () => {
    expect(passesLuhn('5123450000000008')).toBe(true);
    expect(passesLuhn('5123450000000009')).toBe(false);
    expect(passesLuhn('')).toBe(false);
    expect(passesLuhn('51234500000000a8')).toBe(false);
  });

  it('computes the check digit that makes any payload pass', () => {
    expect(luhnCheckDigit('512345000000000')).toBe('8');
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{1,18}$/), (payload) => {
        expect(passesLuhn(payload + luhnCheckDigit(payload))).toBe(true);
      }),
    );
  });

  it('catches every single-digit error', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{12,18}$/), fc.nat(), fc.integer({ min: 1, max: 9 }), (payload, at, delta) => {
        const valid = payload + luhnCheckDigit(payload);
        const i = at % valid.length;
        const changed = valid.slice(0, i) + String((Number(valid[i]) + delta) % 10) + valid.slice(i + 1);
        expect(passesLuhn(changed)).toBe(false);
      }),
    );
  });
});

describe('isCardNumber (the card number field\'s rule)', () => {
  it('takes 9 to 19 digits whose last is the Luhn check digit, and nothing else', () => {
    expect(isCardNumber('5123450000000008')).toBe(true);
    expect(isCardNumber('5123450000000009')).toBe(false);
    const nine = `12345678${luhnCheckDigit('12345678')}`;
    expect(isCardNumber(nine)).toBe(true);
    expect(isCardNumber(nine.slice(1))).toBe(false);
    const nineteen = `512345000000000000${luhnCheckDigit('512345000000000000')}`;
    expect(isCardNumber(nineteen)).toBe(true);
    expect(isCardNumber(`${nineteen}0`)).toBe(false);
    expect(isCardNumber('5123 4500 0000 0008')).toBe(false);
    expect(isCardNumber('')).toBe(false);
  });
});

describe('mayHoldCardNumber', () => {
  it('finds a card number alone, inside a longer run, or followed by its expiry', () => {
    expect(mayHoldCardNumber('5123450000000008')).toBe(true);
    expect(mayHoldCardNumber('05123450000000008')).toBe(true);
    expect(mayHoldCardNumber('41111111111111111231')).toBe(true);
  });

  it('leaves a run of zeros, and numbers failing every stretch, readable', () => {
    // An amount past the API's maximum: its only Luhn-passing stretch is thirteen zeros.
    expect(mayHoldCardNumber('10000000000000')).toBe(false);
    expect(mayHoldCardNumber('0000000000000')).toBe(false);
    expect(mayHoldCardNumber('1111111111111111111')).toBe(false);
  });

  it('takes any run longer than 19 digits without looking at its stretches', () => {
    // No stretch of these passes Luhn (a 1 then zeros; a stretch from a 0 is skipped), so only
    // the length rule masks them. Checking every stretch instead would cost a Luhn check per
    // stretch, their number growing with the square of the run's length, on every log line.
    expect(mayHoldCardNumber(`1${'0'.repeat(19)}`)).toBe(true);
    expect(mayHoldCardNumber(`1${'0'.repeat(1_000)}`)).toBe(true);
  });
});
