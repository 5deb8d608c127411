import { DatabaseConfig } from '@gateway/platform';

/** token-vault's configuration, read once at boot (see docs/operations/configuration.md). */
export class TokenVaultConfig extends DatabaseConfig {
  override HTTP_PORT = 8081;
}
