import { SERVICE_DATABASES } from '@gateway/platform';
import type { MigrationInterface } from 'typeorm';
import { recordMigration, RecordedMigration, unsafeStatements } from './migration-safety';
import { SERVICE_SCHEMAS } from './service-schemas';

/**
 * Migrations run against tables in use (docs/decisions/migrations-on-a-live-database.md): an
 * index on an existing table is built CONCURRENTLY outside a transaction, and a constraint
 * added to one is added NOT VALID and validated in a transaction of its own.
 */
const MIGRATIONS = SERVICE_SCHEMAS.flatMap((service) =>
  (service.migrations as (new () => MigrationInterface)[]).map((Migration) => {
    const migration = new Migration();
    return [`${service.schema}: ${migration.name ?? Migration.name}`, migration] as const;
  }),
);

describe('every service migration', () => {
  it('comes from every service schema', () => {
    expect(SERVICE_SCHEMAS.map((s) => s.schema).sort()).toEqual(
      SERVICE_DATABASES.map((d) => d.schema).sort(),
    );
  });

  it.each(MIGRATIONS)('%s can run against tables in use', async (_name, migration) => {
    expect(unsafeStatements(await recordMigration(migration))).toEqual([]);
  });
});

describe('the migration guard', () => {
  const migration = (statements: string[], inTransaction = true): RecordedMigration => ({
    name: 'Probe1700000000000',
    inTransaction,
    statements,
  });

  it.each([
    ['a plain index on an existing table', ['CREATE INDEX t_idx ON s.t (a)'], true, /without CONCURRENTLY/],
    [
      'a plain unique index on an existing table',
      ['CREATE UNIQUE INDEX t_idx ON s.t (a) WHERE a > 0'],
      true,
      /without CONCURRENTLY/,
    ],
    [
      'a concurrent index in a transaction',
      ['CREATE INDEX CONCURRENTLY IF NOT EXISTS t_idx ON s.t (a)'],
      true,
      /transaction = false/,
    ],
    [
      'a check added in one step',
      ['ALTER TABLE s.t ADD COLUMN b int, ADD CONSTRAINT t_b_check CHECK (b >= 0)'],
      true,
      /ADD CHECK on s.t, .* without NOT VALID/,
    ],
    [
      'a foreign key added in one step',
      ['ALTER TABLE s.t ADD CONSTRAINT t_fk FOREIGN KEY (a) REFERENCES s.u (id)'],
      true,
      /ADD FOREIGN KEY on s.t, .* without NOT VALID/,
    ],
    [
      'a unique constraint building its index',
      ['ALTER TABLE s.t ADD CONSTRAINT t_key UNIQUE (a)'],
      true,
      /ADD UNIQUE on s.t, .* without USING INDEX/,
    ],
    [
      'a new column with a check',
      ["ALTER TABLE s.t ADD COLUMN b text CHECK (b <> 'x')"],
      true,
      /constraint on a new column of s.t/,
    ],
    [
      'a check validated in the transaction that added it',
      [
        'ALTER TABLE s.t ADD CONSTRAINT t_check CHECK (a > 0) NOT VALID',
        'ALTER TABLE s.t VALIDATE CONSTRAINT t_check',
      ],
      true,
      /VALIDATE CONSTRAINT in the transaction that altered s.t/,
    ],
  ])('flags %s, naming the migration and the statement', (_case, statements, inTransaction, problem) => {
    const problems = unsafeStatements(migration(statements, inTransaction));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
    expect(problems[0]).toMatch(/^Probe1700000000000: .*: (CREATE|ALTER) /);
  });

  it.each([
    [
      'an index on a table the migration creates',
      ['CREATE TABLE s.t (a int)', 'CREATE UNIQUE INDEX t_idx ON s.t (a)'],
      true,
    ],
    [
      'a concurrent index outside a transaction',
      ['CREATE INDEX CONCURRENTLY IF NOT EXISTS t_idx ON s.t (a)'],
      false,
    ],
    [
      'a check added NOT VALID',
      ['ALTER TABLE s.t ADD COLUMN b int, ADD CONSTRAINT t_b_check CHECK (b >= 0) NOT VALID'],
      true,
    ],
    ['a validation of its own', ['ALTER TABLE s.t VALIDATE CONSTRAINT t_check'], true],
    [
      'a unique constraint on an index built beforehand',
      ['ALTER TABLE s.t ADD CONSTRAINT t_key UNIQUE USING INDEX t_idx'],
      true,
    ],
    [
      'a new column whose default mentions a keyword',
      ["ALTER TABLE s.t ADD COLUMN b text DEFAULT 'CHECK'"],
      true,
    ],
  ])('lets %s pass', (_case, statements, inTransaction) => {
    expect(unsafeStatements(migration(statements, inTransaction))).toEqual([]);
  });

  it('records what up sends, statement by statement, and refuses the QueryRunner API', async () => {
    const recorded = await recordMigration({
      name: 'Probe1700000000000',
      transaction: false,
      up: async (runner) => {
        await runner.query(`CREATE TABLE s.t (a int,\n b text);  CREATE INDEX t_idx ON s.t (a)`);
      },
      down: async () => undefined,
    });
    expect(recorded).toEqual({
      name: 'Probe1700000000000',
      inTransaction: false,
      statements: ['CREATE TABLE s.t (a int, b text)', 'CREATE INDEX t_idx ON s.t (a)'],
    });
    await expect(
      recordMigration({
        name: 'Api1700000000000',
        up: (runner) => runner.dropTable('s.t'),
        down: async () => undefined,
      }),
    ).rejects.toThrow(/Api1700000000000 uses queryRunner.dropTable/);
  });
});
