import { inspect } from 'node:util';
import { scrub } from '@gateway/platform';
import { TEST_CARD } from '@gateway/testing';
import { maskPan, Pan } from './pan';
import { SecurityCode } from './security-code';

describe('Pan', () => {
  const pan = Pan.of(TEST_CARD);

  it('masks 6.4 and shows only the mask in JSON, strings, inspect and scrubbed logs', () => {
    expect(pan.masked).toBe('512345xxxxxx0008');
    expect(JSON.stringify({ number: pan })).toBe('{"number":"512345xxxxxx0008"}');
    expect(`${pan}`).toBe('512345xxxxxx0008');
    expect(inspect({ pan })).not.toContain(TEST_CARD);
    expect(JSON.stringify(scrub({ card: { pan } }))).not.toContain(TEST_CARD);
    expect(JSON.stringify({ ...pan })).not.toContain(TEST_CARD);
  });

  it('reveals the digits only when asked, and exposes BIN and last four', () => {
    expect(pan.reveal()).toBe(TEST_CARD);
    expect(pan.bin).toBe('512345');
    expect(pan.lastFour).toBe('0008');
    expect(pan.prefix(8)).toBe('51234500');
    expect(pan.equals(Pan.of(TEST_CARD))).toBe(true);
  });

  it('rejects anything but 9 to 19 digits without echoing the value', () => {
    for (const bad of ['12345678', '1'.repeat(20), `${TEST_CARD} `, '5123-4500-0000-0008']) {
      expect(() => Pan.of(bad)).toThrow(TypeError);
      try {
        Pan.of(bad);
      } catch (err) {
        expect((err as Error).message).not.toContain(bad);
      }
    }
  });

  it('keeps at least three digits hidden in short numbers', () => {
    expect(maskPan('5123450000008')).toBe('512345xxx0008');
    expect(maskPan('512345000')).toBe('51xxx5000');
    expect(maskPan('5123450000000000008')).toBe('512345xxxxxxxxx0008');
  });
});

describe('SecurityCode', () => {
  it('never prints its digits', () => {
    const code = SecurityCode.of('1020');
    expect(JSON.stringify({ code })).toBe('{"code":"[REDACTED]"}');
    expect(inspect(code)).not.toContain('1020');
    expect(`${code}`).not.toContain('1020');
    expect(code.reveal()).toBe('1020');
    expect(() => SecurityCode.of('12')).toThrow(TypeError);
  });
});
