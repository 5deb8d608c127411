import { createHash, randomBytes } from 'node:crypto';
import { InMemoryDataKeyStore, MasterKeyRing, VaultKeys } from '@gateway/crypto';
import { recordRunSecret } from './at-rest-scan';

/** `id:base64` master key configuration with fresh random keys. */
export function testMasterKeys(...ids: string[]): string {
  return ids.map((id) => `${id}:${randomBytes(32).toString('base64')}`).join(',');
}

/** Started VaultKeys over an in-memory store, no periodic refresh. */
export async function startTestVaultKeys(
  store = new InMemoryDataKeyStore(),
  masterKeys = MasterKeyRing.parse(testMasterKeys('test-master')),
): Promise<VaultKeys> {
  const keys = new VaultKeys(store, masterKeys, { refreshIntervalMs: 0 });
  await keys.start();
  return keys;
}

/**
 * Master and fingerprint keys every vault of one integration run shares (all its test files
 * use the run's database): derived from the run id, so nothing fixed is checked in as a key.
 */
export function runKey(label: string): string {
  const key = createHash('sha256').update(`${process.env.TEST_RUN_ID ?? 'local'}:${label}`).digest('base64');
  recordRunSecret(key);
  return key;
}
