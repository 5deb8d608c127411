import { inspect, format } from 'node:util';
import { InvalidPanError, maskPan, Pan, Secret } from './secret';

const CARD = '5123450000000008';

describe('Secret', () => {
  it('never shows its value through JSON, strings, inspect or spreads', () => {
    const secret = new Secret('hunter2-master-key');
    const shown = [
      JSON.stringify({ secret }),
      String(secret),
      `${secret}`,
      inspect(secret),
      inspect({ nested: { secret } }, { depth: 10, showHidden: true }),
      format('%s %o %O %j', secret, secret, secret, secret),
      JSON.stringify({ ...secret }),
      Object.keys(secret).join(','),
    ];
    for (const text of shown) {
      expect(text).not.toContain('hunter2');
    }
    expect(secret.reveal()).toBe('hunter2-master-key');
  });

  it('does not survive structured cloning', () => {
    const clone = structuredClone({ secret: new Secret('hunter2') });
    expect(JSON.stringify(clone)).not.toContain('hunter2');
  });
});

describe('Pan', () => {
  it('shows itself masked 6.4 everywhere', () => {
    const pan = Pan.of(CARD);
    for (const text of [JSON.stringify({ pan }), String(pan), `${pan}`, inspect(pan), format('%o', { pan })]) {
      expect(text).not.toContain(CARD);
      expect(text).toContain('512345xxxxxx0008');
    }
  });

  it('exposes only what is not sensitive on its own', () => {
    const pan = Pan.of(CARD);
    expect(pan.bin).toBe('512345');
    expect(pan.lastFour).toBe('0008');
    expect(pan.length).toBe(16);
    expect(pan.passesLuhn()).toBe(true);
    expect(Pan.of('5123450000000009').passesLuhn()).toBe(false);
  });

  it('compares by value', () => {
    expect(Pan.of(CARD).equals(Pan.of(CARD))).toBe(true);
    expect(Pan.of(CARD).equals(Pan.of('5123450000000009'))).toBe(false);
    expect(Pan.of(CARD).equals(Pan.of(CARD.slice(1)))).toBe(false);
  });

  it('refuses what is not 9 to 19 digits, without echoing it', () => {
    for (const bad of ['', '12345678', '51234500000000081234', '5123 4500 0000 0008', 'abcdefghijk']) {
      expect(() => Pan.of(bad)).toThrow(InvalidPanError);
    }
    try {
      Pan.of(`${CARD}x`);
    } catch (err) {
      expect(String(err)).not.toContain(CARD);
    }
  });
});

describe('maskPan', () => {
  // The test card cut or padded to every length class (no other card numbers in tests).
  const ofLength = (n: number) => `${CARD.slice(0, 6)}${'0'.repeat(Math.max(0, n - 10))}${CARD.slice(-4)}`.slice(-n);
  it.each([
    [ofLength(16), '512345xxxxxx0008'],
    [ofLength(19), '512345xxxxxxxxx0008'],
    [ofLength(14), '512345xxxx0008'],
    [ofLength(13), '512345xxx0008'],
    [ofLength(12), '51234xxx0008'],
    [ofLength(9), '12xxx0008'],
  ])('masks %s as %s, hiding at least three digits', (digits, masked) => {
    expect(maskPan(digits)).toBe(masked);
    expect(masked.replace(/[0-9]/g, '').length).toBeGreaterThanOrEqual(3);
  });
});
