import { mkdir } from 'node:fs/promises';
import { StartupError } from '../bootstrap/startup-error';
import { loadStandaloneSecrets } from './standalone-state';
import type { StandaloneConfig } from './standalone.config';

// The file system's refusals, stubbed: root (as tests may run) is refused no folder.
jest.mock('node:fs/promises', () => ({ ...jest.requireActual('node:fs/promises'), mkdir: jest.fn() }));

describe('loadStandaloneSecrets', () => {
  const config = { STANDALONE_DATA_DIR: '/srv/gateway-data' } as StandaloneConfig;
  const failing = (code: string) => Object.assign(new Error(`${code}: refused, mkdir '/srv/gateway-data'`), { code });

  it.each(['EACCES', 'EPERM', 'EROFS'])('refuses a data folder this user cannot write (%s) in one line saying what to do', async (code) => {
    jest.mocked(mkdir).mockRejectedValueOnce(failing(code));
    const refused = loadStandaloneSecrets(config);
    await expect(refused).rejects.toBeInstanceOf(StartupError);
    await expect(refused).rejects.toThrow(
      /^The standalone data folder \/srv\/gateway-data cannot be used by this user .*set STANDALONE_DATA_DIR to a folder it can write\.$/,
    );
  });

  it('lets any other failure through as it is', async () => {
    const full = failing('ENOSPC');
    jest.mocked(mkdir).mockRejectedValueOnce(full);
    await expect(loadStandaloneSecrets(config)).rejects.toBe(full);
  });
});
