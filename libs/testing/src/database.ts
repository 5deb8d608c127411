import { createServiceDataSource, migrateSchema, ServiceSchema } from '@gateway/platform';
import { DataSource } from 'typeorm';

/**
 * A service's DataSource in the integration run's database (TEST_DATABASE_URL, made by the
 * tier's global setup), migrated with the service's own migrations.
 */
export async function openTestDataSource(schema: ServiceSchema, poolSize = 5): Promise<DataSource> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    throw new Error('TEST_DATABASE_URL is not set: run integration tests with `jest --selectProjects int`.');
  }
  const dataSource = createServiceDataSource(schema, {
    url,
    // Migrating holds one connection for the advisory lock and needs another to run.
    poolSize: Math.max(2, poolSize),
    statementTimeoutMs: 30_000,
    applicationName: `int-${schema.schema}`,
  });
  await dataSource.initialize();
  await migrateSchema(dataSource);
  return dataSource;
}

/** Empties every table of the schema but its migrations table: each test starts clean. */
export async function truncateSchema(dataSource: DataSource): Promise<void> {
  const schema = (dataSource.options as { schema: string }).schema;
  const tables: { tablename: string }[] = await dataSource.query(
    "SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename <> 'schema_migrations'",
    [schema],
  );
  if (tables.length > 0) {
    await dataSource.query(`TRUNCATE ${tables.map((t) => `"${schema}"."${t.tablename}"`).join(', ')} CASCADE`);
  }
}
