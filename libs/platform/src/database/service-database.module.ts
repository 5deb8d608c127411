import { DynamicModule, Inject, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ReadinessChecks } from '../health';
import { AppLogger } from '../logging';
import { Metrics, PoolStats } from '../metrics';
import { APP_LOGGER } from '../tokens';
import { migrateSchema } from './migrate';
import { DatabaseHealthSession } from './database-health-session';
import { DatabaseConnection, ServiceSchema, serviceDataSourceOptions, sessionClientConfig } from './service-data-source';

export interface ServiceDatabaseOptions {
  service: ServiceSchema;
  connection: DatabaseConnection;
  /** Run pending migrations before serving (local runs); in Kubernetes a Job runs them once. */
  migrateOnStart: boolean;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

/** The injection token of a service's DataSource: use with @Inject or @InjectDataSource(schema). */
export function dataSourceToken(schema: string): string | symbol | object {
  return getDataSourceToken(schema) as string;
}

/**
 * A service's database: its DataSource (named after its schema, so several services can share
 * one process in the standalone profile), migrations on start if asked, and a readiness check.
 */
@Module({})
export class ServiceDatabaseModule {
  static forRoot(options: ServiceDatabaseOptions): DynamicModule {
    const token = getDataSourceToken(options.service.schema);
    class DatabaseLifecycle implements OnModuleInit, OnApplicationShutdown {
      // Not the pool: a check queued behind the requests waiting for a connection would turn the
      // service unready exactly when busy (database-health-session.ts).
      private readonly health = new DatabaseHealthSession(
        sessionClientConfig(options.connection, `${options.connection.applicationName}:health`),
      );

      constructor(
        @Inject(token) private readonly dataSource: DataSource,
        private readonly checks: ReadinessChecks,
        @Inject(APP_LOGGER) private readonly logger: AppLogger,
        private readonly metrics: Metrics,
      ) {}

      async onModuleInit(): Promise<void> {
        if (options.migrateOnStart) {
          await migrateSchema(this.dataSource, {
            logger: this.logger,
            lockTimeoutMs: options.connection.migrationLockTimeoutMs,
          });
        }
        this.checks.add(`database:${options.service.schema}`, () => this.health.ping());
        this.metrics.registerDatabasePool({
          schema: options.service.schema,
          maxConnections: options.connection.poolSize,
          // TypeORM's Postgres driver keeps its pg Pool as `master`.
          stats: () => (this.dataSource.driver as unknown as { master?: PoolStats }).master,
        });
      }

      async onApplicationShutdown(): Promise<void> {
        await this.health.close();
      }
    }
    return {
      module: ServiceDatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          name: options.service.schema,
          useFactory: () => {
            // A database down at boot is waited for until the deadline, trying every second; then
            // the start fails (exit 1) and the orchestrator restarts the process with its backoff.
            // Waiting for ever would not help: a process still starting serves no readiness probe
            // to report it, and Kubernetes' startup probe gives up after a minute anyway.
            const deadline = Date.now() + (options.connection.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
            return {
              ...serviceDataSourceOptions(options.service, options.connection),
              retryAttempts: Number.MAX_SAFE_INTEGER,
              retryDelay: 1_000,
              toRetry: () => Date.now() + 1_000 < deadline,
            };
          },
        }),
      ],
      providers: [DatabaseLifecycle],
      exports: [TypeOrmModule],
    };
  }
}
