import type { VaultKeys } from '@gateway/crypto';
import { AppLogger, ConfigError, ReadinessChecks } from '@gateway/platform';
import type { TokenRecord } from '@gateway/token-vault/data-access';
import type { TokenSealing, TokenStore } from '@gateway/token-vault/domain';
import { VaultKeysLifecycle } from './vault-keys.lifecycle';

/** The lifecycle over a vault holding one token whose fingerprint is `stored`; `openInstrument` as given. */
function lifecycleOver(stored: Buffer, openInstrument: () => Promise<unknown>, computed = Buffer.from('fingerprint')) {
  const keys = { start: jest.fn(async () => undefined), stop: jest.fn(), ready: true, activeKeyId: 1, describe: () => [] } as unknown as VaultKeys;
  const token = { id: 'token-1', repositoryId: 'repo-1', fingerprint: stored } as unknown as TokenRecord;
  const tokens = { anyToken: async () => token } as unknown as TokenStore;
  const sealing = { openInstrument, fingerprint: () => computed } as unknown as TokenSealing;
  const checks = new ReadinessChecks();
  const logger = { info: jest.fn(), warn: jest.fn() } as unknown as AppLogger;
  return { lifecycle: new VaultKeysLifecycle(keys, tokens, sealing, checks, logger), keys, checks };
}

describe('VaultKeysLifecycle: the fingerprint key checked at start', () => {
  it('refuses to start under another fingerprint key than the stored tokens were fingerprinted with, and stops the key refresh', async () => {
    const { lifecycle, keys, checks } = lifecycleOver(Buffer.from('another'), async () => ({}));
    await expect(lifecycle.onModuleInit()).rejects.toThrow(ConfigError);
    expect(keys.stop).toHaveBeenCalledTimes(1);
    expect(checks.entries()).toEqual([]);
  });

  it('starts when the token read for the check cannot be opened: one unreadable token keeps no other from being served', async () => {
    const { lifecycle, keys, checks } = lifecycleOver(Buffer.from('another'), async () => Promise.reject(new Error('unknown data key')));
    await lifecycle.onModuleInit();
    expect(keys.stop).not.toHaveBeenCalled();
    expect(checks.entries().map(([name]) => name)).toEqual(['vault-keys']);
  });
});
