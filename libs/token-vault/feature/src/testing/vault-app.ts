import { Writable } from 'node:stream';
import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { getDataSourceToken } from '@nestjs/typeorm';
import {
  bootstrapApp,
  createLogger,
  createMessageServer,
  loadConfig,
  messagingOptions,
  Metrics,
  PlatformModule,
  standaloneBus,
} from '@gateway/platform';
import { runKey } from '@gateway/testing';
import { TokenVaultConfig } from '../token-vault.config';
import { TokenVaultModule } from '../token-vault.module';

export { runKey };

export interface VaultApp {
  /** A request on the vault's subjects, through the in-process transport (wire copies, coded errors). */
  request<T>(subject: string, payload: object): Promise<T>;
  dataSource: DataSource;
  config: TokenVaultConfig;
  /** A provider of the vault module (TokenSealing, VaultKeys...). */
  get<T>(token: string | symbol | (abstract new (...args: never[]) => T)): T;
  /** Every log line the vault wrote. */
  logs: string[];
  close(): Promise<void>;
}

/**
 * The token-vault module as its main runs it (platform module, database, migrations, key
 * lifecycle, message handlers), on the in-process transport and a given database.
 */
export async function startVaultApp(env: Record<string, string> = {}): Promise<VaultApp> {
  const config = loadConfig(TokenVaultConfig, {
    GATEWAY_PROFILE: 'standalone',
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: '0',
    DATABASE_URL: process.env.TEST_DATABASE_URL,
    DATABASE_POOL_SIZE: '10',
    VAULT_MASTER_KEYS: `int-1:${runKey('master-1')}`,
    VAULT_FINGERPRINT_KEY: runKey('fingerprint'),
    VAULT_KEY_REFRESH_MS: '1000',
    ...env,
  });
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger({ service: 'token-vault', level: 'info', destination });
  const messaging = messagingOptions(config, 'token-vault');
  @Module({
    imports: [
      PlatformModule.forRoot({ logger, metrics: new Metrics(), messaging, healthCheckTimeoutMs: 1_000 }),
      TokenVaultModule.forRoot(config),
    ],
  })
  class VaultTestModule {}
  const running = await bootstrapApp({
    module: VaultTestModule,
    logger,
    host: config.HTTP_HOST,
    port: 0,
    shutdownGraceMs: 5_000,
    messageServer: createMessageServer(messaging, 5_000),
  });
  return {
    request: <T>(subject: string, payload: object) => standaloneBus.request(subject, payload) as Promise<T>,
    dataSource: running.app.get<DataSource>(getDataSourceToken('token_vault') as string),
    get: <T>(token: string | symbol | (abstract new (...args: never[]) => T)) => running.app.get<T>(token as never, { strict: false }),
    config,
    logs,
    close: async () => {
      await running.app.close();
    },
  };
}
