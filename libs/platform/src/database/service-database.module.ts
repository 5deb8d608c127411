import { DynamicModule, Inject, Module, OnModuleInit } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ReadinessChecks } from '../health';
import { AppLogger } from '../logging';
import { Metrics, PoolStats } from '../metrics';
import { APP_LOGGER } from '../tokens';
import { migrateSchema } from './migrate';
import { DatabaseConnection, ServiceSchema, serviceDataSourceOptions } from './service-data-source';

export interface ServiceDatabaseOptions {
  service: ServiceSchema;
  connection: DatabaseConnection;
  /** Run pending migrations before serving (local runs); in Kubernetes a Job runs them once. */
  migrateOnStart: boolean;
}

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
    class DatabaseLifecycle implements OnModuleInit {
      constructor(
        @Inject(token) private readonly dataSource: DataSource,
        private readonly checks: ReadinessChecks,
        @Inject(APP_LOGGER) private readonly logger: AppLogger,
        private readonly metrics: Metrics,
      ) {}

      async onModuleInit(): Promise<void> {
        if (options.migrateOnStart) {
          await migrateSchema(this.dataSource, this.logger);
        }
        this.checks.add(`database:${options.service.schema}`, async () => {
          await this.dataSource.query('SELECT 1');
        });
        this.metrics.registerDatabasePool({
          schema: options.service.schema,
          maxConnections: options.connection.poolSize,
          // TypeORM's Postgres driver keeps its pg Pool as `master`.
          stats: () => (this.dataSource.driver as unknown as { master?: PoolStats }).master,
        });
      }
    }
    return {
      module: ServiceDatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          name: options.service.schema,
          useFactory: () => ({
            ...serviceDataSourceOptions(options.service, options.connection),
            // A database that is down at boot must not kill the process: readiness reports it.
            retryAttempts: Number.MAX_SAFE_INTEGER,
            retryDelay: 1_000,
          }),
        }),
      ],
      providers: [DatabaseLifecycle],
      exports: [TypeOrmModule],
    };
  }
}
