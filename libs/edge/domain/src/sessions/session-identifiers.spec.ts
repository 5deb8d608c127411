import { checkSessionId, newSessionId, newSessionVersion } from './session-identifiers';

describe('session identifiers', () => {
  it('accept a path session id of 31 to 35 printable ASCII characters (spec session.id: ASCII(31-35)), and nothing else', () => {
    expect(checkSessionId(newSessionId())).toHaveLength(32);
    expect(checkSessionId('S'.repeat(31))).toBe('S'.repeat(31));
    expect(checkSessionId('S'.repeat(35))).toBe('S'.repeat(35));
    for (const bad of [
      'S'.repeat(30),
      'S'.repeat(36),
      `SESSION0002 ${'A'.repeat(20)}`,
      `SESSION0002\u00e9${'A'.repeat(20)}`,
    ]) {
      expect(() => checkSessionId(bad)).toThrow(
        expect.objectContaining({ code: 'INVALID_FIELD', field: 'sessionid', validationType: 'INVALID' }),
      );
    }
  });

  it('make a 10-character version that is never the one before it', () => {
    const version = newSessionVersion();
    expect(version).toMatch(/^[0-9a-f]{10}$/);
    expect(newSessionVersion(version)).not.toBe(version);
  });
});
