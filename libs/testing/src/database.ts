import { Client } from 'pg';
import { createServiceDataSource, migrateSchema, serviceDataSourceOptions, ServiceSchema } from '@gateway/platform';
import { DataSource } from 'typeorm';
import { keptForAtRestScan } from './at-rest-scan';
import { createDatabase, dropDatabase } from './infra';

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
    poolSize,
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

/** A statement as a node-pg client was given it: its text (whitespace folded), and its name when sent prepared. */
export interface SentStatement {
  text: string;
  name?: string;
}

/**
 * Every statement sent to Postgres while `work` runs (transaction control included), except
 * those on the pg client `except`: how tests see the round trips an operation costs. Counted at
 * node-pg's client, which sees prepared statements and TypeORM's alike; concurrent work is
 * counted too. node-pg takes a statement as its text, or as a config with its text and a name.
 */
export async function sentStatements(work: () => Promise<unknown>, except?: unknown): Promise<SentStatement[]> {
  const query = jest.spyOn(Client.prototype, 'query');
  try {
    await work();
    return query.mock.calls
      .filter((_, i) => query.mock.contexts[i] !== except)
      .map(([sent]: unknown[]) => {
        const { text, name } = typeof sent === 'string' ? { text: sent, name: undefined } : (sent as SentStatement);
        return { text: text.replace(/\s+/g, ' ').trim(), ...(name === undefined ? {} : { name }) };
      });
  } finally {
    query.mockRestore();
  }
}

/**
 * A database of a migration spec's own (`<TEST_DATABASE>_<suffix>`), made before the spec's tests
 * and dropped after them (kept for the at-rest scan when asked), on which the service's schema is
 * opened with some of its migrations: `upTo(migration)` with those before `migration` (a database
 * as the release before it left it), `withAll()` with every one. Call it at the spec's top level:
 * it registers the spec's beforeAll and afterAll.
 */
export function migrationTestDatabase(
  suffix: string,
  schema: ServiceSchema,
): { upTo(migration: unknown): Promise<DataSource>; withAll(): Promise<DataSource> } {
  const database = `${process.env.TEST_DATABASE}_${suffix}`;
  const migrations = schema.migrations as ServiceSchema['migrations'] & unknown[];
  let url: string;
  beforeAll(async () => {
    url = await createDatabase(database);
  }, 60_000);
  afterAll(async () => {
    if (!process.env.TEST_KEEP_DATABASE && !keptForAtRestScan()) {
      await dropDatabase(database);
    }
  });
  const open = (some: unknown[]): Promise<DataSource> =>
    new DataSource(
      serviceDataSourceOptions(
        { ...schema, migrations: some as ServiceSchema['migrations'] },
        { url, poolSize: 2, statementTimeoutMs: 30_000, applicationName: `int-${suffix.replace(/_/g, '-')}` },
      ),
    ).initialize();
  return {
    upTo: (migration) => open(migrations.slice(0, migrations.indexOf(migration))),
    withAll: () => open(migrations),
  };
}
