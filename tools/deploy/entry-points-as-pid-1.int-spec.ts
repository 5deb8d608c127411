import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, Server, Socket } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import type { MigrationInterface } from 'typeorm';
import { BROWSER_PAYMENT_SCHEMA } from '@gateway/browser-payment/data-access';
import { createLogger, createServiceDataSource, DatabaseConfig, loadConfig, migrateSchema, runMigrateCommand } from '@gateway/platform';
import { createDatabase, databaseUrl, dropDatabase, newRunId, testInfra, waitFor } from '@gateway/testing';

jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '../..');

/**
 * The images run `node main.js` as their container's PID 1, with no init (docker/Dockerfile's
 * ENTRYPOINT; Kubernetes has no `--init`), and the kernel gives PID 1 no default action for a
 * signal it has no handler for: a main that does not handle SIGTERM itself is never stopped by
 * `kubectl delete pod` or a rollout, only SIGKILLed at the end of the grace period. Each main runs
 * here as PID 1 of a PID namespace of its own (`unshare --pid --fork --mount-proc`, as root: this
 * machine and CI), from its sources, waiting for a database that accepts its connection and never
 * answers (as one still starting), and gets SIGTERM from outside the namespace, as the container
 * runtime sends it. No fallback: where unshare cannot run, the test fails and says why.
 */
/** An app's main run from its sources as PID 1 of a PID namespace of its own. */
interface Pid1Run {
  child: ChildProcess;
  /** Everything it wrote, stdout and stderr. */
  output(): string;
  /** Its exit status (null when unshare could not run it). */
  exited: Promise<number | null>;
  /** The app's pid outside the namespace, checked to be PID 1 inside it. */
  main(): number;
}

const runs: ChildProcess[] = [];

function startAsPid1(app: string, args: readonly string[], env: Record<string, string>): Pid1Run {
  const child = spawn('unshare', ['--pid', '--fork', '--mount-proc', '--kill-child', process.execPath, '-r', './tools/scripts/register-ts.cjs', `apps/${app}/src/main.ts`, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  runs.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.once('error', (err) => (output += `unshare: ${err.message}\n`));
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (status) => resolve(status));
    child.once('error', () => resolve(null));
  });
  return {
    child,
    output: () => output,
    exited,
    main: () => {
      // unshare's only child: the app, PID 1 in its namespace.
      const [main] = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
      expect(readFileSync(`/proc/${main}/status`, 'utf8')).toMatch(/^NSpid:\s+\d+\s+1$/m);
      return main;
    },
  };
}

/** Its exit status, or what it was still doing 10 s after the signal. */
function exitWithin3s(run: Pid1Run): Promise<number | null | string> {
  return Promise.race([run.exited, sleep(10_000, 'still running 10 s after SIGTERM', { ref: false })]);
}

afterAll(() => {
  // --kill-child: SIGKILL to unshare ends the namespace too.
  for (const child of runs) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

describe('the images’ entry points as PID 1 (a container with no init)', () => {
  let database: Server;
  let port: number;
  const connections: Socket[] = [];

  beforeAll(async () => {
    database = createServer((socket) => connections.push(socket));
    await new Promise<void>((resolve) => database.listen(0, '127.0.0.1', resolve));
    port = (database.address() as { port: number }).port;
  });

  afterAll(() => {
    for (const socket of connections) socket.destroy();
    database.close();
  });

  it.each([
    // The admin image: the migration Job's first step, and the operator's `kubectl run -it` pod.
    ['admin', ['list'], { DATABASE_URL: 'edge', API_PASSWORD_PEPPER: 'p'.repeat(32) }, 143],
    // A service image (each runs runServiceMain, the edge its own main with exitOnSignals first):
    // still starting, so nothing to drain: it exits at once, 0.
    ['verification', [], { DATABASE_URL: 'verification' }, 0],
    // The migration Job's steps (the last one's status is the Job's) and the operators'
    // one-shots, stopped before their work is done: interrupted, never 0, which the Job would
    // count as complete.
    ['verification', ['migrate'], { DATABASE_URL: 'verification' }, 143],
    ['api-edge', ['migrate'], { DATABASE_URL: 'edge' }, 143],
    ['order-transaction', ['transactions', 'unresolved', '--older-than-minutes', '60'], { DATABASE_URL: 'order_transaction' }, 143],
  ] as const)('%s %j stops on SIGTERM while waiting for its database', async (app, args, env, code) => {
    const before = connections.length;
    const run = startAsPid1(app, args, { ...env, DATABASE_URL: `postgres://${env.DATABASE_URL}:x@127.0.0.1:${port}/gateway` });
    await waitFor(async () => connections.length > before || run.child.exitCode !== null || run.child.pid === undefined, { timeoutMs: 30_000, what: `${app} to connect to its database` });
    expect([app, run.child.exitCode, run.output()]).toEqual([app, null, expect.anything()]);
    expect(connections.length).toBeGreaterThan(before);

    process.kill(run.main(), 'SIGTERM');
    // Well before its database connection's own timeout would end it.
    expect([app, await exitWithin3s(run), run.output()]).toEqual([app, code, expect.anything()]);
  });
});

/**
 * The migration Job's step stopped mid-run (its pod deleted, the node drained) against a real
 * Postgres, in a database and role of this file's own: browser-payment's release applies one
 * migration (new tables), then waits to ALTER a table a long transaction reads. Each migration
 * runs in a transaction of its own, so the run is half done when SIGTERM comes.
 */
describe('a migration run stopped by SIGTERM while a migration waits for a lock', () => {
  const name = `gw_migrate_${newRunId()}`;
  let admin: Client;
  let url: string;

  beforeAll(async () => {
    admin = new Client({ connectionString: testInfra.pgAdminUrl });
    await admin.connect();
    await admin.query(`CREATE ROLE "${name}" LOGIN PASSWORD 'migrate'`);
    await createDatabase(name);
    await admin.query(`ALTER DATABASE "${name}" OWNER TO "${name}"`);
    const target = new URL(databaseUrl(name));
    target.username = name;
    target.password = 'migrate';
    url = target.toString();
  });

  afterAll(async () => {
    await dropDatabase(name);
    await admin.query(`DROP ROLE IF EXISTS "${name}"`);
    await admin.end();
  });

  it('exits 143, its session and the advisory lock gone at once and the migration before kept; the next run applies the rest', async () => {
    const migrations = BROWSER_PAYMENT_SCHEMA.migrations as (new () => MigrationInterface)[];
    const names = migrations.map((migration) => migration.name);
    // The running release's schema: every migration before three that make a new table, then an
    // ALTER and its validation (the ALTER waits for the reader's lock); later ones come after them.
    const altered = names.indexOf('AddPaymentMerchantMode1764900000000');
    expect(names.slice(altered - 1, altered + 2)).toEqual(['CreateProviderCaptures1764800000000', 'AddPaymentMerchantMode1764900000000', 'ValidatePaymentMerchantMode1764900000001']);
    const before = names.slice(0, altered);
    const previous = createServiceDataSource(
      { ...BROWSER_PAYMENT_SCHEMA, migrations: migrations.slice(0, altered - 1) },
      { url, poolSize: 2, statementTimeoutMs: 30_000, applicationName: 'int-previous-release' },
    );
    await previous.initialize();
    const reader = new Client({ connectionString: url });
    try {
      await migrateSchema(previous);
      const applied = async () => (await previous.query('SELECT name FROM browser_payment.schema_migrations ORDER BY id')).map((row: { name: string }) => row.name);
      const migrateSessions = () =>
        previous.query(
          `SELECT a.pid, l.locktype, l.granted FROM pg_stat_activity a LEFT JOIN pg_locks l USING (pid)
           WHERE a.datname = current_database() AND a.application_name = 'browser_payment-migrate'`,
        ) as Promise<{ pid: number; locktype: string | null; granted: boolean | null }[]>;
      // A long transaction reading the table the release alters.
      await reader.connect();
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM browser_payment.payments');
      // Far longer a lock wait than the test: the run must not end by timing out.
      const env = { DATABASE_URL: url, DATABASE_MIGRATION_LOCK_TIMEOUT_MS: '120000' };

      const interrupted = startAsPid1('browser-payment', ['migrate'], env);
      await waitFor(async () => (await migrateSessions()).some((lock) => lock.granted === false) || interrupted.child.exitCode !== null, {
        timeoutMs: 30_000,
        what: 'the migration to wait for its table',
      });
      expect(await applied()).toEqual(before);
      expect((await migrateSessions()).filter((lock) => lock.locktype === 'advisory')).toEqual([expect.objectContaining({ granted: true })]);
      process.kill(interrupted.main(), 'SIGTERM');

      expect([await exitWithin3s(interrupted), interrupted.output()]).toEqual([143, expect.anything()]);
      // Its session ends with it, the long transaction still open: nothing left for the next run to wait for.
      await waitFor(async () => (await migrateSessions()).length === 0, { timeoutMs: 10_000, what: 'the interrupted run’s session to end' });
      expect(await applied()).toEqual(before);
      await reader.query('COMMIT');

      const next = startAsPid1('browser-payment', ['migrate'], env);
      expect([await next.exited, next.output()]).toEqual([0, expect.anything()]);
      expect(await applied()).toEqual(names);
    } finally {
      await reader.end().catch(() => undefined);
      await previous.destroy();
    }
  });

  it('says its work is done once the schema is up to date, so that a signal from then on exits 0', async () => {
    const signals = { finished: jest.fn() };
    await runMigrateCommand(BROWSER_PAYMENT_SCHEMA, loadConfig(DatabaseConfig, { DATABASE_URL: url }), createLogger({ service: 'test', level: 'silent' }), signals);
    expect(signals.finished).toHaveBeenCalledTimes(1);
  });
});
