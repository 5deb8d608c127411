import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, MigrationExecutor, QueryRunner } from 'typeorm';
import { AppLogger } from '../logging';

/** Postgres' lock_timeout of a migration run, unless the caller (DATABASE_MIGRATION_LOCK_TIMEOUT_MS) says otherwise. */
export const DEFAULT_MIGRATION_LOCK_TIMEOUT_MS = 5_000;

/** How a migration run behaves against a database that is serving traffic. */
export interface MigrateOptions {
  logger?: AppLogger;
  /**
   * Longest wait of a migration statement for a lock (Postgres lock_timeout). A DDL statement
   * waiting for its table lock queues every later query on that table behind it, so this wait
   * is what a migration may cost the service's queries; past it the migration is retried.
   */
  lockTimeoutMs?: number;
  /** How many times a migration that ran out of lock_timeout is run again before the run gives up. */
  lockRetries?: number;
  /** The pause before the first retry; doubled for each further retry, with jitter. */
  retryDelayMs?: number;
}

type MigrateSettings = Required<Omit<MigrateOptions, 'logger'>> & Pick<MigrateOptions, 'logger'> & { schema: string };

const DEFAULTS = { lockTimeoutMs: DEFAULT_MIGRATION_LOCK_TIMEOUT_MS, lockRetries: 5, retryDelayMs: 500 };

/** How often a runner asks again for the advisory lock another runner holds. */
const ADVISORY_LOCK_POLL_MS = 250;

/** How often the server checks, while a migration statement runs, that the runner is still there. */
const CLIENT_CHECK_INTERVAL = '1s';

/** SQLSTATE lock_not_available: lock_timeout ran out (or a NOWAIT lock was refused). */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Runs a service's pending migrations once, however many replicas or migration jobs start
 * at the same moment: each runner first takes a Postgres advisory lock keyed on the schema,
 * so the others wait and then find nothing left to do. The lock and the migrations share one
 * connection, on which the statement timeout is lifted while it works: a runner waits for the
 * lock as long as another one migrates, and a migration statement (an index built over a large
 * table) takes as long as it takes. Waiting for a table lock is another matter: a statement
 * queued for its lock behind a long transaction blocks every query on that table behind it, so
 * that wait is bounded (lock_timeout) and the migration retried after a pause (see
 * docs/decisions/migrations-on-a-live-database.md). The connection's own timeouts are back
 * before the pool gets it again.
 */
export async function migrateSchema(dataSource: DataSource, options: MigrateOptions = {}): Promise<string[]> {
  const settings: MigrateSettings = { ...DEFAULTS, ...withoutUndefined(options), schema: schemaOf(dataSource) };
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SET statement_timeout = 0');
    await endWithItsProcess(runner);
    await takeAdvisoryLock(runner, advisoryKey(settings.schema));
    // Only once the advisory lock is held: lock_timeout would bound its wait as well.
    await runner.query(`SELECT set_config('lock_timeout', $1, false)`, [`${settings.lockTimeoutMs}ms`]);
    await ensureSchema(runner, settings.schema);
    const migrations = new MigrationExecutor(dataSource, runner);
    migrations.transaction = 'each';
    const names = await applyPending(migrations, settings);
    if (names.length > 0) {
      settings.logger?.info({ schema: settings.schema, migrations: names }, 'migrations applied');
    }
    return names;
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [advisoryKey(settings.schema)]).catch(() => undefined);
    await runner.query('RESET statement_timeout').catch(() => undefined);
    await runner.query('RESET lock_timeout').catch(() => undefined);
    await runner.query('RESET client_connection_check_interval').catch(() => undefined);
    await runner.release();
  }
}

/**
 * A runner's process stopped while one of its statements runs (SIGTERM, a deleted pod's SIGKILL)
 * would otherwise leave its session behind: Postgres reads from the client between statements
 * only, so the statement runs on (a lock wait until lock_timeout, an index build to its end),
 * with the migration's transaction open and the advisory lock held, and the next run waits for
 * it. With client_connection_check_interval (Postgres 14 and later, on Linux) the server looks
 * for the client every second while a statement runs: the session ends, its transaction rolls
 * back (the migrations committed before it stay) and the lock is free for the next run, which
 * applies the rest. Servers without the setting, or where it cannot be set (another platform),
 * keep the old wait: nothing fails for it.
 */
async function endWithItsProcess(runner: QueryRunner): Promise<void> {
  await runner
    .query(
      `SELECT set_config('client_connection_check_interval', '${CLIENT_CHECK_INTERVAL}', false)
       WHERE current_setting('client_connection_check_interval', true) IS NOT NULL`,
    )
    .catch(() => undefined);
}

/**
 * Waits for the schema's advisory lock by asking for it again and again, not in one
 * pg_advisory_lock call: a session blocked in a statement holds that statement's snapshot, and
 * CREATE INDEX CONCURRENTLY waits for every older snapshot in the database, so the runner
 * holding the lock would wait for the one waiting for it (a deadlock Postgres breaks by failing
 * one of them, or the holder's lock_timeout running out until it gives up). Between two
 * attempts this session is in no statement at all.
 */
async function takeAdvisoryLock(runner: QueryRunner, key: string): Promise<void> {
  for (;;) {
    const [{ locked }] = (await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [key])) as { locked: boolean }[];
    if (locked) {
      return;
    }
    await sleep(ADVISORY_LOCK_POLL_MS);
  }
}

async function ensureSchema(runner: QueryRunner, schema: string): Promise<void> {
  const exists = await runner.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  if (exists.length === 0) {
    await runner.query(`CREATE SCHEMA "${schema}"`);
  }
}

/**
 * Applies the pending migrations, each in a transaction of its own (or in none, when it says
 * `transaction = false`) and returns their names. When one runs out of lock_timeout, the ones
 * before it stay applied and it is rolled back whole (a migration outside a transaction heals
 * what it left on its next run), so it is simply run again after a pause, up to lockRetries
 * times. The advisory lock stays held meanwhile: no other runner starts in between.
 */
async function applyPending(migrations: MigrationExecutor, settings: MigrateSettings): Promise<string[]> {
  const pending = (await migrations.getPendingMigrations()).map((m) => m.name);
  let failing = { name: '', retries: 0 };
  for (;;) {
    try {
      await migrations.executePendingMigrations();
      return pending;
    } catch (err) {
      if (!isLockTimeout(err)) {
        throw err;
      }
      // Migrations run in order and stop at the first failure: the failed one is now the first pending.
      const [next] = await migrations.getPendingMigrations();
      const name = next?.name ?? 'schema_migrations bookkeeping';
      failing = { name, retries: failing.name === name ? failing.retries + 1 : 1 };
      if (failing.retries > settings.lockRetries) {
        throw gaveUp(name, settings, err);
      }
      const delayMs = backoffMs(failing.retries, settings.retryDelayMs);
      settings.logger?.warn(
        {
          schema: settings.schema,
          migration: name,
          retry: failing.retries,
          of: settings.lockRetries,
          delayMs,
          lockTimeoutMs: settings.lockTimeoutMs,
        },
        'migration timed out waiting for a lock; retrying it',
      );
      await sleep(delayMs);
    }
  }
}

/**
 * Exponential, with half of each pause random: the transaction in the way may be a periodic
 * job's, and retries at fixed intervals could keep meeting it.
 */
function backoffMs(retry: number, firstDelayMs: number): number {
  return Math.round(firstDelayMs * 2 ** (retry - 1) * (0.5 + Math.random() / 2));
}

function gaveUp(migration: string, settings: MigrateSettings, cause: unknown): Error {
  return new Error(
    `Migration ${migration} (schema ${settings.schema}) not applied: it waited ${settings.lockTimeoutMs} ms for a lock ` +
      `${settings.lockRetries + 1} times, held each time by another session (a long transaction on its table?). ` +
      'Nothing of it was recorded; find the blocking session (pg_stat_activity, pg_blocking_pids) and run the migrations again.',
    { cause },
  );
}

function isLockTimeout(err: unknown): boolean {
  // TypeORM wraps the driver's error (QueryFailedError.driverError) and copies its code.
  const { code, driverError } = (err ?? {}) as { code?: unknown; driverError?: { code?: unknown } };
  return code === LOCK_NOT_AVAILABLE || driverError?.code === LOCK_NOT_AVAILABLE;
}

function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
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
