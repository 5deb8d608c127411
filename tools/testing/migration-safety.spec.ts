import { SERVICE_DATABASES } from '@gateway/platform';
import type { MigrationInterface } from 'typeorm';
import { recordMigration, RecordedMigration, unsafeStatements } from './migration-safety';
import { SERVICE_SCHEMAS } from './service-schemas';

/**
 * Migrations run against tables in use (docs/decisions/migrations-on-a-live-database.md): an
 * index on an existing table is built CONCURRENTLY outside a transaction, and a constraint
 * added to one is added NOT VALID and validated in a transaction of its own.
 */
const MIGRATIONS = SERVICE_SCHEMAS.flatMap((service) => {
  const migrations = (service.migrations as (new () => MigrationInterface)[]).map((Migration) => new Migration());
  // Each with the service's migrations before it, in the order they run.
  return migrations.map((migration, i) => [`${service.schema}: ${migration.name ?? migration.constructor.name}`, migration, migrations.slice(0, i)] as const);
});

describe('every service migration', () => {
  it('comes from every service schema', () => {
    expect(SERVICE_SCHEMAS.map((s) => s.schema).sort()).toEqual(
      SERVICE_DATABASES.map((d) => d.schema).sort(),
    );
  });

  it.each(MIGRATIONS)('%s can run against tables in use', async (_name, migration, earlier) => {
    const before = await Promise.all(earlier.map((m) => recordMigration(m)));
    expect(unsafeStatements(await recordMigration(migration), before)).toEqual([]);
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
    [
      'a new column whose default is volatile',
      ['ALTER TABLE s.t ADD COLUMN b uuid DEFAULT gen_random_uuid()'],
      true,
      /default calls gen_random_uuid\(\), which may be volatile \(Postgres writes every row/,
    ],
    [
      'a new column whose default is clock_timestamp()',
      ['ALTER TABLE s.t ADD COLUMN b timestamptz NOT NULL DEFAULT clock_timestamp()'],
      true,
      /default calls clock_timestamp\(\)/,
    ],
    ['a new serial column', ['ALTER TABLE s.t ADD COLUMN b bigserial'], true, /a bigserial column added to s.t/],
    [
      'a new identity column',
      ['ALTER TABLE s.t ADD COLUMN b bigint GENERATED ALWAYS AS IDENTITY'],
      true,
      /an identity or stored generated column added to s.t/,
    ],
    [
      'a new stored generated column',
      ['ALTER TABLE s.t ADD COLUMN b int GENERATED ALWAYS AS (a * 2) STORED'],
      true,
      /an identity or stored generated column added to s.t/,
    ],
    [
      'a new NOT NULL column without a default',
      ['ALTER TABLE s.t ADD COLUMN b varchar(4) NOT NULL'],
      true,
      /a NOT NULL column without a default added to s.t/,
    ],
    ['SET NOT NULL with no check before it', ['ALTER TABLE s.t ALTER COLUMN a SET NOT NULL'], true, /SET NOT NULL on s.t, .* without a validated CHECK \(a IS NOT NULL\)/],
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
    ["a new NOT NULL column with a constant default", ["ALTER TABLE s.t ADD COLUMN b varchar(4) NOT NULL DEFAULT 'TEST'"], true],
    ['a new column whose default is now()', ['ALTER TABLE s.t ADD COLUMN b timestamptz NOT NULL DEFAULT now()'], true],
    ["a new column whose default is cast", ["ALTER TABLE s.t ADD COLUMN b numeric(17,4) DEFAULT '0'::numeric(17,4) NOT NULL"], true],
    ['a new nullable column of a sized type', ['ALTER TABLE s.t ADD COLUMN b numeric(17,4)'], true],
    ["a new column whose default is cast to character varying(n)", ["ALTER TABLE s.t ADD COLUMN b varchar(4) NOT NULL DEFAULT 'TEST'::character varying(4)"], true],
    ['a serial column of a new table', ['CREATE TABLE s.u (id bigserial PRIMARY KEY)', 'ALTER TABLE s.u ADD COLUMN b bigserial'], true],
  ])('lets %s pass', (_case, statements, inTransaction) => {
    expect(unsafeStatements(migration(statements, inTransaction))).toEqual([]);
  });

  describe('SET NOT NULL', () => {
    const setNotNull = migration(['ALTER TABLE s.t ALTER COLUMN a SET NOT NULL']);
    const earlier = (statements: string[]): RecordedMigration => ({ name: 'Earlier1600000000000', inTransaction: true, statements });

    it('passes once an earlier migration validated a CHECK (column IS NOT NULL): Postgres then skips the scan', () => {
      const added = earlier(['ALTER TABLE s.t ADD CONSTRAINT t_a_not_null CHECK (a IS NOT NULL) NOT VALID']);
      const validated = earlier(['ALTER TABLE s.t VALIDATE CONSTRAINT t_a_not_null']);
      expect(unsafeStatements(setNotNull, [added, validated])).toEqual([]);
    });

    it.each([
      ['the check not validated', ['ALTER TABLE s.t ADD CONSTRAINT t_a_not_null CHECK (a IS NOT NULL) NOT VALID']],
      ['the check on another column', ['ALTER TABLE s.t ADD CONSTRAINT t_b_not_null CHECK (b IS NOT NULL)']],
      ['the check on another table', ['ALTER TABLE s.u ADD CONSTRAINT u_a_not_null CHECK (a IS NOT NULL)']],
      ['the check dropped since', ['ALTER TABLE s.t ADD CONSTRAINT t_a_not_null CHECK (a IS NOT NULL)', 'ALTER TABLE s.t DROP CONSTRAINT t_a_not_null']],
    ])('is flagged with %s', (_case, statements) => {
      expect(unsafeStatements(setNotNull, [earlier(statements)])).toEqual([expect.stringMatching(/SET NOT NULL on s.t/)]);
    });
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
