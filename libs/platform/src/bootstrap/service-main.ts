import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { DynamicModule, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ConfigError, ConfigProblem, DatabaseConfig, loadConfig, PlatformConfig } from '../config';
import { createServiceDataSource, migrateSchema, ServiceSchema } from '../database';
import { AppLogger, createLogger } from '../logging';
import { createMessageServer, MessagingOptions, NatsTls } from '../messaging';
import { Metrics, MetricsListen } from '../metrics';
import { PlatformModule } from '../platform.module';
import { bootstrapApp, exitOnSignals, failStartup, ProcessSignals, RunningApp } from './bootstrap';

export interface ServiceMainSpec<C extends DatabaseConfig> {
  /** The service's name: its NATS queue group, connection name and log `service` field. */
  name: string;
  configClass: new () => C;
  schema: ServiceSchema;
  featureModule: (config: C) => DynamicModule;
  /** False for a process that answers no subject (order-transaction's webhook dispatcher mode). */
  servesMessages?: (config: C) => boolean;
}

type MessagingConfig = Pick<
  PlatformConfig,
  'GATEWAY_PROFILE' | 'NATS_URL' | 'NATS_TLS_CA_FILE' | 'NATS_TLS_CERT_FILE' | 'NATS_TLS_KEY_FILE' | 'NATS_SUBJECT_PREFIX' | 'NATS_REQUEST_TIMEOUT_MS' | 'NATS_MAX_IN_FLIGHT' | 'NATS_MAX_REPLY_BYTES'
>;

/** The PEM files of NATS's TLS (PlatformConfig's NATS_TLS_*): '' for none. */
export interface NatsTlsFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
}

/**
 * The options of the app's message bus. In the distributed profile the NATS_TLS_* files are read
 * first (natsTlsFilesProblems): a missing or unreadable one stops the start with a ConfigError
 * naming it.
 */
export function messagingOptions(config: MessagingConfig, serviceName: string): MessagingOptions {
  if (config.GATEWAY_PROFILE === 'distributed') {
    const problems = natsTlsFilesProblems({ caFile: config.NATS_TLS_CA_FILE, certFile: config.NATS_TLS_CERT_FILE, keyFile: config.NATS_TLS_KEY_FILE });
    if (problems.length > 0) {
      throw new ConfigError(problems);
    }
  }
  const servers = config.NATS_URL.split(',');
  return {
    profile: config.GATEWAY_PROFILE,
    servers,
    tls: natsTls(servers, { caFile: config.NATS_TLS_CA_FILE, certFile: config.NATS_TLS_CERT_FILE, keyFile: config.NATS_TLS_KEY_FILE }),
    // The in-process bus is private to the process; prefixes only separate users of one NATS.
    subjectPrefix: config.GATEWAY_PROFILE === 'standalone' ? '' : config.NATS_SUBJECT_PREFIX,
    requestTimeoutMs: config.NATS_REQUEST_TIMEOUT_MS,
    maxInFlight: config.NATS_MAX_IN_FLIGHT,
    maxReplyBytes: config.NATS_MAX_REPLY_BYTES,
    serviceName,
  };
}

/** Where /metrics is served apart from the app's HTTP port: nowhere (on that port) without METRICS_PORT. */
export function metricsListen(config: Pick<PlatformConfig, 'HTTP_HOST' | 'METRICS_PORT'>): MetricsListen | undefined {
  return config.METRICS_PORT === undefined ? undefined : { host: config.HTTP_HOST, port: config.METRICS_PORT };
}

/**
 * Card numbers and security codes travel in NATS messages (edge to the service that runs the
 * operation), so a deployment that asks for TLS gets it or no connection: a `tls://` URL, a CA
 * file or a client certificate makes every connection require TLS and verify the server's
 * certificate. Without them the server decides (nats.js upgrades when the server requires TLS).
 */
export function natsTls(servers: string[], files: NatsTlsFiles): NatsTls | null {
  const { caFile, certFile, keyFile } = files;
  if (caFile === '' && certFile === '' && !servers.some((url) => url.startsWith('tls://'))) {
    return null;
  }
  return { ...(caFile === '' ? {} : { caFile }), ...(certFile === '' ? {} : { certFile, keyFile }) };
}

/**
 * What is wrong with the NATS_TLS_* files, each naming its variable (never a file's contents).
 * nats.js reads them at every connection attempt, and a start waits for NATS by retrying its
 * connection for ever: a CA file that was not mounted, a key that does not fit its certificate,
 * or a CA file with no certificate in it left the process retrying in silence, never ready,
 * with nothing in its log to say which setting was wrong.
 */
export function natsTlsFilesProblems(files: NatsTlsFiles): ConfigProblem[] {
  const read = (variable: string, file: string): { file: Buffer } | { problem: ConfigProblem } | null => {
    if (file === '') {
      return null;
    }
    try {
      return { file: readFileSync(file) };
    } catch (err) {
      return { problem: { variable, problem: `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` } };
    }
  };
  const ca = read('NATS_TLS_CA_FILE', files.caFile);
  const cert = read('NATS_TLS_CERT_FILE', files.certFile);
  const key = read('NATS_TLS_KEY_FILE', files.keyFile);
  const problems = [ca, cert, key].flatMap((r) => (r && 'problem' in r ? [r.problem] : []));
  if (ca && 'file' in ca) {
    try {
      new X509Certificate(ca.file);
    } catch {
      problems.push({ variable: 'NATS_TLS_CA_FILE', problem: 'holds no PEM certificate' });
    }
  }
  if (cert && 'file' in cert && key && 'file' in key) {
    try {
      createSecureContext({ cert: cert.file, key: key.file });
    } catch (err) {
      problems.push({ variable: 'NATS_TLS_KEY_FILE', problem: `does not fit NATS_TLS_CERT_FILE: ${(err as Error).message}` });
    }
  }
  return problems;
}

export function databaseConnection(config: DatabaseConfig, applicationName: string) {
  return {
    url: config.DATABASE_URL,
    poolSize: config.DATABASE_POOL_SIZE,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_SECONDS * 1_000,
    migrationLockTimeoutMs: config.DATABASE_MIGRATION_LOCK_TIMEOUT_MS,
    tcpKeepalive: {
      idleSeconds: config.DATABASE_TCP_KEEPALIVE_IDLE_SECONDS,
      intervalSeconds: config.DATABASE_TCP_KEEPALIVE_INTERVAL_SECONDS,
      count: config.DATABASE_TCP_KEEPALIVE_COUNT,
    },
    applicationName,
  };
}

/**
 * The main of a NATS service (`node main.js` serves; `node main.js migrate` applies the
 * service's migrations under the advisory lock and exits, for the Kubernetes migration Job).
 */
export async function runServiceMain<C extends DatabaseConfig>(spec: ServiceMainSpec<C>): Promise<RunningApp | void> {
  const migrate = process.argv[2] === 'migrate';
  const signals = exitOnSignals(migrate ? 'command' : 'server');
  let logger: AppLogger | undefined;
  try {
    if (migrate) {
      // The migration Job gets the database credentials only, not the service's other secrets.
      const dbConfig = loadConfig(DatabaseConfig);
      logger = createLogger({ service: spec.name, level: dbConfig.LOG_LEVEL });
      await runMigrateCommand(spec.schema, dbConfig, logger, signals);
      return;
    }
    const config = loadConfig(spec.configClass);
    logger = createLogger({ service: spec.name, level: config.LOG_LEVEL });
    const servesMessages = spec.servesMessages?.(config) ?? true;
    // A process that answers no subject sends none either: it gets the in-process client, which
    // opens no NATS connection, so NATS is neither its dependency nor in its readiness.
    const messaging: MessagingOptions = servesMessages
      ? messagingOptions(config, spec.name)
      : messagingOptions({ ...config, GATEWAY_PROFILE: 'standalone' }, spec.name);
    @Module({
      imports: [
        PlatformModule.forRoot({
          logger,
          metrics: new Metrics(),
          messaging,
          healthCheckTimeoutMs: config.HEALTH_CHECK_TIMEOUT_MS,
          metricsListen: metricsListen(config),
        }),
        spec.featureModule(config),
      ],
    })
    class ServiceAppModule {}
    const running = await bootstrapApp({
      module: ServiceAppModule,
      logger,
      host: config.HTTP_HOST,
      port: config.HTTP_PORT,
      shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
      messageServer: servesMessages ? createMessageServer(messaging, config.SHUTDOWN_GRACE_MS) : undefined,
    });
    logger.info({ url: running.url }, `${spec.name} ready for requests`);
    signals.shutDownWith(running);
    return running;
  } catch (err) {
    failStartup(logger, err);
  }
}

/**
 * `main.js migrate`: apply the schema's pending migrations under the advisory lock, then return.
 * Only once they are all applied is the work done for `signals`: a signal before then exits
 * 143/130, and the Job runs the rest again.
 */
export async function runMigrateCommand(
  schema: ServiceSchema,
  config: DatabaseConfig,
  logger: AppLogger,
  signals: Pick<ProcessSignals, 'finished'>,
): Promise<void> {
  const connection = databaseConnection(config, `${schema.schema}-migrate`);
  const dataSource: DataSource = createServiceDataSource(schema, connection);
  await dataSource.initialize();
  try {
    const applied = await migrateSchema(dataSource, { logger, lockTimeoutMs: connection.migrationLockTimeoutMs });
    signals.finished();
    logger.info({ schema: schema.schema, applied: applied.length }, 'schema up to date');
  } finally {
    await dataSource.destroy();
    logger.flush();
  }
}
