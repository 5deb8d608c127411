import { generateApiPassword, hashApiPassword, verifyApiPassword } from './api-password';

const pepper = 'a-pepper-of-at-least-thirty-two-characters';

describe('API password hashing', () => {
  it('verifies the password it hashed and nothing else', () => {
    const password = generateApiPassword();
    const stored = hashApiPassword(password, pepper);
    expect(verifyApiPassword(password, stored, pepper)).toBe(true);
    expect(verifyApiPassword(`${password}x`, stored, pepper)).toBe(false);
    expect(verifyApiPassword(password.toUpperCase(), stored, pepper)).toBe(false);
  });

  it('depends on the pepper, so a database dump alone cannot test guesses', () => {
    const password = generateApiPassword();
    const stored = hashApiPassword(password, pepper);
    expect(verifyApiPassword(password, stored, `${pepper}-other`)).toBe(false);
  });

  it('salts each hash and never stores the password', () => {
    const password = generateApiPassword();
    const a = hashApiPassword(password, pepper);
    const b = hashApiPassword(password, pepper);
    expect(a).not.toEqual(b);
    // The salt is keyed into the hash itself: equal passwords do not show as equal hashes.
    expect(a.split('$')[2]).not.toEqual(b.split('$')[2]);
    expect(a).not.toContain(password);
  });

  it('rejects malformed stored values', () => {
    expect(verifyApiPassword('x', '', pepper)).toBe(false);
    expect(verifyApiPassword('x', 'h1$$', pepper)).toBe(false);
    expect(verifyApiPassword('x', 'h0$abc$def', pepper)).toBe(false);
    // A hash of another length, and a right hash under another version tag.
    expect(verifyApiPassword('x', 'h1$abc$def', pepper)).toBe(false);
    expect(verifyApiPassword('x', hashApiPassword('x', pepper).replace(/^h1\$/, 'h0$'), pepper)).toBe(false);
  });

  it('generates 128-bit hex passwords', () => {
    expect(generateApiPassword()).toMatch(/^[0-9a-f]{32}$/);
    expect(generateApiPassword()).not.toEqual(generateApiPassword());
  });
});
