import 'reflect-metadata';
import { TOKEN_VAULT_SCHEMA } from '@gateway/token-vault/data-access';
import { runRotateKeysMain, TokenVaultConfig, TokenVaultModule } from '@gateway/token-vault/feature';
import { runServiceMain } from '@gateway/platform';

if (process.argv[2] === 'rotate-keys') {
  void runRotateKeysMain(process.argv.slice(3));
} else {
  void runServiceMain({
    name: 'token-vault',
    configClass: TokenVaultConfig,
    schema: TOKEN_VAULT_SCHEMA,
    featureModule: (config) => TokenVaultModule.forRoot(config),
  });
}
