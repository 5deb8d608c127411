import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, Server, Socket } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '@gateway/testing';

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
describe('the images’ entry points as PID 1 (a container with no init)', () => {
  let database: Server;
  let port: number;
  const connections: Socket[] = [];
  const runs: ChildProcess[] = [];

  beforeAll(async () => {
    database = createServer((socket) => connections.push(socket));
    await new Promise<void>((resolve) => database.listen(0, '127.0.0.1', resolve));
    port = (database.address() as { port: number }).port;
  });

  afterAll(() => {
    // --kill-child: SIGKILL to unshare ends the namespace too.
    for (const child of runs) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const socket of connections) socket.destroy();
    database.close();
  });

  it.each([
    // The admin image: the migration Job's first step, and the operator's `kubectl run -it` pod.
    ['admin', ['list'], { DATABASE_URL: 'edge', API_PASSWORD_PEPPER: 'p'.repeat(32) }, 143],
    // A service image (each runs runServiceMain, the edge its own main with exitOnSignals first):
    // still starting, so nothing to drain: it exits at once, 0.
    ['verification', [], { DATABASE_URL: 'verification' }, 0],
  ] as const)('%s stops on SIGTERM while waiting for its database', async (app, args, env, code) => {
    const before = connections.length;
    const child = spawn('unshare', ['--pid', '--fork', '--mount-proc', '--kill-child', process.execPath, '-r', './tools/scripts/register-ts.cjs', `apps/${app}/src/main.ts`, ...args], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        ...env,
        DATABASE_URL: `postgres://${env.DATABASE_URL}:x@127.0.0.1:${port}/gateway`,
      },
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
    await waitFor(async () => connections.length > before || child.exitCode !== null || child.pid === undefined, { timeoutMs: 30_000, what: `${app} to connect to its database` });
    expect([app, child.exitCode, output]).toEqual([app, null, expect.anything()]);
    expect(connections.length).toBeGreaterThan(before);
    // unshare's only child: the app, PID 1 in its namespace.
    const [main] = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    expect(readFileSync(`/proc/${main}/status`, 'utf8')).toMatch(/^NSpid:\s+\d+\s+1$/m);

    process.kill(main, 'SIGTERM');
    // Well before its database connection's own timeout would end it.
    expect([app, await Promise.race([exited, sleep(3_000, 'still running 3 s after SIGTERM', { ref: false })]), output]).toEqual([app, code, expect.anything()]);
  });
});
