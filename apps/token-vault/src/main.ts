import 'reflect-metadata';
import { TOKEN_VAULT_SCHEMA } from '@gateway/token-vault/data-access';
import { runRotateKeysMain, TokenVaultConfig, TokenVaultModule } from '@gateway/token-vault/feature';
import { answerEntryPointLine, exitOnSignals, runServiceMain, stdio } from '@gateway/platform';

const USAGE = {
  command: 'node dist/apps/token-vault/src/main.js',
  what: 'token-vault: the card and account vault (tokens, encrypted card numbers), answering requests over NATS.',
  settings: 'docs/operations/configuration.md (Every app, Apps with a database, token-vault)',
  commands: [
    { name: 'migrate', rest: '', what: "apply the vault's database migrations, then exit (the migration Job)", readsItsLine: false },
    { name: 'rotate-keys', rest: '[options]', what: "rotate the vault's keys while it serves (docs/operations/token-vault-key-rotation.md)", readsItsLine: true },
  ],
};

// `--help`, or an argument it does not take, is answered before anything is read or connected.
const answered = answerEntryPointLine(process.argv.slice(2), USAGE, stdio);
if (answered !== undefined) {
  process.exitCode = answered;
} else if (process.argv[2] === 'rotate-keys') {
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
