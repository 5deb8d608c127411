import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, describeConfig, loadConfig } from '@gateway/platform';
import { TokenVaultConfig } from './token-vault.config';
import { loadVaultSecrets } from './vault-secrets';

const master = randomBytes(32).toString('base64');
const fingerprint = randomBytes(32).toString('base64');
const base = { DATABASE_URL: 'postgres://vault@db/gateway' };

function problemsOf(env: Record<string, string>): string {
  try {
    loadVaultSecrets(loadConfig(TokenVaultConfig, { ...base, ...env }));
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return JSON.stringify((err as ConfigError).problems);
  }
  throw new Error('expected a configuration error');
}

describe('vault configuration', () => {
  it('reads the keys from the environment', () => {
    const secrets = loadVaultSecrets(loadConfig(TokenVaultConfig, { ...base, VAULT_MASTER_KEYS: `m1:${master}`, VAULT_FINGERPRINT_KEY: fingerprint }));
    expect(secrets.masterKeys.currentId).toBe('m1');
  });

  it('reads the keys from mounted secret files', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vault-secrets-'));
    writeFileSync(path.join(dir, 'master'), `m2:${master}\nm1:${randomBytes(32).toString('base64')}\n`);
    writeFileSync(path.join(dir, 'fingerprint'), `${fingerprint}\n`);
    const secrets = loadVaultSecrets(
      loadConfig(TokenVaultConfig, { ...base, VAULT_MASTER_KEYS_FILE: path.join(dir, 'master'), VAULT_FINGERPRINT_KEY_FILE: path.join(dir, 'fingerprint') }),
    );
    expect(secrets.masterKeys.currentId).toBe('m2');
    expect(secrets.masterKeys.has('m1')).toBe(true);
  });

  it('refuses to start without keys, naming the variables and never a value', () => {
    expect(problemsOf({})).toContain('VAULT_MASTER_KEYS');
    expect(problemsOf({})).toContain('VAULT_FINGERPRINT_KEY');
    const bad = problemsOf({ VAULT_MASTER_KEYS: `m1:${master.slice(0, 20)}`, VAULT_FINGERPRINT_KEY: fingerprint.slice(0, 30) });
    expect(bad).not.toContain(master.slice(0, 20));
    expect(bad).not.toContain(fingerprint.slice(0, 30));
    expect(problemsOf({ VAULT_MASTER_KEYS: `m1:${master}`, VAULT_MASTER_KEYS_FILE: '/x', VAULT_FINGERPRINT_KEY: fingerprint })).toContain('not both');
    expect(problemsOf({ VAULT_MASTER_KEYS: `m1:${master}`, VAULT_FINGERPRINT_KEY: fingerprint, VAULT_P2PE_TEST_BDK: 'zz' })).toContain('VAULT_P2PE_TEST_BDK');
  });

  it('refuses a fingerprint key that is the current master key, naming both variables and no key material', () => {
    const retired = randomBytes(32).toString('base64');
    const urlSafe = master.replace(/\+/g, '-').replace(/\//g, '_');
    for (const fingerprintKey of [master, urlSafe]) {
      const problems = problemsOf({ VAULT_MASTER_KEYS: `m2:${master},m1:${retired}`, VAULT_FINGERPRINT_KEY: fingerprintKey });
      expect(problems).toContain('VAULT_FINGERPRINT_KEY');
      expect(problems).toContain('VAULT_MASTER_KEYS');
      expect(problems).toContain("current master key 'm2'");
      expect(problems).not.toContain(master);
      expect(problems).not.toContain(urlSafe);
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'vault-secrets-'));
    writeFileSync(path.join(dir, 'fingerprint'), `${master}\n`);
    expect(problemsOf({ VAULT_MASTER_KEYS: `m1:${master}`, VAULT_FINGERPRINT_KEY_FILE: path.join(dir, 'fingerprint') })).toContain('separate keys');
  });

  it('lets a vault whose fingerprint key was its master key rotate out: the old key kept retired beside a new current one', () => {
    const secrets = loadVaultSecrets(
      loadConfig(TokenVaultConfig, { ...base, VAULT_MASTER_KEYS: `m2:${randomBytes(32).toString('base64')},m1:${master}`, VAULT_FINGERPRINT_KEY: master }),
    );
    expect(secrets.masterKeys.currentId).toBe('m2');
  });

  it('shows key variables only as set or unset in configuration dumps', () => {
    const config = loadConfig(TokenVaultConfig, { ...base, VAULT_MASTER_KEYS: `m1:${master}`, VAULT_FINGERPRINT_KEY: fingerprint });
    const dump = JSON.stringify(describeConfig(TokenVaultConfig, config));
    expect(dump).not.toContain(master);
    expect(dump).not.toContain(fingerprint);
    expect(describeConfig(TokenVaultConfig, config)).toMatchObject({ VAULT_MASTER_KEYS: '<set>', VAULT_FINGERPRINT_KEY: '<set>', VAULT_P2PE_TEST_BDK: '<set>' });
  });
});
