import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { AppLogger } from '../logging';
import { createIndexConcurrently } from './concurrent-index';
import { migrateSchema } from './migrate';
import { createServiceDataSource } from './service-data-source';

/**
 * migrateSchema against the integration run's Postgres, in schemas of this file's own, with
 * a statement timeout far shorter than its slow migration (a second, as an index built over a
 * large table would be), and a lock timeout and backoffs short enough for tests to wait out.
 */
const schema = `migrate_${randomBytes(4).toString('hex')}`;
const STATEMENT_TIMEOUT_MS = 300;
const LOCK_TIMEOUT_MS = 200;
const FAST_RETRIES = { lockTimeoutMs: LOCK_TIMEOUT_MS, retryDelayMs: 50 };

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
const schemas = [schema];

async function open(
  schemaName: string,
  migrations: (new () => MigrationInterface)[],
  poolSize = 2,
  role = 'runner',
): Promise<DataSource> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    throw new Error('TEST_DATABASE_URL is not set: run integration tests with `jest --selectProjects int`.');
  }
  const dataSource = createServiceDataSource(
    { schema: schemaName, entities: [], migrations },
    { url, poolSize, statementTimeoutMs: STATEMENT_TIMEOUT_MS, applicationName: `int-${schemaName}-${role}` },
  );
  opened.push(await dataSource.initialize());
  return dataSource;
}

async function replica(poolSize = 2): Promise<DataSource> {
  return open(schema, [SlowMigration1700000000000], poolSize);
}

afterAll(async () => {
  for (const name of schemas) {
    await opened[0]?.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  }
  await Promise.all(opened.map((d) => d.destroy()));
});

async function expectPoolTimeouts(dataSource: DataSource): Promise<void> {
  expect(await dataSource.query('SHOW statement_timeout')).toEqual([
    { statement_timeout: `${STATEMENT_TIMEOUT_MS}ms` },
  ]);
  expect(await dataSource.query('SHOW lock_timeout')).toEqual([{ lock_timeout: '0' }]);
}

describe('migrateSchema', () => {
  it('runs a migration longer than the statement timeout once, while another runner waits for the lock as long', async () => {
    const [first, second] = await Promise.all([replica(), replica()]);

    // The second runner waits for the advisory lock far longer than a lock timeout: that wait is not bounded.
    const applied = await Promise.all([
      migrateSchema(first),
      migrateSchema(second, { lockTimeoutMs: LOCK_TIMEOUT_MS }),
    ]);

    expect(applied.flat()).toEqual(['SlowMigration1700000000000']);
    expect(await first.query(`SELECT count(*)::int AS n FROM "${schema}".schema_migrations`)).toEqual([
      { n: 1 },
    ]);
  });

  it('gives the connection back with its statement and lock timeouts', async () => {
    const only = await replica(1);
    expect(await migrateSchema(only)).toEqual([]);
    await expectPoolTimeouts(only);
  });
});

/**
 * Another session's transaction that holds a lock on a table of a schema of the test's own
 * (one row in `items`) while the test migrates it. Its lock is one that the migration's
 * statement waits for: a read's ACCESS SHARE holds off an ALTER TABLE, a write's ROW
 * EXCLUSIVE holds off the end of a CREATE INDEX CONCURRENTLY.
 */
async function tableInUse(lock: 'read' | 'write') {
  const name = `${schema}_${randomBytes(3).toString('hex')}`;
  schemas.push(name);
  const other = await open(name, [], 3, 'other');
  await other.query(`CREATE SCHEMA "${name}"`);
  await other.query(`CREATE TABLE "${name}".items (id text PRIMARY KEY, note text)`);
  await other.query(`INSERT INTO "${name}".items VALUES ('a', 'first')`);
  const blocker = other.createQueryRunner();
  await blocker.startTransaction();
  await blocker.query(
    lock === 'read'
      ? `SELECT count(*) FROM "${name}".items`
      : `INSERT INTO "${name}".items VALUES ('b', NULL)`,
  );
  let ended = false;
  return {
    name,
    other,
    /** Commits the blocking transaction (once; later calls do nothing). */
    end: async () => {
      if (!ended) {
        ended = true;
        await blocker.commitTransaction();
        await blocker.release();
      }
    },
    /** Resolves once a session of `dataSource` waits for a lock. */
    waitedOnBy: async (dataSource: DataSource) => {
      const applicationName = (dataSource.options as { applicationName: string }).applicationName;
      for (let tries = 0; tries < 100; tries++) {
        const waiting = await other.query(
          'SELECT 1 FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE NOT l.granted AND a.application_name = $1',
          [applicationName],
        );
        if (waiting.length > 0) {
          return;
        }
        await sleep(10);
      }
      throw new Error(`${applicationName} never waited for a lock`);
    },
  };
}

/** A logger that keeps the retry warnings, and tells when the first one came. */
function retryLog() {
  const warnings: Record<string, unknown>[] = [];
  let firstRetry!: () => void;
  const retried = new Promise<void>((resolve) => (firstRetry = resolve));
  const logger = {
    info: () => undefined,
    warn: (fields: Record<string, unknown>) => {
      warnings.push(fields);
      firstRetry();
    },
  } as unknown as AppLogger;
  return { logger, warnings, retried };
}

/** A migration named `name` (ending in the timestamp TypeORM orders migrations by) that runs `up`. */
function migration(
  name: string,
  up: (queryRunner: QueryRunner) => Promise<unknown>,
  transaction?: false,
): new () => MigrationInterface {
  return class {
    name = name;
    transaction = transaction;
    up = async (queryRunner: QueryRunner) => void (await up(queryRunner));
    down = async () => undefined;
  };
}

/** A new table: no lock on the existing ones. */
const addTags = (name: string) =>
  migration('AddTags1700000000001', (q) => q.query(`CREATE TABLE "${name}".tags (id text PRIMARY KEY)`));
/** ACCESS EXCLUSIVE on items, for an instant once granted. */
const addLabel = (name: string) =>
  migration('AddLabel1700000000002', (q) => q.query(`ALTER TABLE "${name}".items ADD COLUMN label text`));
const addNoteIndex = (name: string) =>
  migration(
    'AddNoteIndex1700000000002',
    (q) => createIndexConcurrently(q, { name: 'items_note_idx', table: `${name}.items`, keys: '(note)' }),
    false,
  );

describe('migrateSchema, two runners at once', () => {
  it('builds an index CONCURRENTLY while a second runner waits for the advisory lock, and both succeed', async () => {
    const name = `${schema}_${randomBytes(3).toString('hex')}`;
    schemas.push(name);
    const setup = await open(name, [], 1, 'setup');
    await setup.query(`CREATE SCHEMA "${name}"`);
    await setup.query(`CREATE TABLE "${name}".items (id text PRIMARY KEY, note text)`);
    // Long enough a build that the second runner is waiting for the advisory lock meanwhile.
    const slowIndex = migration(
      'AddNoteIndex1700000000002',
      async (q) => {
        await q.query('SELECT pg_sleep(0.5)');
        await createIndexConcurrently(q, { name: 'items_note_idx', table: `${name}.items`, keys: '(note)' });
      },
      false,
    );
    const [first, second] = await Promise.all([open(name, [slowIndex], 1, 'first'), open(name, [slowIndex], 1, 'second')]);

    const runs = await Promise.allSettled([
      migrateSchema(first, FAST_RETRIES),
      sleep(100).then(() => migrateSchema(second, FAST_RETRIES)),
    ]);

    expect(runs.map((r) => (r.status === 'fulfilled' ? r.value : String(r.reason)))).toEqual([['AddNoteIndex1700000000002'], []]);
    expect(
      await setup.query(
        `SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         WHERE c.relnamespace = $1::regnamespace AND c.relname = 'items_note_idx'`,
        [name],
      ),
    ).toEqual([{ valid: true }]);
  }, 15_000);
});

describe('migrateSchema on a table in use', () => {
  it('lets readers through after the lock timeout, retries the migration, and applies it once the transaction in its way ends', async () => {
    const table = await tableInUse('read');
    try {
      const migrating = await open(table.name, [addTags(table.name), addLabel(table.name)], 1);
      const { logger, warnings, retried } = retryLog();

      const applying = migrateSchema(migrating, { logger, ...FAST_RETRIES });
      applying.catch(() => undefined);
      await table.waitedOnBy(migrating);
      // A reader queues behind the waiting ALTER, so it waits as long as the ALTER does.
      const started = Date.now();
      const reading = table.other
        .query(`SELECT count(*)::int AS n FROM "${table.name}".items`)
        .then(() => Date.now() - started);
      await Promise.race([retried, sleep(3_000, undefined, { ref: false })]);
      await table.end();

      expect(await applying).toEqual(['AddTags1700000000001', 'AddLabel1700000000002']);
      expect(await reading).toBeLessThan(2 * LOCK_TIMEOUT_MS);
      expect(warnings[0]).toMatchObject({
        schema: table.name,
        migration: 'AddLabel1700000000002',
        retry: 1,
        lockTimeoutMs: LOCK_TIMEOUT_MS,
      });
      expect(await table.other.query(`SELECT label FROM "${table.name}".items WHERE id = 'a'`)).toEqual([
        { label: null },
      ]);
      await expectPoolTimeouts(migrating);
    } finally {
      await table.end();
    }
  }, 10_000);

  it('gives up after the bounded retries, naming the migration, and records only the migrations before it', async () => {
    const table = await tableInUse('read');
    try {
      const migrating = await open(table.name, [addTags(table.name), addLabel(table.name)], 1);
      const { logger, warnings } = retryLog();

      await expect(migrateSchema(migrating, { logger, ...FAST_RETRIES, lockRetries: 2 })).rejects.toThrow(
        /^Migration AddLabel1700000000002 \(schema \S+\) not applied: it waited 200 ms for a lock 3 times/,
      );

      expect(warnings.map((w) => [w.migration, w.retry])).toEqual([
        ['AddLabel1700000000002', 1],
        ['AddLabel1700000000002', 2],
      ]);
      expect(await migrating.query(`SELECT name FROM "${table.name}".schema_migrations`)).toEqual([
        { name: 'AddTags1700000000001' },
      ]);
      await expectPoolTimeouts(migrating);
    } finally {
      await table.end();
    }
  }, 10_000);

  it('ends with a valid index when a concurrent build timed out and left an invalid one', async () => {
    const table = await tableInUse('write');
    try {
      const migrating = await open(table.name, [addNoteIndex(table.name)], 1);
      const { logger, warnings, retried } = retryLog();
      const indexes = () =>
        table.other.query(
          `SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
           WHERE c.relnamespace = $1::regnamespace AND c.relname = 'items_note_idx'`,
          [table.name],
        );

      const applying = migrateSchema(migrating, { logger, ...FAST_RETRIES });
      applying.catch(() => undefined);
      await Promise.race([retried, sleep(3_000, undefined, { ref: false })]);
      const leftover = await indexes();
      await table.end();

      expect(await applying).toEqual(['AddNoteIndex1700000000002']);
      expect(warnings[0]).toMatchObject({ migration: 'AddNoteIndex1700000000002', retry: 1 });
      expect(leftover).toEqual([{ valid: false }]);
      expect(await indexes()).toEqual([{ valid: true }]);
      await expectPoolTimeouts(migrating);
    } finally {
      await table.end();
    }
  }, 10_000);
});
