import fc from 'fast-check';
import { luhnCheckDigit, passesLuhn } from './luhn';

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
