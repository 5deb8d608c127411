import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { VaultKeys } from '@gateway/crypto';
import { AppLogger, APP_LOGGER, ReadinessChecks } from '@gateway/platform';
import { VAULT_KEYS } from '@gateway/token-vault/domain';

/**
 * Loads the data keys once the schema is migrated (the database module initialises first),
 * creating the first key on a fresh vault, and keeps them fresh while serving. The service is
 * not ready before its keys are.
 */
@Injectable()
export class VaultKeysLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(VAULT_KEYS) private readonly keys: VaultKeys,
    private readonly checks: ReadinessChecks,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.keys.start();
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
}
