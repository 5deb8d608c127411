import { createHash } from 'node:crypto';
import { DataSource, MigrationExecutor } from 'typeorm';
import { AppLogger } from '../logging';

/**
 * Runs a service's pending migrations once, however many replicas or migration jobs start
 * at the same moment: each runner first takes a Postgres advisory lock keyed on the schema,
 * so the others wait and then find nothing left to do. The lock and the migrations share one
 * connection, on which the statement timeout is lifted while it works: a runner waits for the
 * lock as long as another one migrates, and a migration statement (an index built over a large
 * table) takes as long as it takes. The connection's own timeout is back before the pool gets
 * it again.
 */
export async function migrateSchema(dataSource: DataSource, logger?: AppLogger): Promise<string[]> {
  const schema = schemaOf(dataSource);
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SET statement_timeout = 0');
    await runner.query('SELECT pg_advisory_lock($1)', [advisoryKey(schema)]);
    const exists = await runner.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (exists.length === 0) {
      await runner.query(`CREATE SCHEMA "${schema}"`);
    }
    const migrations = new MigrationExecutor(dataSource, runner);
    migrations.transaction = 'each';
    const applied = await migrations.executePendingMigrations();
    const names = applied.map((m) => m.name);
    if (names.length > 0) {
      logger?.info({ schema, migrations: names }, 'migrations applied');
    }
    return names;
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [advisoryKey(schema)]).catch(() => undefined);
    await runner.query('RESET statement_timeout').catch(() => undefined);
    await runner.release();
  }
}

/**
 * The statements TypeORM would need to make the database match the entities. Empty after
 * the migrations ran means entities and migrations agree; anything else is drift.
 */
export async function pendingSchemaChanges(dataSource: DataSource): Promise<string[]> {
  const sql = await dataSource.driver.createSchemaBuilder().log();
  return sql.upQueries.map((q) => q.query);
}

function schemaOf(dataSource: DataSource): string {
  const schema = (dataSource.options as { schema?: string }).schema;
  if (!schema || !/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw new Error(`A service DataSource needs a plain schema name, got ${String(schema)}`);
  }
  return schema;
}

function advisoryKey(schema: string): string {
  // pg_advisory_lock takes a bigint; derive a stable one from the schema name.
  return BigInt.asIntN(64, BigInt(`0x${createHash('sha256').update(`migrate:${schema}`).digest('hex').slice(0, 16)}`)).toString();
}
