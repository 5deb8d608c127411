import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { dropServiceRoles, provisionServiceRoles } from '@gateway/platform';
import {
  createDatabase,
  dropDatabase,
  freePort,
  keptForAtRestScan,
  recordForAtRestScan,
  recordRunSecret,
  testInfra,
  waitFor,
} from '@gateway/testing';

/**
 * In a full test run (tools/scripts/test-all.sh sets TEST_AT_REST_MANIFEST) the smoke's
 * databases, roles, Redis keys and data folders stay for the at-rest scan, which removes them,
 * and every secret it issues is listed for the log and at-rest scans.
 */
function recordSecret(secret: string): string {
  recordRunSecret(secret);
  return secret;
}
import type { Profile } from './options';
import type { PostgresScope } from './postgres-cpu';
import { DEPLOYED_NODE_OPTIONS } from './deployed-node-options';

const run = promisify(execFile);
export const ROOT = path.resolve(__dirname, '../..');
const DIST = path.join(ROOT, 'dist');

/** The distributed profile's apps and the schema each owns. */
const SCHEMA_OF = {
  'api-edge': 'edge',
  'token-vault': 'token_vault',
  'order-transaction': 'order_transaction',
  'browser-payment': 'browser_payment',
  verification: 'verification',
} as const;
type App = keyof typeof SCHEMA_OF;
const APPS = Object.keys(SCHEMA_OF) as App[];

export interface BenchMerchant {
  id: string;
  authorization: string;
  /** `/api/rest/version/<version>/merchant/<id>` */
  base(version: number): string;
}

/** A gateway the benchmark started, with what the scenarios need to reach it. */
export interface RunningGateway {
  profile: Profile;
  baseUrl: string;
  /** Service processes by name, for RSS sampling. */
  pids: Record<string, number>;
  /** Which Postgres work is this gateway's (its CPU per request). */
  postgres: PostgresScope;
  /** NATS subject prefix of this run (distributed only: the standalone bus is in-process). */
  natsPrefix?: string;
  /** The run database, as its admin (distributed only): the overload scenario reads the ledger there. */
  databaseUrl?: string;
  /** Each process's HTTP port (health and, without METRICS_PORT, /metrics), by name. */
  ports: Record<string, number>;
  createMerchant(settings: Record<string, unknown>): Promise<BenchMerchant>;
  stop(): Promise<void>;
}

interface Started {
  name: string;
  child: ChildProcess;
  stop(): Promise<number | null>;
}

/** The Node flags a gateway process runs with in this bench. */
export function benchNodeOptions(profile: Profile): string {
  return process.env.BENCH_NODE_OPTIONS ?? (profile === 'standalone' ? '' : DEPLOYED_NODE_OPTIONS);
}

function nodeOptionsFor(app: App | 'gateway'): { NODE_OPTIONS?: string } {
  const options = benchNodeOptions(app === 'gateway' ? 'standalone' : 'distributed');
  return options ? { NODE_OPTIONS: options } : {};
}

function startApp(app: App | 'gateway', env: Record<string, string>, logDir: string, nodeArgs: string[]): Started {
  mkdirSync(logDir, { recursive: true });
  const log = createWriteStream(path.join(logDir, `${app}.log`), { flags: 'a' });
  const child = spawn(process.execPath, [...nodeArgs, path.join(DIST, 'apps', app, 'src', 'main.js')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      // Node flags for the gateway's processes only: the distributed apps run with the
      // deployment's (BENCH_NODE_OPTIONS overrides, '' for none); the standalone gateway with none.
      ...nodeOptionsFor(app),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => (log.end(), resolve(code))));
  return {
    name: app,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
      }
      return child.exitCode;
    },
  };
}

const ready = async (url: string) => (await fetch(url, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined))?.ok ?? false;

/**
 * Configuration shared by both profiles; production defaults otherwise (merchant cache, log
 * level, pools, authentication limits: the 401 scenario sends no credentials, which no limit counts).
 */
const common = (runId: string): Record<string, string> => ({
  HTTP_HOST: '127.0.0.1',
  NATS_URL: testInfra.natsUrl,
  NATS_SUBJECT_PREFIX: `b${runId}.`,
});

/** Resolves once the gateway is ready; rejects at once if one of its processes exits first. */
async function whenReady(baseUrl: string, processes: Started[], timeoutMs: number): Promise<void> {
  const exit = Promise.race(
    processes.map(
      (p) =>
        new Promise<never>((_, reject) =>
          p.child.once('exit', (code) => reject(new Error(`${p.name} exited with ${code} while starting: see its log`))),
        ),
    ),
  );
  await Promise.race([waitFor(() => ready(`${baseUrl}/health/ready`), { timeoutMs, what: 'the gateway to be ready' }), exit]);
}

async function adminCli(args: string[], env: Record<string, string>): Promise<{ id: string; apiPassword: string }> {
  const { stdout } = await run(process.execPath, [path.join(DIST, 'apps/admin/src/main.js'), '--json', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  return JSON.parse(stdout) as { id: string; apiPassword: string };
}

function merchantCreator(adminArgs: string[], adminEnv: Record<string, string>) {
  return async (settings: Record<string, unknown>): Promise<BenchMerchant> => {
    const id = `BENCH${randomBytes(4).toString('hex').toUpperCase()}`;
    const sets = Object.entries(settings).flatMap(([k, v]) => ['--set', `${k}=${JSON.stringify(v)}`]);
    const created = await adminCli([...adminArgs, 'create', '--id', id, '--name', 'Benchmark merchant', '--mode', 'TEST', ...sets], adminEnv);
    recordSecret(created.apiPassword);
    return {
      id: created.id,
      authorization: `Basic ${Buffer.from(`merchant.${created.id}:${created.apiPassword}`).toString('base64')}`,
      base: (version) => `/api/rest/version/${version}/merchant/${created.id}`,
    };
  };
}

/**
 * Each app its own process, its own Postgres role and schema; the machine's NATS and Redis under
 * this run's prefixes. `env(app)` is added to the app's own (a measurement's settings:
 * tools/bench/in-flight-heap.ts).
 */
export async function startDistributed(
  runId: string,
  logDir: string,
  nodeArgs: string[],
  env: (app: string) => Record<string, string> = () => ({}),
): Promise<RunningGateway> {
  const database = `gw_bench_${runId}`;
  const adminDbUrl = await createDatabase(database);
  const roles = APPS.map((app) => ({ app, schema: SCHEMA_OF[app], role: `gw_${runId}_${SCHEMA_OF[app]}`, password: randomBytes(12).toString('hex') }));
  recordForAtRestScan('role', ...roles.map((r) => r.role));
  await provisionServiceRoles(adminDbUrl, roles);
  const roleUrl = (role: string, password: string) => Object.assign(new URL(adminDbUrl), { username: role, password }).toString();
  const ports = Object.fromEntries(await Promise.all(APPS.map(async (app) => [app, await freePort()] as const))) as Record<App, number>;
  const pepper = recordSecret(randomBytes(32).toString('hex'));
  const redisPrefix = `bench:${runId}:`;
  recordForAtRestScan('redis', redisPrefix);
  const baseUrl = `http://127.0.0.1:${ports['api-edge']}`;
  // The replay hashes' key: order-transaction and browser-payment share it.
  const requestHashKey = recordSecret(randomBytes(32).toString('base64'));
  const envOf = (app: App, role: string, password: string): Record<string, string> => ({
    ...common(runId),
    GATEWAY_PROFILE: 'distributed',
    HTTP_PORT: String(ports[app]),
    DATABASE_URL: roleUrl(role, password),
    ...(app === 'api-edge' ? { REDIS_URL: testInfra.redisUrl, REDIS_KEY_PREFIX: redisPrefix, API_PASSWORD_PEPPER: pepper } : {}),
    ...(app === 'browser-payment' ? { PUBLIC_BASE_URL: baseUrl, REQUEST_HASH_KEY: requestHashKey } : {}),
    ...(app === 'token-vault'
      ? { VAULT_MASTER_KEYS: `bench-1:${recordSecret(randomBytes(32).toString('base64'))}`, VAULT_FINGERPRINT_KEY: recordSecret(randomBytes(32).toString('base64')) }
      : {}),
    ...(app === 'order-transaction' ? { ORDER_TRANSACTION_MODE: 'all', REQUEST_HASH_KEY: requestHashKey, WEBHOOK_SECRET_KEYS: `bench-1:${recordSecret(randomBytes(32).toString('base64'))}` } : {}),
    ...env(app),
  });
  const processes = roles.map(({ app, role, password }) => startApp(app, envOf(app, role, password), logDir, nodeArgs));
  const edgeRole = roles.find((r) => r.app === 'api-edge')!;
  const stop = async () => {
    // The edge first, once the requests autocannon abandoned at the end of the last scenario
    // have had time to finish, then the services: a benchmark's shutdown should not leave
    // failed lock releases and unanswered requests in the logs.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await processes.find((p) => p.name === 'api-edge')!.stop();
    await Promise.all(processes.map((p) => p.stop()));
    if (keptForAtRestScan()) {
      return;
    }
    await dropDatabase(database);
    await dropServiceRoles(testInfra.pgAdminUrl, roles.map((r) => r.role));
    const redis = new Redis(testInfra.redisUrl);
    for await (const keys of redis.scanStream({ match: `${redisPrefix}*`, count: 1000 })) {
      if ((keys as string[]).length > 0) await redis.del(...(keys as string[]));
    }
    redis.disconnect();
  };
  try {
    await whenReady(baseUrl, processes, 60_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    profile: 'distributed',
    baseUrl,
    pids: Object.fromEntries(processes.map((p) => [p.name, p.child.pid!])),
    postgres: { databases: [database] },
    ports,
    natsPrefix: `b${runId}.`,
    databaseUrl: adminDbUrl,
    createMerchant: merchantCreator([], { DATABASE_URL: roleUrl(edgeRole.role, edgeRole.password), API_PASSWORD_PEPPER: pepper }),
    stop,
  };
}

/** One process with every service and an embedded Postgres. */
export async function startStandalone(runId: string, logDir: string, nodeArgs: string[]): Promise<RunningGateway> {
  const dataDir = path.join(ROOT, 'tmp', `bench-${runId}`);
  recordForAtRestScan('dir', dataDir);
  const [httpPort, pgPort] = [await freePort(), await freePort()];
  const baseUrl = `http://127.0.0.1:${httpPort}`;
  const env = {
    ...common(runId),
    HTTP_PORT: String(httpPort),
    STANDALONE_DATA_DIR: dataDir,
    STANDALONE_PG_PORT: String(pgPort),
    PUBLIC_BASE_URL: baseUrl,
  };
  const gateway = startApp('gateway', env, logDir, nodeArgs);
  const stop = async () => {
    await gateway.stop();
    if (!keptForAtRestScan()) {
      rmSync(dataDir, { recursive: true, force: true });
    }
  };
  try {
    await whenReady(baseUrl, [gateway], 120_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    profile: 'standalone',
    baseUrl,
    pids: { gateway: gateway.child.pid! },
    // The embedded Postgres is the gateway's child: all of it is the run's.
    postgres: { startedBy: gateway.child.pid! },
    ports: { gateway: httpPort },
    createMerchant: merchantCreator(['--standalone'], { STANDALONE_DATA_DIR: dataDir, STANDALONE_PG_PORT: String(pgPort) }),
    stop,
  };
}
