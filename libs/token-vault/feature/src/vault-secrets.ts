import { readFileSync } from 'node:fs';
import { Fingerprinter, MasterKeyRing, Secret, decodeKeyMaterial } from '@gateway/crypto';
import { ConfigError, ConfigProblem } from '@gateway/platform';
import { TestP2peScheme, testBdkFromHex } from '@gateway/token-vault/domain';
import { TokenVaultConfig } from './token-vault.config';

export interface VaultSecrets {
  masterKeys: MasterKeyRing;
  fingerprinter: Fingerprinter;
  p2pe: TestP2peScheme;
}

/**
 * The vault's key material, from the environment or from mounted secret files. Read at start:
 * a missing or malformed key stops the service with exit code 78, naming the variable and
 * never its value.
 */
export function loadVaultSecrets(config: TokenVaultConfig): VaultSecrets {
  const problems: ConfigProblem[] = [];
  const masterKeys = parse(problems, 'VAULT_MASTER_KEYS', () =>
    MasterKeyRing.parse(secretText(config.VAULT_MASTER_KEYS, config.VAULT_MASTER_KEYS_FILE, 'VAULT_MASTER_KEYS')),
  );
  const fingerprintKey = parse(problems, 'VAULT_FINGERPRINT_KEY', () =>
    decodeKeyMaterial(secretText(config.VAULT_FINGERPRINT_KEY, config.VAULT_FINGERPRINT_KEY_FILE, 'VAULT_FINGERPRINT_KEY'), 'VAULT_FINGERPRINT_KEY'),
  );
  const fingerprinter = fingerprintKey && parse(problems, 'VAULT_FINGERPRINT_KEY', () => new Fingerprinter(new Secret(fingerprintKey)));
  if (masterKeys && fingerprintKey) {
    checkSeparateKeys(problems, masterKeys, fingerprintKey);
  }
  const p2pe = parse(problems, 'VAULT_P2PE_TEST_BDK', () => new TestP2peScheme(testBdkFromHex(config.VAULT_P2PE_TEST_BDK)));
  if (problems.length > 0) {
    throw new ConfigError(problems);
  }
  return { masterKeys: masterKeys!, fingerprinter: fingerprinter!, p2pe: p2pe! };
}

/**
 * The fingerprint key must not be the current master key: one leaked key would then both unwrap
 * the data keys and let a database dump's fingerprints be tested against guessed card numbers.
 * Compared as key material, so two spellings of one key (base64 and base64url, an env variable
 * and a file) are caught too. A retired master key equal to it is let through: the fingerprint key
 * cannot change on a vault holding tokens, so a vault that started with the two equal gets out by
 * rotating the master key (a new current key, the old one kept retired until every data key is
 * re-wrapped, then dropped), which a refusal of retired keys would forbid. The problem names the
 * master key's id, never material.
 */
function checkSeparateKeys(problems: ConfigProblem[], masterKeys: MasterKeyRing, fingerprintKey: Buffer): void {
  const shared = masterKeys.idOfKey(fingerprintKey);
  if (shared !== undefined && shared === masterKeys.currentId) {
    problems.push({
      variable: 'VAULT_FINGERPRINT_KEY',
      problem: `is the same key as the current master key '${shared}' of VAULT_MASTER_KEYS; the fingerprint key and the master keys must be separate keys (rotate the master key to a new one)`,
    });
  }
}

function secretText(value: string, file: string, variable: string): string {
  if (value && file) {
    throw new Error(`set ${variable} or ${variable}_FILE, not both`);
  }
  if (file) {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      throw new Error(`${variable}_FILE cannot be read`);
    }
  }
  if (!value) {
    throw new Error(`is required (or ${variable}_FILE)`);
  }
  return value;
}

function parse<T>(problems: ConfigProblem[], variable: string, read: () => T): T | undefined {
  try {
    return read();
  } catch (err) {
    problems.push({ variable, problem: (err as Error).message });
    return undefined;
  }
}
