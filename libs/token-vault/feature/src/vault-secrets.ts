import { readFileSync } from 'node:fs';
import { Fingerprinter, MasterKeyRing } from '@gateway/crypto';
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
  const fingerprinter = parse(problems, 'VAULT_FINGERPRINT_KEY', () =>
    Fingerprinter.fromConfig(secretText(config.VAULT_FINGERPRINT_KEY, config.VAULT_FINGERPRINT_KEY_FILE, 'VAULT_FINGERPRINT_KEY')),
  );
  const p2pe = parse(problems, 'VAULT_P2PE_TEST_BDK', () => new TestP2peScheme(testBdkFromHex(config.VAULT_P2PE_TEST_BDK)));
  if (problems.length > 0) {
    throw new ConfigError(problems);
  }
  return { masterKeys: masterKeys!, fingerprinter: fingerprinter!, p2pe: p2pe! };
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
