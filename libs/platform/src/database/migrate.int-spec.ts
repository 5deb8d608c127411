import { randomBytes } from 'node:crypto';
import { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { migrateSchema } from './migrate';
import { createServiceDataSource } from './service-data-source';

/**
 * migrateSchema against the integration run's Postgres, in a schema of this file's own, with
 * a statement timeout far shorter than its one migration (a second, as an index built over a
 * large table would be).
 */
const schema = `migrate_${randomBytes(4).toString('hex')}`;
const STATEMENT_TIMEOUT_MS = 300;

class SlowMigration1700000000000 implements MigrationInterface {
  name = 'SlowMigration1700000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('SELECT pg_sleep(1)');
    await queryRunner.query(`CREATE TABLE "${schema}".items (id text PRIMARY KEY)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "${schema}".items`);
  }
}

const opened: DataSource[] = [];

async function replica(poolSize = 2): Promise<DataSource> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    throw new Error('TEST_DATABASE_URL is not set: run integration tests with `jest --selectProjects int`.');
  }
  const dataSource = createServiceDataSource(
    { schema, entities: [], migrations: [SlowMigration1700000000000] },
    { url, poolSize, statementTimeoutMs: STATEMENT_TIMEOUT_MS, applicationName: `int-${schema}` },
  );
  opened.push(await dataSource.initialize());
  return dataSource;
}

afterAll(async () => {
  await opened[0]?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await Promise.all(opened.map((d) => d.destroy()));
});

describe('migrateSchema', () => {
  it('runs a migration longer than the statement timeout once, while another runner waits for the lock as long', async () => {
    const [first, second] = await Promise.all([replica(), replica()]);

    const applied = await Promise.all([migrateSchema(first), migrateSchema(second)]);

    expect(applied.flat()).toEqual(['SlowMigration1700000000000']);
    expect(await first.query(`SELECT count(*)::int AS n FROM "${schema}".schema_migrations`)).toEqual([{ n: 1 }]);
  });

  it('gives the connection back with its statement timeout', async () => {
    const only = await replica(1);
    expect(await migrateSchema(only)).toEqual([]);
    expect(await only.query('SHOW statement_timeout')).toEqual([{ statement_timeout: `${STATEMENT_TIMEOUT_MS}ms` }]);
  });
});
