import fc from 'fast-check';
import { invalidValue, safeName, safeText, showValue } from './field-problem';

describe('safeText', () => {
  it('masks a card number 6.4 and leaves the rest as sent', () => {
    expect(safeText('card 5123450000000008 please')).toBe('card 512345xxxxxx0008 please');
    expect(safeText('order 123456789012')).toBe('order 123456789012');
  });

  it('masks a card number inside a longer digit run', () => {
    expect(safeText('41111111111111110')).toBe('411111xxxxxxx1110');
    expect(safeText('041111111111111111')).toBe('041111xxxxxxxx1111');
    // A card number and its expiry, run together.
    expect(safeText('41111111111111111231')).toBe('411111xxxxxxxxxx1231');
  });

  it('masks a run longer than a card number whatever it holds, and leaves a number that holds none readable', () => {
    expect(safeText('5123450000000009')).toBe('512345xxxxxx0009');
    expect(safeText('9'.repeat(20))).toBe(`999999${'x'.repeat(10)}9999`);
    // An amount past the maximum: no stretch of 13 digits or more passes Luhn.
    expect(safeText('1000000000001.50')).toBe('1000000000001.50');
  });

  it('masks before cutting, so a card number at the cut shows no more than its first six digits', () => {
    expect(safeText(`${'a'.repeat(47)}4111111111111111`)).toBe(`${'a'.repeat(47)}411111xxxxxx1…`);
    expect(safeText(`${'a'.repeat(50)}5123450000000008`)).toBe(`${'a'.repeat(50)}512345xxxx…`);
  });

  it('still replaces control characters and cuts long text at 60 characters', () => {
    expect(safeText('a\u0000b\nc\ud800')).toBe('a?b?c?');
    expect(safeText('x'.repeat(61))).toBe(`${'x'.repeat(60)}…`);
    expect(safeText('x'.repeat(60))).toBe('x'.repeat(60));
  });

  it('never shows the middle digits of a card number, wherever it sits among other characters', () => {
    const text = fc.string({ unit: fc.constantFrom('0', '1', '4', '5', '8', ' ', 'a', '-'), maxLength: 80 });
    fc.assert(
      fc.property(
        text,
        fc.constantFrom('4111111111111111', '5123450000000008'),
        text,
        (before, card, after) => {
          // Masking keeps the length, so the card's seventh to twelfth digits sit here, unless cut off.
          const middle = safeText(`${before}${card}${after}`)
            .slice(0, 60)
            .slice(before.length + 6, before.length + 12);
          expect(middle).toMatch(/^x*$/);
        },
      ),
    );
  });
});

describe('safeName', () => {
  it('masks before cutting at 100 characters', () => {
    expect(safeName('5123450000000008')).toBe('512345xxxxxx0008');
    expect(safeName(`${'a'.repeat(90)}4111111111111111`)).toBe(`${'a'.repeat(90)}411111xxxx`);
    expect(safeName(`${'a'.repeat(87)}41111111111111110`)).toBe(`${'a'.repeat(87)}411111xxxxxxx`);
  });
});

describe('showValue', () => {
  it('masks a card number given as a JSON number', () => {
    expect(showValue(4111111111111111)).toBe('411111xxxxxx1111');
  });

  it('quotes a masked card number in an explanation', () => {
    expect(
      invalidValue('order.reference', `${'r'.repeat(47)}4111111111111111`, 'is not known').explanation,
    ).toBe(`Value '${'r'.repeat(47)}411111xxxxxx1…' is invalid. reference is not known.`);
  });
});
