import { ROTATE_KEYS_USAGE, ROTATE_KEYS_USAGE_ERROR, rotateKeysLine } from './rotate-keys.command';

/** rotate-keys' command line, answered before the configuration is read or the database opened. */
describe('rotate-keys command line', () => {
  function line(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const result = rotateKeysLine(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
    return { result, out: out.join('\n'), err: err.join('\n') };
  }

  it('reads its options', () => {
    expect(line().result).toEqual({ rewrapOnly: false, resume: false, destroyRetired: false });
    expect(line('--rewrap-only').result).toEqual({ rewrapOnly: true, resume: false, destroyRetired: false });
    expect(line('--resume', '--destroy-retired').result).toEqual({
      rewrapOnly: false,
      resume: true,
      destroyRetired: true,
    });
  });

  it.each([['--resume'], ['--destroy-retired']])(
    'refuses --rewrap-only with %s, which it would not do',
    (option) => {
      expect(line('--rewrap-only', option)).toEqual({
        result: ROTATE_KEYS_USAGE_ERROR,
        out: '',
        err: expect.stringContaining(`--rewrap-only does not take ${option}`),
      });
    },
  );

  it('refuses an unknown option or an argument as a usage error, not exit code 2 (tokens remain)', () => {
    expect(line('--rewrap-only', '--batch-size', '10')).toMatchObject({
      result: ROTATE_KEYS_USAGE_ERROR,
      err: expect.stringContaining("Unknown option '--batch-size'"),
    });
    expect(line('--dry-run')).toMatchObject({
      result: ROTATE_KEYS_USAGE_ERROR,
      err: expect.stringContaining('--dry-run'),
    });
    expect(line('k2')).toMatchObject({
      result: ROTATE_KEYS_USAGE_ERROR,
      err: expect.stringContaining("'k2'"),
    });
    expect(ROTATE_KEYS_USAGE_ERROR).not.toBe(2);
  });

  it('prints its usage for --help', () => {
    expect(line('--help')).toEqual({ result: 0, out: ROTATE_KEYS_USAGE, err: '' });
  });
});
