import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { VaultKeys } from '@gateway/crypto';
import { AppLogger, APP_LOGGER, ConfigError, ReadinessChecks } from '@gateway/platform';
import { TOKEN_STORE, TokenSealing, TokenStore, VAULT_KEYS } from '@gateway/token-vault/domain';

/**
 * Loads the data keys once the schema is migrated (the database module initialises first),
 * creating the first key on a fresh vault, and keeps them fresh while serving. The service is
 * not ready before its keys are.
 */
@Injectable()
export class VaultKeysLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(VAULT_KEYS) private readonly keys: VaultKeys,
    @Inject(TOKEN_STORE) private readonly tokens: TokenStore,
    private readonly sealing: TokenSealing,
    private readonly checks: ReadinessChecks,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.keys.start();
    try {
      await this.checkFingerprintKey();
    } catch (err) {
      // The process stops: no key refresh left running behind it.
      this.keys.stop();
      throw err;
    }
    this.logger.info({ activeDataKey: this.keys.activeKeyId, dataKeys: this.keys.describe().length }, 'vault keys loaded');
    this.checks.add('vault-keys', async () => {
      if (!this.keys.ready) {
        throw new Error('vault keys not loaded');
      }
    });
  }

  onApplicationShutdown(): void {
    this.keys.stop();
  }

  /**
   * The uniqueness rules find a card's token by its fingerprint: under another fingerprint key
   * no stored card would be found, and the vault would silently store duplicates in Unique Card
   * repositories and take every update for a change of card. A stored token's fingerprint,
   * computed again, tells whether VAULT_FINGERPRINT_KEY is the key the vault was filled with;
   * if not, the service refuses to start (exit code 78), naming the variable.
   */
  private async checkFingerprintKey(): Promise<void> {
    const token = await this.tokens.anyToken();
    if (!token) {
      return;
    }
    let instrument: Awaited<ReturnType<TokenSealing['openInstrument']>>;
    try {
      instrument = await this.sealing.openInstrument(token);
    } catch (err) {
      // One token the vault cannot open says nothing of the fingerprint key, and must not keep
      // the vault from serving every other token: that token's own requests report it.
      this.logger.warn({ err, tokenId: token.id }, 'fingerprint key not checked at start: the token read for the check could not be opened');
      return;
    }
    if (!this.sealing.fingerprint(token.repositoryId, instrument).equals(token.fingerprint)) {
      throw new ConfigError([
        {
          variable: 'VAULT_FINGERPRINT_KEY',
          problem: 'is not the key the stored tokens were fingerprinted with (it cannot be changed on a vault holding tokens)',
        },
      ]);
    }
  }
}
