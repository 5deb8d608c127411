import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { VaultKeys } from '@gateway/crypto';
import {
  AppLogger,
  CommandIo,
  createLogger,
  createServiceDataSource,
  databaseConnection,
  failStartup,
  loadConfig,
  parsedOrUsageError,
  ProcessSignals,
  stdio,
} from '@gateway/platform';
import { DataKeyRepository, TOKEN_VAULT_SCHEMA, TokenRepository } from '@gateway/token-vault/data-access';
import { ReencryptTokens, TokenSealing } from '@gateway/token-vault/domain';
import { TokenVaultConfig } from './token-vault.config';
import { loadVaultSecrets } from './vault-secrets';

export const ROTATE_KEYS_USAGE = `Usage: node dist/apps/token-vault/src/main.js rotate-keys [options]

Rotates the vault's keys while the service keeps serving:
  1. re-wraps every data key under the current (first) master key of VAULT_MASTER_KEYS;
  2. creates a new data key and makes it ACTIVE (replicas pick it up within VAULT_KEY_REFRESH_MS);
  3. re-encrypts every token in batches of VAULT_REENCRYPT_BATCH_SIZE, skipping rows being written,
     and once more after the replicas have switched, for rows they wrote meanwhile.

Options:
  --rewrap-only       only step 1 (master key rotation: then remove the old master key); takes
                      no other option
  --resume            steps 1 and 3: finish re-encrypting under the ACTIVE key, no new data key
  --destroy-retired   afterwards, delete retired data keys no token uses any more
  --help
The batch size and the refresh interval are the service's settings (VAULT_REENCRYPT_BATCH_SIZE,
VAULT_KEY_REFRESH_MS), not options.

Exit code 0: every token under the ACTIVE key. 2: some remain (rerun with --resume). 64: an
option or argument this command does not take, or options that do not go together: nothing done.
`;

/** Usage mistakes (sysexits' EX_USAGE): 2 already means tokens remain to re-encrypt. */
export const ROTATE_KEYS_USAGE_ERROR = 64;

/**
 * The command's options, or the exit code once its line is answered: usage (--help, 0) or a
 * usage error (64), before the configuration is read or the database opened. --rewrap-only stops
 * after step 1, so --resume and --destroy-retired beside it were silently not done (an operator
 * believed retired keys were deleted); they are refused, as other operator commands refuse an
 * option they do not read. An unknown option or an argument is a usage error too (it exited 1
 * as a failed startup).
 */
export function rotateKeysLine(argv: string[], io: CommandIo): RotateKeysOptions | number {
  const parsed = parsedOrUsageError(io, () =>
    parseArgs({
      args: argv,
      options: {
        'rewrap-only': { type: 'boolean', default: false },
        resume: { type: 'boolean', default: false },
        'destroy-retired': { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }),
  );
  if (!parsed) {
    return ROTATE_KEYS_USAGE_ERROR;
  }
  const { values } = parsed;
  if (values.help) {
    io.out(ROTATE_KEYS_USAGE);
    return 0;
  }
  const ignored = values['rewrap-only'] ? (['resume', 'destroy-retired'] as const).find((name) => values[name]) : undefined;
  if (ignored) {
    io.err(`error: --rewrap-only does not take --${ignored} (it only re-wraps the data keys; run --${ignored} on its own). Run with --help.`);
    return ROTATE_KEYS_USAGE_ERROR;
  }
  return { rewrapOnly: values['rewrap-only'], resume: values.resume, destroyRetired: values['destroy-retired'] };
}

export interface RotateKeysOptions {
  rewrapOnly?: boolean;
  resume?: boolean;
  destroyRetired?: boolean;
}

export interface RotationReport {
  rewrapped: number[];
  newDataKey: number | null;
  activeDataKey: number;
  reencrypted: number;
  /** Tokens still sealed under an older key: rerun with --resume. */
  remaining: number;
  destroyed: number[];
  retiredButInUse: number[];
}

/** The rotation itself, over a DataSource on the vault's schema (the command and the tests use it). */
export async function rotateVaultKeys(
  dataSource: DataSource,
  config: TokenVaultConfig,
  options: RotateKeysOptions,
  logger?: AppLogger,
): Promise<RotationReport> {
  if (options.rewrapOnly && (options.resume || options.destroyRetired)) {
    throw new Error('rewrapOnly re-wraps the data keys only: it does not go with resume or destroyRetired.');
  }
  const secrets = loadVaultSecrets(config);
  const keys = new VaultKeys(DataKeyRepository.over(dataSource), secrets.masterKeys, { refreshIntervalMs: 0 });
  await keys.start();
  const rewrapped = await keys.rewrapDataKeys();
  logger?.info({ rewrapped, masterKeyId: secrets.masterKeys.currentId }, 'data keys wrapped under the current master key');
  if (options.rewrapOnly) {
    return { rewrapped, newDataKey: null, activeDataKey: keys.activeKeyId, reencrypted: 0, remaining: 0, destroyed: [], retiredButInUse: [] };
  }
  const newDataKey = options.resume ? null : await keys.rotateDataKey();
  // Every replica has reloaded its keys one refresh interval later; the margin covers timer drift
  // and the reload's own query.
  const switchedAt = Date.now() + Math.ceil(config.VAULT_KEY_REFRESH_MS * 1.2) + 250;
  if (newDataKey !== null) {
    logger?.info({ dataKeyId: newDataKey }, 'new data key is ACTIVE');
  }
  const reencrypt = new ReencryptTokens(TokenRepository.over(dataSource), new TokenSealing(keys, secrets.fingerprinter), keys);
  const batch = {
    batchSize: config.VAULT_REENCRYPT_BATCH_SIZE,
    onBatch: ({ reencrypted }: { reencrypted: number }) => logger?.info({ reencrypted }, 're-encrypting tokens'),
  };
  let result = await reencrypt.execute(batch);
  let reencrypted = result.reencrypted;
  if (newDataKey !== null) {
    // Replicas seal with the key they loaded until their next refresh: sweep again once all have switched.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, switchedAt - Date.now())));
    result = await reencrypt.execute(batch);
    reencrypted += result.reencrypted;
  }
  const destruction = options.destroyRetired
    ? await keys.destroyRetiredKeys(2 * config.VAULT_KEY_REFRESH_MS)
    : { destroyed: [], inUse: [] };
  return {
    rewrapped,
    newDataKey,
    activeDataKey: keys.activeKeyId,
    reencrypted,
    remaining: result.remaining,
    destroyed: destruction.destroyed,
    retiredButInUse: destruction.inUse,
  };
}

/**
 * `main.js rotate-keys`: exit 0 when every token is under the ACTIVE key, 2 when some remain, 64
 * for a usage mistake (nothing done). A
 * signal before the rotation's end exits 143/130 (`signals`, the main's): `--resume` goes on.
 */
export async function runRotateKeysMain(argv: string[], signals: Pick<ProcessSignals, 'finished'>): Promise<void> {
  let logger: AppLogger | undefined;
  try {
    const options = rotateKeysLine(argv, stdio);
    if (typeof options === 'number') {
      process.exitCode = options;
      return;
    }
    const config = loadConfig(TokenVaultConfig);
    logger = createLogger({ service: 'token-vault-rotate-keys', level: config.LOG_LEVEL });
    const dataSource = createServiceDataSource(TOKEN_VAULT_SCHEMA, databaseConnection(config, 'token-vault-rotate-keys'));
    await dataSource.initialize();
    try {
      const report = await rotateVaultKeys(
        dataSource,
        config,
        options,
        logger,
      );
      signals.finished();
      logger.info(report, report.remaining === 0 ? 'key rotation complete' : 'key rotation incomplete: rerun with --resume');
      process.exitCode = report.remaining === 0 ? 0 : 2;
    } finally {
      await dataSource.destroy();
      logger.flush();
    }
  } catch (err) {
    failStartup(logger, err);
  }
}
