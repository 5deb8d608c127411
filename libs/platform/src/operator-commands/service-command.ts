import pino from 'pino';
import type { DataSource } from 'typeorm';
import { failStartup } from '../bootstrap/bootstrap';
import { databaseConnection } from '../bootstrap/service-main';
import { DatabaseConfig, loadConfig } from '../config';
import { createServiceDataSource, migrateSchema, ServiceSchema } from '../database';
import { AppLogger, createLogger } from '../logging';
import { openStandaloneDatabase } from '../standalone/standalone-state';
import type { StandaloneConfig } from '../standalone/standalone.config';

/**
 * `main.js <command> ...` of a service's image: the command's exit code becomes the process's; a
 * bad configuration is the main's exit code 78 (failStartup), as a service that cannot start.
 */
export async function runCommandMain(run: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await run();
  } catch (err) {
    failStartup(undefined, err);
  }
}

/** An operator command's JSON log lines, on stderr: stdout is the command's answer (--json output stays parseable). */
export function commandLogger(service: string): AppLogger {
  return createLogger({ service, level: 'info', destination: pino.destination({ fd: 2, sync: true }) });
}

/**
 * `work` over the service's own schema, with the service's own DATABASE_URL (a ConfigError when
 * unset or malformed): an operator command reads no other service's tables. Two connections,
 * closed when `work` is done.
 */
export async function withServiceDatabase<T>(
  schema: ServiceSchema,
  applicationName: string,
  env: NodeJS.ProcessEnv,
  work: (dataSource: DataSource) => Promise<T>,
): Promise<T> {
  const config = loadConfig(DatabaseConfig, env);
  const dataSource = createServiceDataSource(schema, { ...databaseConnection(config, applicationName), poolSize: 2 });
  await dataSource.initialize();
  try {
    return await work(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

/**
 * An operator command against the standalone profile's embedded database (started here if the
 * gateway is not running, and stopped again): `work` gets its URL and answers the exit code,
 * with which the process then exits (nothing is left to wait for).
 */
export async function runStandaloneCommand(standalone: StandaloneConfig, work: (databaseUrl: string) => Promise<number>): Promise<void> {
  try {
    const pg = await openStandaloneDatabase(standalone);
    let code: number;
    try {
      code = await work(pg.url);
    } finally {
      await pg.stop();
    }
    process.exit(code);
  } catch (err) {
    failStartup(undefined, err);
  }
}

/** `work` over one service's schema of the standalone database, migrated first (the gateway may never have started on it). */
export async function withStandaloneSchema<T>(
  databaseUrl: string,
  schema: ServiceSchema,
  applicationName: string,
  work: (dataSource: DataSource) => Promise<T>,
): Promise<T> {
  const dataSource = createServiceDataSource(schema, { url: databaseUrl, poolSize: 2, statementTimeoutMs: 10_000, applicationName });
  try {
    await dataSource.initialize();
    await migrateSchema(dataSource);
    return await work(dataSource);
  } finally {
    await dataSource.destroy().catch(() => undefined);
  }
}
