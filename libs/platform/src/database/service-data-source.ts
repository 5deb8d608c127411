import type { ClientConfig } from 'pg';
import { DataSource, DataSourceOptions, MixedList } from 'typeorm';

/** What a service's data-access lib declares about its own persistence. */
export interface ServiceSchema {
  /** The Postgres schema the service owns; no other service reads or writes it. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function>;
}

export interface DatabaseConnection {
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
  applicationName: string;
  /** How long a starting service waits for its database (ServiceDatabaseModule); 30 s if not given. */
  connectTimeoutMs?: number;
  /** How long a migration statement waits for a lock before it is retried (migrateSchema); 5 s if not given. */
  migrationLockTimeoutMs?: number;
  /** How soon the server finds this process's connections gone; DEFAULT_TCP_KEEPALIVE if not given. */
  tcpKeepalive?: TcpKeepalive;
}

/**
 * The server side's TCP keepalive on each connection (Postgres's tcp_keepalives_idle, _interval
 * and _count): after `idleSeconds` of silence the server probes the client every
 * `intervalSeconds`, and after `count` unanswered probes ends the session.
 */
export interface TcpKeepalive {
  idleSeconds: number;
  intervalSeconds: number;
  count: number;
}

/**
 * A session's advisory locks (the webhook dispatcher's claims, the migration lock) last as long as
 * the server believes the session alive. A client whose node vanishes sends no FIN: the server
 * learns of it only by keepalive, after the kernel's default of 2 hours idle, and all that time
 * the dead dispatcher's notifications stay claimed and a retried migration Job waits. With these,
 * about a minute (30 s + 3 × 10 s).
 */
export const DEFAULT_TCP_KEEPALIVE: TcpKeepalive = { idleSeconds: 30, intervalSeconds: 10, count: 3 };

/**
 * Longest wait for a connection to the database (a new one, or a free one of the pool); then the
 * query fails as unavailable. A write retried while the database is away may start its last try
 * just before its window ends and wait this long more.
 */
export const DATABASE_CONNECT_TIMEOUT_MS = 5_000;

/**
 * One DataSource per service, on its own schema with its own migrations table. `synchronize`
 * is never on: the schema changes only through the service's reviewed SQL migrations.
 */
export function serviceDataSourceOptions(service: ServiceSchema, connection: DatabaseConnection): DataSourceOptions {
  const { url, options: urlOptions } = withoutOptionsParameter(connection.url);
  return {
    type: 'postgres',
    url,
    schema: service.schema,
    entities: service.entities,
    migrations: service.migrations,
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    // Numeric and bigint columns come back as strings: money is never a JS number.
    parseInt8: false,
    poolSize: connection.poolSize,
    connectTimeoutMS: DATABASE_CONNECT_TIMEOUT_MS,
    applicationName: connection.applicationName,
    extra: {
      // Server settings for every session of the pool, sent at connection start, after those of
      // an `options` parameter in the URL (which node-postgres would otherwise send instead of
      // these). None with an idle time of 0: a connection pooler that refuses startup options
      // (PgBouncer without `ignore_startup_parameters = options`) then connects, and the server's
      // own settings hold.
      ...sessionOptions(connection.tcpKeepalive ?? DEFAULT_TCP_KEEPALIVE, urlOptions),
      statement_timeout: connection.statementTimeoutMs,
      idle_in_transaction_session_timeout: Math.max(connection.statementTimeoutMs * 2, 30_000),
      // Pool reports an unreachable database after this long instead of waiting forever.
      connectionTimeoutMillis: DATABASE_CONNECT_TIMEOUT_MS,
    },
  };
}

/**
 * `-c` settings of the keepalive, and of tcp_user_timeout: keepalive probes are only sent on an
 * idle connection, so a client lost while the server still had data on the way to it would
 * otherwise be found by retransmission timeouts (some 15 minutes); the user timeout bounds that
 * by the keepalive's own total. Settable by any role; ignored on Unix-domain sockets.
 */
function sessionOptions(keepalive: TcpKeepalive, urlOptions: string | undefined): { options?: string } {
  if (keepalive.idleSeconds === 0) {
    return urlOptions === undefined ? {} : { options: urlOptions };
  }
  const userTimeoutMs = (keepalive.idleSeconds + keepalive.intervalSeconds * keepalive.count) * 1_000;
  const options = [
    `tcp_keepalives_idle=${keepalive.idleSeconds}`,
    `tcp_keepalives_interval=${keepalive.intervalSeconds}`,
    `tcp_keepalives_count=${keepalive.count}`,
    `tcp_user_timeout=${userTimeoutMs}`,
  ]
    .map((setting) => `-c ${setting}`)
    .join(' ');
  // The URL's settings last: where both set one, the operator's explicit choice wins.
  return { options: urlOptions === undefined ? options : `${options} ${urlOptions}` };
}

/**
 * The URL without its `options` parameter, and that parameter's value: node-postgres sends the
 * URL's `options` in place of the pool's, so the two are joined into the pool's. A URL without
 * one is returned as it was, byte for byte.
 */
export function withoutOptionsParameter(url: string): { url: string; options?: string } {
  const queryStart = url.indexOf('?');
  if (queryStart === -1) {
    return { url };
  }
  const query = new URLSearchParams(url.slice(queryStart + 1));
  const options = query.get('options');
  if (options === null) {
    return { url };
  }
  query.delete('options');
  const rest = query.toString();
  return { url: url.slice(0, queryStart) + (rest === '' ? '' : `?${rest}`), ...(options.trim() === '' ? {} : { options }) };
}

/**
 * One connection of its own beside the pool (a LISTEN session), with the pool's server settings
 * (keepalive, the URL's `options`) and connect timeout, under an application name of its own so
 * pg_stat_activity tells it from the pool's connections.
 */
export function sessionClientConfig(connection: DatabaseConnection, applicationName: string): ClientConfig {
  const { url, options } = withoutOptionsParameter(connection.url);
  return {
    connectionString: url,
    application_name: applicationName,
    connectionTimeoutMillis: DATABASE_CONNECT_TIMEOUT_MS,
    ...sessionOptions(connection.tcpKeepalive ?? DEFAULT_TCP_KEEPALIVE, options),
  };
}

export function createServiceDataSource(service: ServiceSchema, connection: DatabaseConnection): DataSource {
  return new DataSource(serviceDataSourceOptions(service, connection));
}
