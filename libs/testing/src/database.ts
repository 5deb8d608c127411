import { Client } from 'pg';
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
