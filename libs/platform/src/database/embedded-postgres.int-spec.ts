import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
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

function run(dataDir: string, port: number, stop = false, script = SCRIPT): Run {
  const child = spawn(process.execPath, ['-r', './tools/scripts/register-ts.cjs', '-e', script], {
    cwd: ROOT,
    env: { ...process.env, PG_DIR: dataDir, PG_PORT: String(port), ...(stop ? { PG_STOP: '1' } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, as a terminal's foreground job is (and away from Jest's).
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

function postmasterPid(dataDir: string): number | undefined {
  const file = path.join(dataDir, 'postmaster.pid');
  return existsSync(file) ? Number.parseInt(readFileSync(file, 'utf8').split('\n')[0], 10) : undefined;
}

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; !condition(); await sleep(100)) {
    if (Date.now() > deadline) return false;
  }
  return true;
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
  const started = async (run: Run, what: string) => {
    await until(() => run.output().includes('started') || run.child.exitCode !== null, 90_000);
    expect(`${what}: ${run.output()}`).toBe(`${what}: started\n`);
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
