import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppLogger } from '../logging';

/**
 * Runs a service's pending migrations once, however many replicas or migration jobs start
 * at the same moment: each runner first takes a Postgres advisory lock keyed on the schema
 * (on a connection of its own, held until it is done), so the others wait and then find
 * nothing left to do. The DataSource's pool needs two connections: one holds the lock while
 * the other applies the migrations.
 */
export async function migrateSchema(dataSource: DataSource, logger?: AppLogger): Promise<string[]> {
  const schema = schemaOf(dataSource);
  const lockRunner = dataSource.createQueryRunner();
  await lockRunner.connect();
  try {
    await lockRunner.query('SELECT pg_advisory_lock($1)', [advisoryKey(schema)]);
    const exists = await lockRunner.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (exists.length === 0) {
      await lockRunner.query(`CREATE SCHEMA "${schema}"`);
    }
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    const names = applied.map((m) => m.name);
    if (names.length > 0) {
      logger?.info({ schema, migrations: names }, 'migrations applied');
    }
    return names;
  } finally {
    await lockRunner.query('SELECT pg_advisory_unlock($1)', [advisoryKey(schema)]).catch(() => undefined);
    await lockRunner.release();
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
