import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isRunning } from '@gateway/platform';
import { freePort, TEST_CARD, TEST_EXPIRY, waitFor } from '@gateway/testing';

jest.setTimeout(240_000);

const ROOT = path.resolve(__dirname, '../../..');

/**
 * The standalone gateway as a developer runs it (`npm start` runs this main), from its sources,
 * each with a data folder of its own under `base`: a second start beside a running one, a port
 * already taken, a signal while it starts, its Postgres killed. Every process is stopped by its
 * pid at the end.
 */
interface Gateway {
  child: ChildProcess;
  httpPort: number;
  pgPort: number;
  dataDir: string;
  output(): string;
  exited: Promise<number | null>;
}

interface LogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

const base = mkdtempSync(path.join(tmpdir(), 'gateway-standalone-start-'));
// Run as root, the embedded Postgres runs as the `postgres` user, which must reach its folder.
chmodSync(base, 0o755);
const started: Gateway[] = [];

/** `env`: settings beyond the ports and the data folder (none: as `npm start` runs it). */
function start({ env = {}, ...options }: { httpPort: number; pgPort: number; dataDir: string; env?: Record<string, string> }): Gateway {
  const child = spawn(process.execPath, ['-r', './tools/scripts/register-ts.cjs', 'apps/gateway/src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      HTTP_PORT: String(options.httpPort),
      STANDALONE_PG_PORT: String(options.pgPort),
      STANDALONE_DATA_DIR: options.dataDir,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const gateway = { child, ...options, output: () => output, exited };
  started.push(gateway);
  return gateway;
}

async function startReady(options: { httpPort: number; pgPort: number; dataDir: string }): Promise<Gateway> {
  const gateway = start(options);
  await waitFor(async () => gateway.output().includes('standalone gateway ready for requests') || gateway.child.exitCode !== null, {
    timeoutMs: 120_000,
    what: 'the gateway to be ready',
  });
  expect(gateway.child.exitCode).toBeNull();
  return gateway;
}

const folder = (name: string) => path.join(base, name);

function logLines(gateway: Gateway): LogLine[] {
  return gateway
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

function postmasterPid(dataDir: string): number | undefined {
  const file = path.join(dataDir, 'postgres', 'postmaster.pid');
  return existsSync(file) ? Number.parseInt(readFileSync(file, 'utf8').split('\n')[0], 10) : undefined;
}


/** A VERIFY of the demo merchant (its credentials are in the data folder), as in the README. */
async function verify(gateway: Gateway, orderId: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const { username, password } = JSON.parse(readFileSync(path.join(gateway.dataDir, 'demo-merchant.json'), 'utf8')) as { username: string; password: string };
  const response = await fetch(`http://127.0.0.1:${gateway.httpPort}/api/rest/version/100/merchant/TESTDEMO/order/${orderId}/transaction/verify-1`, {
    method: 'PUT',
    headers: { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      apiOperation: 'VERIFY',
      order: { currency: 'USD' },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } },
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

afterAll(async () => {
  for (const { child } of started) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  for (const { dataDir } of started) {
    const pid = postmasterPid(dataDir);
    if (pid && isRunning(pid)) process.kill(pid, 'SIGINT');
    await waitFor(async () => !pid || !isRunning(pid), { timeoutMs: 30_000, what: `the Postgres of ${dataDir} to stop` });
  }
  rmSync(base, { recursive: true, force: true });
});

describe('the standalone gateway started beside a running one', () => {
  let first: Gateway;

  beforeAll(async () => {
    first = await startReady({ httpPort: await freePort(), pgPort: await freePort(), dataDir: folder('first') });
  });

  it.each([
    ['another HTTP port', async () => freePort()],
    ['the same HTTP port', async () => first.httpPort],
  ])("on its data folder (%s): refused in one line, exit code 1, the first one's database untouched", async (_, httpPort) => {
    const postmaster = postmasterPid(first.dataDir)!;
    const second = start({ httpPort: await httpPort(), pgPort: first.pgPort, dataDir: first.dataDir });

    expect(await second.exited).toBe(1);
    expect(logLines(second)).toEqual([
      expect.objectContaining({
        level: 'fatal',
        msg: expect.stringContaining(`The embedded Postgres of ${path.join(first.dataDir, 'postgres')} is already running for another process (pid ${first.child.pid})`),
      }),
    ]);
    expect(second.output()).not.toContain('"stack"');
    // The first one still serves, on the same Postgres.
    expect(postmasterPid(first.dataDir)).toBe(postmaster);
    expect(isRunning(postmaster)).toBe(true);
    expect(await verify(first, `second-start-${second.child.pid}`)).toMatchObject({ status: 201, body: { result: 'SUCCESS' } });
  });

  it('on its HTTP port (its own data folder): refused in one line naming HTTP_PORT, exit code 1, its own Postgres stopped', async () => {
    const second = start({ httpPort: first.httpPort, pgPort: await freePort(), dataDir: folder('second') });

    expect(await second.exited).toBe(1);
    const worse = logLines(second).filter((line) => line.level !== 'info');
    // Nest's own line about the listen, then ours (no warning of the workers it started meanwhile).
    expect(worse).toEqual([
      expect.objectContaining({ level: 'error', msg: expect.stringContaining('EADDRINUSE') }),
      expect.objectContaining({ level: 'fatal', msg: `Port ${first.httpPort} on 127.0.0.1 is in use by another process (another gateway?): give this one its own HTTP_PORT.` }),
    ]);
    expect(second.output()).not.toContain('"stack"');
    const postmaster = postmasterPid(second.dataDir);
    expect(postmaster === undefined || !isRunning(postmaster)).toBe(true);
    expect(await verify(first, 'second-http-port')).toMatchObject({ status: 201, body: { result: 'SUCCESS' } });
  });
});

describe('the standalone gateway stopped or crashed', () => {
  it('stops, its database too, on a signal while it starts, saying so once and nothing worse', async () => {
    const gateway = start({ httpPort: await freePort(), pgPort: await freePort(), dataDir: folder('signalled') });
    // Between its database's start and its readiness: connecting, migrating a new database.
    await waitFor(async () => gateway.output().includes('embedded Postgres started') || gateway.child.exitCode !== null, {
      timeoutMs: 120_000,
      intervalMs: 10,
      what: 'the embedded Postgres to start',
    });
    const postmaster = postmasterPid(gateway.dataDir)!;
    gateway.child.kill('SIGTERM');

    expect(await gateway.exited).toBe(0);
    const lines = logLines(gateway);
    expect(lines.filter((line) => line.level !== 'info')).toEqual([]);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'info', msg: 'stopped while starting', reason: 'SIGTERM' }));
    expect(gateway.output()).not.toContain('ready for requests');
    expect(isRunning(postmaster)).toBe(false);
  });

  it('starts again after its Postgres was killed (SIGKILL) while idle: crash recovery, the data kept', async () => {
    const options = { httpPort: await freePort(), pgPort: await freePort(), dataDir: folder('crashed') };
    const gateway = await startReady(options);
    expect(await verify(gateway, 'before-crash')).toMatchObject({ status: 201, body: { result: 'SUCCESS' } });
    const postmaster = postmasterPid(options.dataDir)!;
    const backends = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    process.kill(postmaster, 'SIGKILL');
    await waitFor(async () => logLines(gateway).some((line) => line.msg.startsWith('the embedded Postgres stopped on its own')), {
      what: 'the gateway to notice',
    });
    gateway.child.kill('SIGINT');
    expect(await gateway.exited).toBe(0);
    // The killed postmaster's backends notice and exit on their own (until then they hold its shared memory).
    await waitFor(async () => !backends.some((pid) => isRunning(pid)), { what: "the killed Postgres's backends to exit" });

    const again = await startReady(options);
    // The VERIFY made before the crash is there: a replay answers it again.
    expect(await verify(again, 'before-crash')).toMatchObject({ status: 201, body: { result: 'SUCCESS', order: { id: 'before-crash' } } });
    expect(await verify(again, 'after-crash')).toMatchObject({ status: 201, body: { result: 'SUCCESS' } });
  });
});

describe("the standalone gateway's shutdown grace", () => {
  it('takes what it needs when SHUTDOWN_GRACE_MS is unset, more than the apps\' 50 s, and stops at once with nothing in flight', async () => {
    const gateway = await startReady({ httpPort: await freePort(), pgPort: await freePort(), dataDir: folder('default-grace') });
    expect(logLines(gateway)).toContainEqual(expect.objectContaining({ msg: 'standalone gateway ready for requests', shutdownGraceMs: 60_100 }));
    const signalled = Date.now();
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(10_000);
  });

  it('refuses a SHUTDOWN_GRACE_MS set shorter than it needs: exit code 78, one line naming the variable and the value, its Postgres stopped', async () => {
    const gateway = start({ httpPort: await freePort(), pgPort: await freePort(), dataDir: folder('short-grace'), env: { SHUTDOWN_GRACE_MS: '50000' } });

    expect(await gateway.exited).toBe(78);
    expect(logLines(gateway).filter((line) => line.level !== 'info')).toEqual([
      expect.objectContaining({ level: 'fatal', msg: expect.stringContaining('SHUTDOWN_GRACE_MS: must be at least 60100') }),
    ]);
    expect(gateway.output()).not.toContain('"stack"');
    const postmaster = postmasterPid(gateway.dataDir);
    expect(postmaster === undefined || !isRunning(postmaster)).toBe(true);
  });
});
