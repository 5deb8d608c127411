import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { openStandaloneDatabase } from '../standalone';
import { isRunning } from './embedded-postgres';
import { freePort } from '../test-support';

jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../../../..');

/**
 * startEmbeddedPostgres in a plain Node process, as the gateway runs it (the package is ESM):
 * prints `started` once a query went through, then keeps running (a gateway) or, with `stop`,
 * stops its Postgres and exits (a start that must succeed). Its error goes to stderr.
 */
const SCRIPT = `
  const { startEmbeddedPostgres } = require('./libs/platform/src/database/embedded-postgres');
  const { Client } = require('pg');
  (async () => {
    const pg = await startEmbeddedPostgres({ dataDir: process.env.PG_DIR, port: Number(process.env.PG_PORT), stopOnSignals: false });
    const client = new Client({ connectionString: pg.url });
    await client.connect();
    await client.query('SELECT 1');
    await client.end();
    process.stdout.write('started\\n');
    if (process.env.PG_STOP) {
      await pg.stop();
      process.exit(0);
    }
  })().catch((err) => {
    process.stderr.write(String(err instanceof Error ? err.message : err));
    process.exit(1);
  });`;

/**
 * A gateway's graceful shutdown in miniature: on SIGINT it still answers a request in flight
 * (a query, a second after the signal), then stops its Postgres and exits.
 */
const DRAINING_SCRIPT = `
  const { startEmbeddedPostgres } = require('./libs/platform/src/database/embedded-postgres');
  const { Client } = require('pg');
  (async () => {
    const pg = await startEmbeddedPostgres({ dataDir: process.env.PG_DIR, port: Number(process.env.PG_PORT), stopOnSignals: false });
    const client = new Client({ connectionString: pg.url });
    await client.connect();
    process.on('SIGINT', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      try {
        const { rows } = await client.query('SELECT 42 AS answer');
        process.stdout.write('answered ' + rows[0].answer + ' after SIGINT\\n');
      } catch (err) {
        process.stdout.write('failed after SIGINT: ' + err.message + '\\n');
      }
      await client.end().catch(() => undefined);
      await pg.stop();
      process.stdout.write('stopped\\n');
      process.exit(0);
    });
    process.stdout.write('started\\n');
  })().catch((err) => {
    process.stderr.write(String(err instanceof Error ? err.message : err));
    process.exit(1);
  });`;

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** `around`: a command the Node process runs under (unshare, nsenter), its arguments first. */
function run(dataDir: string, port: number, stop = false, script = SCRIPT, around: string[] = []): Run {
  const node = [process.execPath, '-r', './tools/scripts/register-ts.cjs', '-e', script];
  const [command, ...args] = [...around, ...node];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, PG_DIR: dataDir, PG_PORT: String(port), ...(stop ? { PG_STOP: '1' } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, as a terminal's foreground job is (and away from Jest's).
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // A command this machine lacks fails the test that needs it, by name.
  child.once('error', (err) => (output += `${command}: ${err.message}\n`));
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', () => resolve(null));
  });
  return { child, output: () => output, exited };
}

function postmasterPid(dataDir: string): number | undefined {
  const file = path.join(dataDir, 'postmaster.pid');
  return existsSync(file) ? Number.parseInt(readFileSync(file, 'utf8').split('\n')[0], 10) : undefined;
}

/** The pids (this namespace's) of a process's children. */
function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
}

/** A process's pid in its own PID namespace (the last of NSpid in /proc/<pid>/status). */
function pidInItsNamespace(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('NSpid:')) ?? '';
  return Number(line.split(/\s+/).filter(Boolean).at(-1));
}

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; !condition(); await sleep(100)) {
    if (Date.now() > deadline) return false;
  }
  return true;
}


/** Waits for a run's `started`, failing with what it printed otherwise. */
async function started(run: Run, what: string): Promise<void> {
  await until(() => run.output().includes('started') || run.child.exitCode !== null || run.child.pid === undefined, 90_000);
  expect(`${what}: ${run.output()}`).toBe(`${what}: started\n`);
}

describe('startEmbeddedPostgres', () => {
  const base = mkdtempSync(path.join(tmpdir(), 'gateway-embedded-pg-'));
  // Run as root, the embedded Postgres runs as the `postgres` user, which must reach its folder.
  chmodSync(base, 0o755);
  const runs: Run[] = [];
  const dataDirs: string[] = [];
  let blocker: Server | undefined;

  const folder = (name: string): string => {
    const dir = path.join(base, name, 'postgres');
    dataDirs.push(dir);
    return dir;
  };

  afterAll(async () => {
    for (const { child } of runs) child.kill('SIGKILL');
    for (const dir of dataDirs) {
      const pid = postmasterPid(dir);
      if (pid && isRunning(pid)) process.kill(pid, 'SIGINT');
      await until(() => !pid || !isRunning(pid), 30_000);
    }
    blocker?.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('starts again after its gateway was killed with SIGKILL, stopping the Postgres that gateway left running', async () => {
    const dataDir = folder('killed');
    const port = await freePort();
    const killed = run(dataDir, port);
    runs.push(killed);
    await started(killed, 'the first gateway to start its Postgres');
    const leftover = postmasterPid(dataDir)!;
    killed.child.kill('SIGKILL');
    await killed.exited;
    expect(isRunning(leftover)).toBe(true);

    const next = run(dataDir, port, true);
    runs.push(next);
    expect(await next.exited).toBe(0);
    expect(next.output()).toContain('started');
    expect(isRunning(leftover)).toBe(false);
  });

  it("keeps Postgres up through a terminal's Ctrl-C (SIGINT to the whole process group) until the gateway stops it", async () => {
    const dataDir = folder('ctrl-c');
    const gateway = run(dataDir, await freePort(), false, DRAINING_SCRIPT);
    runs.push(gateway);
    await started(gateway, 'the gateway to start its Postgres');
    const postmaster = postmasterPid(dataDir)!;

    process.kill(-gateway.child.pid!, 'SIGINT');
    const code = await gateway.exited;
    expect(gateway.output()).toBe('started\nanswered 42 after SIGINT\nstopped\n');
    expect(code).toBe(0);
    expect(isRunning(postmaster)).toBe(false);
  });

  it('stops its Postgres when the gateway exits without stopping it', async () => {
    const dataDir = folder('exiting');
    const gateway = run(dataDir, await freePort(), false, `${SCRIPT.replace("process.stdout.write('started\\n');", "process.stdout.write('started\\n'); setTimeout(() => process.exit(3), 200);")}`);
    runs.push(gateway);
    expect(await gateway.exited).toBe(3);
    expect(gateway.output()).toBe('started\n');
    const postmaster = postmasterPid(dataDir);
    expect(postmaster === undefined || (await until(() => !isRunning(postmaster), 10_000))).toBe(true);
  });

  it('refuses, and says why, a data folder whose Postgres another running gateway holds', async () => {
    const dataDir = folder('shared');
    const port = await freePort();
    const first = run(dataDir, port);
    runs.push(first);
    await started(first, 'the first gateway to start its Postgres');

    const second = run(dataDir, port, true);
    runs.push(second);
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(`already running for another process (pid ${first.child.pid})`);
    // The first one's database is untouched.
    expect(first.child.exitCode).toBeNull();
    expect(isRunning(postmasterPid(dataDir)!)).toBe(true);
  });

  it("refuses a port another process listens on rather than start beside it (another gateway's Postgres)", async () => {
    const port = await freePort();
    blocker = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => blocker!.listen(port, '127.0.0.1', resolve));

    const blocked = run(folder('blocked'), port, true);
    runs.push(blocked);
    expect(await blocked.exited).toBe(1);
    expect(blocked.output()).toContain(`cannot use port ${port}: another process listens on it`);
  });

  it("lets a standalone command use a running gateway's database only from that gateway's data folder", async () => {
    const dataDir = folder('running');
    const port = await freePort();
    const gateway = run(dataDir, port);
    runs.push(gateway);
    await started(gateway, 'the gateway to start its Postgres');

    // From the gateway's folder (its secrets, its pepper): the running database, left running.
    const same = await openStandaloneDatabase({ STANDALONE_DATA_DIR: path.dirname(dataDir), STANDALONE_PG_PORT: port });
    expect(same.startedHere).toBe(false);
    // From any other folder (another working directory, or another gateway's port): refused, as
    // its own secrets would issue passwords that gateway never accepts.
    await expect(openStandaloneDatabase({ STANDALONE_DATA_DIR: path.join(base, 'elsewhere'), STANDALONE_PG_PORT: port })).rejects.toThrow(
      `The standalone database on port ${port} is the one of ${dataDir}`,
    );
  });
});

/**
 * A container whose PID 1 is the gateway itself (`node main.js`, no init): its Postgres's parent is
 * PID 1, as a left-over Postgres's is on a host once its gateway died. `unshare --pid --fork
 * --mount-proc` (root, as this machine and CI run) makes the gateway PID 1 of a namespace of its
 * own; the second start enters that namespace as `docker exec` or `kubectl exec` does (`nsenter`).
 * No fallback: where these cannot run, the test fails and says why.
 */
describe('startEmbeddedPostgres as PID 1 of a PID namespace (a container with no init)', () => {
  const base = mkdtempSync(path.join(tmpdir(), 'gateway-embedded-pg-pid1-'));
  chmodSync(base, 0o755);
  const dataDir = path.join(base, 'postgres');
  let namespace: Run | undefined;
  /** The gateway, PID 1 inside, by its pid here. */
  let init: number | undefined;

  afterAll(async () => {
    // Its Postgres stopped first (by its pid here), then the namespace: its PID 1 killed, the kernel kills the rest.
    const postmaster = init === undefined || !isRunning(init) ? undefined : childrenOf(init).find((pid) => pidInItsNamespace(pid) === postmasterPid(dataDir));
    if (postmaster !== undefined) {
      process.kill(postmaster, 'SIGINT');
      await until(() => !isRunning(postmaster), 30_000);
    }
    if (init !== undefined && isRunning(init)) process.kill(init, 'SIGKILL');
    namespace?.child.kill('SIGKILL');
    rmSync(base, { recursive: true, force: true });
  });

  it("refuses a second start in the same container, leaving the running gateway's Postgres running", async () => {
    const port = await freePort();
    // --kill-child: the namespace ends with unshare, whatever happens to this test.
    namespace = run(dataDir, port, false, SCRIPT, ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child']);
    await started(namespace, 'the gateway, PID 1 of a new PID namespace, to start its Postgres');
    init = childrenOf(namespace.child.pid!)[0];
    expect(pidInItsNamespace(init)).toBe(1);
    const postmaster = postmasterPid(dataDir)!;
    expect(childrenOf(init).map(pidInItsNamespace)).toContain(postmaster);

    const second = run(dataDir, port, true, SCRIPT, ['nsenter', `--target=${init}`, '--pid', '--mount', `--wd=${ROOT}`, '--']);
    expect([await second.exited, second.output()]).toEqual([1, expect.stringContaining('already running for another process (pid 1)')]);
    // The first one's Postgres is the same process, still PID 1's child, and still answers.
    expect(postmasterPid(dataDir)).toBe(postmaster);
    expect(childrenOf(init).map(pidInItsNamespace)).toContain(postmaster);
    const client = new Client({ connectionString: `postgres://postgres:standalone@127.0.0.1:${port}/gateway` });
    await client.connect();
    try {
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await client.end();
    }
  });
});
