import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { VERIFY_WIRE } from '@gateway/acquirer';
import { AcquirerCallReply, defaultMerchantSettings, MerchantContext, OperationReply, SealCardReply, SUBJECTS } from '@gateway/contracts';
import { VaultKeys } from '@gateway/crypto';
import { createServiceDataSource, loadConfig } from '@gateway/platform';
import { createDatabase, dropDatabase, keptForAtRestScan, TEST_CARD, TEST_CARD_SECOND, TEST_EXPIRY } from '@gateway/testing';
import { DataKeyRepository, TOKEN_VAULT_SCHEMA, TokenRepository } from '@gateway/token-vault/data-access';
import { TokenSealing } from '@gateway/token-vault/domain';
import { rotateVaultKeys } from './rotate-keys.command';
import { TokenVaultConfig } from './token-vault.config';
import { runKey, startVaultApp, VaultApp } from './testing/vault-app';
import { loadVaultSecrets } from './vault-secrets';

// A database of its own: rotating the master key re-wraps every data key of the schema, which
// the other vault tests of the run (sharing the run's database and its master key) must not see.
const database = `${process.env.TEST_DATABASE}_rotation`;
let url: string;
let app: VaultApp | undefined;
const OLD_MASTER = `old:${runKey('rotation-master-old')}`;
const NEW_MASTER = `new:${runKey('rotation-master-new')}`;

const merchant: MerchantContext = {
  id: 'INTROTATION',
  mode: 'TEST',
  settings: { ...defaultMerchantSettings(), tokenRepository: { ...defaultMerchantSettings().tokenRepository, generation: 'MERCHANT_SUPPLIED' } },
};
const REPOSITORY = `Test${merchant.settings.tokenRepository.id}`;
/** What each token should hold: its card number. */
const expected = new Map<string, string>();
/** A payment session's card sealed before the first rotation, under data key 1. */
let sessionCardBeforeRotation: SealCardReply;

function vaultEnv(masterKeys: string): Record<string, string> {
  return { DATABASE_URL: url, VAULT_MASTER_KEYS: masterKeys, VAULT_KEY_REFRESH_MS: '1000', VAULT_REENCRYPT_BATCH_SIZE: '7' };
}

function configWith(masterKeys: string): TokenVaultConfig {
  return loadConfig(TokenVaultConfig, { ...vaultEnv(masterKeys), VAULT_FINGERPRINT_KEY: runKey('fingerprint') });
}

async function openDataSource(): Promise<DataSource> {
  const dataSource = createServiceDataSource(TOKEN_VAULT_SCHEMA, { url, poolSize: 4, statementTimeoutMs: 30_000, applicationName: 'int-rotation' });
  return dataSource.initialize();
}

function envelope() {
  return { merchant, apiVersion: 57, requestId: `rot-${randomBytes(4).toString('hex')}`, authMethod: 'PASSWORD' };
}

async function save(token: string, number: string): Promise<void> {
  const body = { sourceOfFunds: { type: 'CARD', provided: { card: { number, expiry: TEST_EXPIRY.APPROVED } } } };
  const reply = await app!.request<OperationReply>(SUBJECTS.tokenVault.saveToken, { envelope: envelope(), tokenId: token, body });
  expect(reply.body.result).toBe('SUCCESS');
  expected.set(token, number);
}

/** Opens every token with the running vault's keys and checks it holds the expected card. */
async function expectAllReadable(vault: VaultApp): Promise<void> {
  const repository = TokenRepository.over(vault.dataSource);
  const sealing = vault.get(TokenSealing);
  for (const [token, number] of expected) {
    const record = (await repository.findByToken(REPOSITORY, token))!;
    const instrument = await sealing.openInstrument(record);
    expect(instrument.type === 'CARD' && instrument.pan.reveal()).toBe(number);
  }
}

async function keyOfEveryToken(dataSource: DataSource): Promise<number[]> {
  const rows: { data_key_id: number }[] = await dataSource.query('SELECT DISTINCT data_key_id FROM token_vault.tokens ORDER BY 1');
  return rows.map((r) => r.data_key_id);
}

beforeAll(async () => {
  url = await createDatabase(database);
  app = await startVaultApp(vaultEnv(OLD_MASTER));
}, 60_000);

afterAll(async () => {
  await app?.close();
  if (!process.env.TEST_KEEP_DATABASE && !keptForAtRestScan()) {
    await dropDatabase(database);
  }
});

describe('key rotation, against Postgres', () => {
  it('re-encrypts tokens written under the old data key while the vault keeps serving, and every token still reads', async () => {
    for (let i = 0; i < 30; i++) {
      await save(`before${i}`, i % 2 ? TEST_CARD : TEST_CARD_SECOND);
    }
    sessionCardBeforeRotation = await app!.request<SealCardReply>(SUBJECTS.tokenVault.sealCard, {
      envelope: envelope(),
      bindingId: 'SESSION-BEFORE-ROTATION',
      card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED },
    });
    expect(await keyOfEveryToken(app!.dataSource)).toEqual([1]);

    const rotation = await openDataSource();
    try {
      // Saves keep coming while the rotation runs: updates of old tokens and new tokens.
      let serving = true;
      const traffic = (async () => {
        for (let i = 0; serving; i++) {
          await save(`during${i % 10}`, TEST_CARD);
          await save(`before${i % 30}`, i % 2 ? TEST_CARD_SECOND : TEST_CARD);
        }
      })();
      const report = await rotateVaultKeys(rotation, configWith(OLD_MASTER), {});
      serving = false;
      await traffic;

      expect(report).toMatchObject({ newDataKey: 2, activeDataKey: 2, remaining: 0, rewrapped: [] });
      expect(report.reencrypted).toBeGreaterThanOrEqual(1);
      // The serving replica switched to the new key within its refresh interval; rows it sealed
      // with the old key meanwhile were caught by the rotation's second sweep.
      expect(await keyOfEveryToken(rotation)).toEqual([2]);
      const keys = await rotation.query('SELECT id, state FROM token_vault.data_keys ORDER BY id');
      expect(keys).toEqual([
        { id: 1, state: 'DECRYPT_ONLY' },
        { id: 2, state: 'ACTIVE' },
      ]);
    } finally {
      await rotation.destroy();
    }
    await expectAllReadable(app!);
    // A payment session's card sealed under the retired key still reaches the acquirer.
    const reply = await app!.request<AcquirerCallReply>(SUBJECTS.tokenVault.acquirerCall, {
      envelope: envelope(),
      operation: 'VERIFY',
      source: { sealed: { value: sessionCardBeforeRotation.sealed, bindingId: 'SESSION-BEFORE-ROTATION' } },
      request: VERIFY_WIRE.encodeRequest({ merchantId: merchant.id, orderId: 'rotation-order', transactionId: 'verify-1', currency: 'USD' }),
    });
    expect(reply.result).toMatchObject({ gatewayCode: 'APPROVED' });
  }, 60_000);

  it('rotates the master key: data keys re-wrapped under the new one, after which the old one can be removed', async () => {
    await app!.close();
    app = undefined;
    const rotation = await openDataSource();
    try {
      const report = await rotateVaultKeys(rotation, configWith(`${NEW_MASTER},${OLD_MASTER}`), { rewrapOnly: true });
      expect(report.rewrapped).toEqual([1, 2]);
      const wrapping = await rotation.query('SELECT DISTINCT master_key_id FROM token_vault.data_keys');
      expect(wrapping).toEqual([{ master_key_id: 'new' }]);
    } finally {
      await rotation.destroy();
    }
    await expect(startVaultApp(vaultEnv(OLD_MASTER))).rejects.toThrow('wrapped under master key new, which is not configured');
    app = await startVaultApp(vaultEnv(NEW_MASTER));
    await expectAllReadable(app);
    await save('afterMasterRotation', TEST_CARD);
  }, 60_000);

  it('destroys a retired data key only once no token uses it', async () => {
    const dataSource = await openDataSource();
    try {
      const keys = new VaultKeys(DataKeyRepository.over(dataSource), loadVaultSecrets(configWith(NEW_MASTER)).masterKeys, { refreshIntervalMs: 0 });
      await keys.start();
      // Key 3 becomes ACTIVE; the tokens are still sealed under key 2.
      await keys.rotateDataKey();
      expect(await keys.destroyRetiredKeys(0)).toEqual({ destroyed: [1], inUse: [2] });
      await expect(dataSource.query('DELETE FROM token_vault.data_keys WHERE id = 2')).rejects.toThrow(/tokens_data_key_fk/);
    } finally {
      await dataSource.destroy();
    }
    await expectAllReadable(app!);
  });

  it('refuses a session card sealed under a destroyed data key, and lets the payer enter the card again', async () => {
    const binding = 'SESSION-BEFORE-ROTATION';
    // Key 1 was destroyed above: its material is gone, so the card sealed under it cannot be read.
    expect(await app!.dataSource.query('SELECT id FROM token_vault.data_keys WHERE id = 1')).toEqual([]);
    // A serving replica forgets it at its next refresh (VAULT_KEY_REFRESH_MS, 1 s here).
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const call = app!.request<AcquirerCallReply>(SUBJECTS.tokenVault.acquirerCall, {
      envelope: envelope(),
      operation: 'VERIFY',
      source: { sealed: { value: sessionCardBeforeRotation.sealed, bindingId: binding } },
      request: VERIFY_WIRE.encodeRequest({ merchantId: merchant.id, orderId: 'rotation-order', transactionId: 'verify-2', currency: 'USD' }),
    });
    await expect(call).rejects.toMatchObject({ code: 'INVALID_FIELD', field: 'session.id' });

    // The edge sends the session's stored value as `previous` with the card entered again: the
    // update must replace the unreadable value, or the session is stuck until it expires.
    const again = await app!.request<SealCardReply>(SUBJECTS.tokenVault.sealCard, {
      envelope: envelope(),
      bindingId: binding,
      card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED },
      previous: sessionCardBeforeRotation.sealed,
    });
    expect(again.card).toMatchObject({ number: '512345xxxxxx0008' });
    const reply = await app!.request<AcquirerCallReply>(SUBJECTS.tokenVault.acquirerCall, {
      envelope: envelope(),
      operation: 'VERIFY',
      source: { sealed: { value: again.sealed, bindingId: binding } },
      request: VERIFY_WIRE.encodeRequest({ merchantId: merchant.id, orderId: 'rotation-order', transactionId: 'verify-3', currency: 'USD' }),
    });
    expect(reply.result).toMatchObject({ gatewayCode: 'APPROVED' });
  });

  it('refuses to start with another fingerprint key than the one the stored tokens were fingerprinted with', async () => {
    const outcome = await startVaultApp({ ...vaultEnv(NEW_MASTER), VAULT_FINGERPRINT_KEY: runKey('another-fingerprint') }).then(
      async (started) => {
        await started.close();
        return 'started';
      },
      (err: Error) => err.message,
    );
    expect(outcome).toMatch(/VAULT_FINGERPRINT_KEY: is not the key the stored tokens were fingerprinted with/);
    // Under the right key a card already stored in a Unique Card repository is still found.
    await expectAllReadable(app!);
  });
});
