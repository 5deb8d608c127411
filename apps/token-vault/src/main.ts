import 'reflect-metadata';
import { TOKEN_VAULT_SCHEMA } from '@gateway/token-vault/data-access';
import { runRotateKeysMain, TokenVaultConfig, TokenVaultModule } from '@gateway/token-vault/feature';
import { exitOnSignals, runServiceMain } from '@gateway/platform';

if (process.argv[2] === 'rotate-keys') {
  // Stopped halfway (its pod deleted, Ctrl-C), it exits 143/130, as its container's PID 1 too.
  void runRotateKeysMain(process.argv.slice(3), exitOnSignals('command'));
} else {
  void runServiceMain({
    name: 'token-vault',
    configClass: TokenVaultConfig,
    schema: TOKEN_VAULT_SCHEMA,
    featureModule: (config) => TokenVaultModule.forRoot(config),
  });
}
