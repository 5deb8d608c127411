import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { inTransaction, PreparedStatement } from './prepared-statement';

/**
 * PreparedStatement against the integration run's Postgres: a table of this file's own in a
 * schema of its own, dropped at the end.
 */
const schema = `prepared_${randomBytes(4).toString('hex')}`;
let dataSource: DataSource;

const INSERT = new PreparedStatement(`INSERT INTO ${schema}.items (id, amount) VALUES ($1, $2::numeric) RETURNING id, amount::text AS amount`);
const COUNT = new PreparedStatement(`SELECT count(*)::int AS n FROM ${schema}.items WHERE id LIKE $1`);
/** The statements this session has prepared (Postgres keeps them per connection). */
const PREPARED_HERE = 'SELECT name, statement FROM pg_prepared_statements';

beforeAll(async () => {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    throw new Error('TEST_DATABASE_URL is not set: run integration tests with `jest --selectProjects int`.');
  }
  dataSource = await new DataSource({ type: 'postgres', url, poolSize: 2 }).initialize();
  await dataSource.query(`CREATE SCHEMA ${schema}`);
  await dataSource.query(`CREATE TABLE ${schema}.items (id text PRIMARY KEY, amount numeric(17,4) NOT NULL)`);
  await dataSource.query(`CREATE TABLE ${schema}.labels (id text PRIMARY KEY, label varchar(10) NOT NULL)`);
  await dataSource.query(`INSERT INTO ${schema}.labels VALUES ('a', 'short')`);
});

afterAll(async () => {
  await dataSource?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await dataSource?.destroy();
});

describe('PreparedStatement', () => {
  it('is named after its text: the same text the same name, another text another', () => {
    expect(new PreparedStatement(INSERT.text).name).toBe(INSERT.name);
    expect(COUNT.name).not.toBe(INSERT.name);
    expect(INSERT.name).toMatch(/^gw_[0-9a-f]{24}$/);
  });

  it('runs in autocommit outside a transaction, and is prepared on the connection that ran it', async () => {
    expect(await INSERT.rows(dataSource.manager, ['auto-1', '10.50'])).toEqual([{ id: 'auto-1', amount: '10.5000' }]);
    // Seen by another statement at once: committed.
    expect(await COUNT.rows(dataSource.manager, ['auto-%'])).toEqual([{ n: 1 }]);

    await dataSource.transaction(async (manager) => {
      await INSERT.rowCount(manager, ['tx-probe', '0']);
      const prepared: { name: string; statement: string }[] = await manager.query(PREPARED_HERE);
      expect(prepared).toContainEqual({ name: INSERT.name, statement: INSERT.text });
      throw new RollbackProbe();
    }).catch((err) => expect(err).toBeInstanceOf(RollbackProbe));
  });

  it('runs on the transaction\'s connection inside one: a rollback undoes it', async () => {
    await dataSource
      .transaction(async (manager) => {
        expect(await INSERT.rowCount(manager, ['rolled-back', '1'])).toBe(1);
        expect(await COUNT.rows(manager, ['rolled-back'])).toEqual([{ n: 1 }]);
        expect(await COUNT.rows(dataSource.manager, ['rolled-back'])).toEqual([{ n: 0 }]);
        throw new RollbackProbe();
      })
      .catch((err) => expect(err).toBeInstanceOf(RollbackProbe));
    expect(await COUNT.rows(dataSource.manager, ['rolled-back'])).toEqual([{ n: 0 }]);
  });

  it('answers errors as node-pg reports them, with their SQLSTATE and constraint', async () => {
    await INSERT.rowCount(dataSource.manager, ['dup', '1']);
    await expect(INSERT.rowCount(dataSource.manager, ['dup', '2'])).rejects.toMatchObject({ code: '23505', constraint: 'items_pkey' });
  });
});

describe('a prepared plan gone stale under a migration (a column it returns changed type)', () => {
  const LABEL = new PreparedStatement(`SELECT label FROM ${schema}.labels WHERE id = $1`);

  it('is prepared afresh: at once outside a transaction, by one retry of the transaction inside one, on every connection', async () => {
    // Both pooled connections prepare it: two transactions at once hold one each.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const both = [0, 1].map(() =>
      dataSource.transaction(async (manager) => {
        await LABEL.rows(manager, ['a']);
        await held;
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    await Promise.all(both);

    // What another replica's migration does while this one serves.
    await dataSource.query(`ALTER TABLE ${schema}.labels ALTER COLUMN label TYPE varchar(40)`);

    expect(await LABEL.rows(dataSource.manager, ['a'])).toEqual([{ label: 'short' }]);
    let attempts = 0;
    const inside = await inTransaction(dataSource, (manager) => {
      attempts += 1;
      return LABEL.rows(manager, ['a']);
    });
    expect(inside).toEqual([{ label: 'short' }]);
    expect(attempts).toBeLessThanOrEqual(2);
    // Whichever connection the pool hands out next has it prepared afresh too.
    const again = await Promise.all([0, 1].map(() => dataSource.transaction((manager) => LABEL.rows(manager, ['a']))));
    expect(again).toEqual([[{ label: 'short' }], [{ label: 'short' }]]);
  });
});

describe('a prepared plan gone stale after its first run on a connection failed', () => {
  const LABELLED = new PreparedStatement(`INSERT INTO ${schema}.labels (id, label) VALUES ($1, $2) RETURNING label`);

  it('is prepared afresh all the same', async () => {
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      // Its first run on this connection fails (the id is taken), yet it stays prepared there.
      await expect(LABELLED.rows(runner.manager, ['a', 'again'])).rejects.toMatchObject({ code: '23505' });
      await dataSource.query(`ALTER TABLE ${schema}.labels ALTER COLUMN label TYPE varchar(60)`);
      // On a connection held outside a transaction (LedgerRepository.onConnection) it is prepared afresh at once.
      expect(await LABELLED.rows(runner.manager, ['c', 'third'])).toEqual([{ label: 'third' }]);

      await dataSource.query(`ALTER TABLE ${schema}.labels ALTER COLUMN label TYPE varchar(80)`);
      // In a transaction the refusal, which aborted it, is answered (and recorded)...
      await runner.startTransaction();
      await expect(LABELLED.rows(runner.manager, ['d', 'fourth'])).rejects.toMatchObject({ code: '0A000' });
      await runner.rollbackTransaction();
      // ...and the next run on the same connection prepares the statement afresh.
      expect(await LABELLED.rows(runner.manager, ['d', 'fourth'])).toEqual([{ label: 'fourth' }]);
    } finally {
      await runner.release();
    }
  });
});

class RollbackProbe extends Error {}
