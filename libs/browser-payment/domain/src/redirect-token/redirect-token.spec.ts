import { isRedirectToken, newRedirectToken, redirectTokenHash } from './redirect-token';

describe('redirect tokens', () => {
  it('are BP- and 32 hex digits, and never repeat', () => {
    const tokens = Array.from({ length: 2_000 }, newRedirectToken);
    expect(tokens.every((t) => /^BP-[0-9a-f]{32}$/.test(t))).toBe(true);
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it('carry 128 random bits: every hex digit position takes many values', () => {
    const tokens = Array.from({ length: 500 }, newRedirectToken);
    for (let i = 3; i < 35; i++) {
      expect(new Set(tokens.map((t) => t[i])).size).toBeGreaterThan(8);
    }
  });

  it('are recognised only in their exact form', () => {
    const token = newRedirectToken();
    expect(isRedirectToken(token)).toBe(true);
    for (const bad of [token.toUpperCase(), token.slice(0, -1), `${token}0`, token.replace('BP-', 'BX-'), `${token.slice(0, -1)}g`, '']) {
      expect(isRedirectToken(bad)).toBe(false);
    }
  });

  it('are stored as a 32-byte SHA-256 that differs for a token one digit away', () => {
    const token = 'BP-00000000000000000000000000000000';
    expect(redirectTokenHash(token)).toHaveLength(32);
    expect(redirectTokenHash(token).equals(redirectTokenHash(token))).toBe(true);
    expect(redirectTokenHash(token).equals(redirectTokenHash('BP-00000000000000000000000000000001'))).toBe(false);
  });
});
