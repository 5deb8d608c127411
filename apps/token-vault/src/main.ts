import 'reflect-metadata';
import { TOKEN_VAULT_SCHEMA } from '@gateway/token-vault/data-access';
import { TokenVaultConfig, TokenVaultModule } from '@gateway/token-vault/feature';
import { runServiceMain } from '@gateway/platform';

void runServiceMain({
  name: 'token-vault',
  configClass: TokenVaultConfig,
  schema: TOKEN_VAULT_SCHEMA,
  featureModule: (config) => TokenVaultModule.forRoot(config),
});
