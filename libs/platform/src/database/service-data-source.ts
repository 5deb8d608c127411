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
}

/**
 * One DataSource per service, on its own schema with its own migrations table. `synchronize`
 * is never on: the schema changes only through the service's reviewed SQL migrations.
 */
export function serviceDataSourceOptions(service: ServiceSchema, connection: DatabaseConnection): DataSourceOptions {
  return {
    type: 'postgres',
    url: connection.url,
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
    connectTimeoutMS: 5_000,
    applicationName: connection.applicationName,
    extra: {
      statement_timeout: connection.statementTimeoutMs,
      idle_in_transaction_session_timeout: Math.max(connection.statementTimeoutMs * 2, 30_000),
      // Pool reports an unreachable database after this long instead of waiting forever.
      connectionTimeoutMillis: 5_000,
    },
  };
}

export function createServiceDataSource(service: ServiceSchema, connection: DatabaseConnection): DataSource {
  return new DataSource(serviceDataSourceOptions(service, connection));
}
