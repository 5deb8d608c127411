import { spawn } from 'node:child_process';
import path from 'node:path';

jest.setTimeout(30_000);

const ROOT = path.resolve(__dirname, '../../..');

/**
 * The admin main's own signal handlers, in a process of its own that gets the signal from outside
 * (as the container's PID 1 gets it from the runtime; entry-points-as-pid-1.int-spec.ts runs it
 * as PID 1): installed before the command runs, they exit with the default action's status,
 * unless the command installed a handler of its own since (a standalone command's embedded
 * Postgres stops itself, then exits): that one goes first, and must not be cut short.
 *
 * The command is `list`, waiting for a database that takes its connection and never answers
 * (one still starting). The later handler stands in for the embedded Postgres's (stopOnSignals,
 * embedded-postgres.ts): installed after the main's, it stops its database, then exits.
 */
async function signalled(signal: 'SIGTERM' | 'SIGINT', laterHandler: boolean): Promise<{ status: number | null | string; output: string }> {
  const script = `
    const { createServer } = require('node:net');
    const database = createServer(() => process.stdout.write('connected\\n'));
    database.listen(0, '127.0.0.1', () => {
      process.env.DATABASE_URL = 'postgres://edge:x@127.0.0.1:' + database.address().port + '/gateway';
      process.env.API_PASSWORD_PEPPER = 'p'.repeat(32);
      process.argv = [process.execPath, 'main.ts', 'list'];
      require('./apps/admin/src/main.ts');
      if (${laterHandler}) {
        process.once(${JSON.stringify(signal)}, () =>
          setTimeout(() => {
            process.stdout.write('database stopped\\n');
            process.exit(${signal === 'SIGTERM' ? 143 : 130});
          }, 50),
        );
      }
    });
  `;
  const child = spawn(process.execPath, ['-r', './tools/scripts/register-ts.cjs', '-e', script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (status) => resolve(status)));
  try {
    // The command waits on its database: the signal comes while it runs.
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', () => output.includes('connected') && resolve());
      child.once('exit', () => reject(new Error(`exited before the command connected: ${output}`)));
    });
    child.kill(signal);
    const status = await Promise.race([exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running 10 s after the signal'), 10_000).unref())]);
    return { status, output };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

describe('admin main: its signal handlers', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('exit on %s with the default action’s status while the command runs', async (signal, status) => {
    const run = await signalled(signal, false);
    expect([run.status, run.output]).toEqual([status, 'connected\n']);
  });

  it('leave the exit to a handler the command installed after them: its database is stopped first', async () => {
    const run = await signalled('SIGTERM', true);
    expect([run.status, run.output]).toEqual([143, 'connected\ndatabase stopped\n']);
  });
});
