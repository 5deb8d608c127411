import { ApiPasswordPeppers, generateApiPassword, hashApiPassword } from './api-password';

/** A stored `h1$` hash checked under the legacy pepper `pepper`: constant-time in the password; false for any malformed hash. */
const verifyApiPassword = (password: string, stored: string, pepper: string) => ApiPasswordPeppers.single(pepper).verify(password, stored);

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

describe('ApiPasswordPeppers (pepper rotation)', () => {
  const old = 'the-old-pepper-of-at-least-32-characters';
  const p1 = `p1:${old}`;
  const p2 = 'p2:the-new-pepper-of-at-least-32-characters';

  it('alone, the legacy pepper hashes as before (h1, no pepper named), so existing deployments see no change', () => {
    const peppers = ApiPasswordPeppers.single(pepper);
    const stored = peppers.hash('secret');
    expect(stored).toMatch(/^h1\$[^$]+\$[^$]+$/);
    expect(verifyApiPassword('secret', stored, pepper)).toBe(true);
    expect(peppers.check('secret', hashApiPassword('secret', pepper))).toEqual({ matches: true, rehash: false });
  });

  it('names the current pepper in new hashes and verifies each hash under the pepper it names', () => {
    const before = ApiPasswordPeppers.fromConfig({ API_PASSWORD_PEPPERS: p1 });
    const during = ApiPasswordPeppers.fromConfig({ API_PASSWORD_PEPPERS: `${p2},${p1}` });
    const after = ApiPasswordPeppers.fromConfig({ API_PASSWORD_PEPPERS: p2 });
    const underP1 = before.hash('secret');
    expect(underP1).toMatch(/^h2\$p1\$[^$]+\$[^$]+$/);
    expect(before.check('secret', underP1)).toEqual({ matches: true, rehash: false });
    // Under p2's rotation: still good, and to be re-hashed; a wrong password never is.
    expect(during.check('secret', underP1)).toEqual({ matches: true, rehash: true });
    expect(during.check('wrong', underP1)).toEqual({ matches: false, rehash: false });
    const underP2 = during.hash('secret');
    expect(underP2).toMatch(/^h2\$p2\$/);
    expect(after.check('secret', underP2)).toEqual({ matches: true, rehash: false });
    // Once p1 is dropped, what it made no longer verifies.
    expect(after.check('secret', underP1)).toEqual({ matches: false, rehash: false });
  });

  it('reads h1 hashes as made under the legacy pepper: API_PASSWORD_PEPPER, or the list\'s `legacy` entry', () => {
    const h1 = hashApiPassword('secret', old);
    const withVariable = ApiPasswordPeppers.fromConfig({ API_PASSWORD_PEPPER: old, API_PASSWORD_PEPPERS: p2 });
    const withEntry = ApiPasswordPeppers.fromConfig({ API_PASSWORD_PEPPERS: `${p2},legacy:${old}` });
    for (const peppers of [withVariable, withEntry]) {
      expect(peppers.currentId).toBe('p2');
      expect(peppers.check('secret', h1)).toEqual({ matches: true, rehash: true });
    }
    // Staged: every replica learns p2 while the legacy pepper still hashes (as h1).
    const staged = ApiPasswordPeppers.fromConfig({ API_PASSWORD_PEPPERS: `legacy:${old},${p2}` });
    expect(staged.hash('secret')).toMatch(/^h1\$/);
    expect(staged.check('secret', h1)).toEqual({ matches: true, rehash: false });
    expect(ApiPasswordPeppers.fromConfig({ API_PASSWORD_PEPPERS: p2 }).check('secret', h1).matches).toBe(false);
  });

  it('never takes a hash naming a pepper under another one, nor a malformed one', () => {
    const peppers = ApiPasswordPeppers.fromConfig({ API_PASSWORD_PEPPERS: `${p2},${p1}` });
    const underP1 = peppers.hash('secret').replace(/^h2\$p2\$/, 'h2$p1$');
    expect(peppers.verify('secret', underP1)).toBe(false);
    // A pepper no longer configured: not checked under the current pepper instead, even with its MAC.
    const underDropped = peppers.hash('secret').replace(/^h2\$p2\$/, 'h2$p9$');
    expect(peppers.check('secret', underDropped)).toEqual({ matches: false, rehash: false });
    for (const stored of ['', 'h2$p1$$', 'h2$$abc$def', 'h2$legacy$abc$def', 'h2$p1$abc', 'h1$abc$def$ghi', 'h3$p1$abc$def']) {
      expect(peppers.check('secret', stored)).toEqual({ matches: false, rehash: false });
    }
    expect(ApiPasswordPeppers.pepperIdOf(underP1)).toBe('p1');
    expect(ApiPasswordPeppers.pepperIdOf(hashApiPassword('x', old))).toBe('legacy');
    expect(ApiPasswordPeppers.pepperIdOf('nonsense')).toBeNull();
  });

  it.each([
    [{}, 'API_PASSWORD_PEPPER or API_PASSWORD_PEPPERS is required'],
    [{ API_PASSWORD_PEPPERS: ' , ' }, 'API_PASSWORD_PEPPER or API_PASSWORD_PEPPERS is required'],
    [{ API_PASSWORD_PEPPERS: old }, 'API_PASSWORD_PEPPERS entry 1 must be <id>:<pepper>'],
    [{ API_PASSWORD_PEPPERS: `${p2},bad id:${old}` }, 'API_PASSWORD_PEPPERS entry 2 must be <id>:<pepper>'],
    [{ API_PASSWORD_PEPPERS: `${p1},${p1.replace(old, `${old}-other`)}` }, 'API_PASSWORD_PEPPERS names pepper p1 twice'],
    [{ API_PASSWORD_PEPPERS: 'p3:too-short' }, 'API_PASSWORD_PEPPERS pepper p3 must be at least 32 characters'],
    [{ API_PASSWORD_PEPPERS: `legacy:${old}`, API_PASSWORD_PEPPER: old }, 'API_PASSWORD_PEPPERS names legacy, the pepper API_PASSWORD_PEPPER also sets'],
    [{ API_PASSWORD_PEPPER: 'too-short' }, 'API_PASSWORD_PEPPER must be at least 32 characters'],
  ])('refuses %j: %s, naming no pepper', (config, message) => {
    let error: Error | undefined;
    try {
      ApiPasswordPeppers.fromConfig(config);
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).toContain(message);
    expect(error?.message).not.toContain(old);
  });
});
