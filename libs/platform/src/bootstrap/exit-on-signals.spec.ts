import { spawn } from 'node:child_process';
import path from 'node:path';

jest.setTimeout(30_000);

const ROOT = path.resolve(__dirname, '../../../..');

/**
 * exitOnSignals' exit status, in a process of its own that gets the signal from outside (as a
 * container's main gets it from the runtime): a server's end is 0; a command's interruption is
 * 128 + the signal's number until it says its work is done (`finished`), after which it is 0,
 * with or without something to shut down first, or the status it set itself (rotate-keys' 2: tokens
remain under a retired key, which a Job reading 0 would go on to destroy).
entry-points-as-pid-1.int-spec.ts runs the mains.
 */
async function exitStatus(kind: 'server' | 'command', signal: 'SIGTERM' | 'SIGINT', setup: { finished?: boolean; stoppable?: boolean; exitCode?: number } = {}): Promise<number | null> {
  const script = `
    const { exitOnSignals } = require('./libs/platform/src/bootstrap/bootstrap.ts');
    const signals = exitOnSignals(${JSON.stringify(kind)});
    if (${Boolean(setup.stoppable)}) signals.shutDownWith({ shutdown: () => new Promise((resolve) => setTimeout(resolve, 50)) });
    if (${Boolean(setup.finished)}) signals.finished();
    if (${setup.exitCode ?? 'undefined'} !== undefined) process.exitCode = ${setup.exitCode ?? 'undefined'};
    setInterval(() => undefined, 1_000);
    process.stdout.write('ready\\n');
  `;
  const child = spawn(process.execPath, ['-r', './tools/scripts/register-ts.cjs', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (status) => resolve(status)));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    child.once('exit', () => reject(new Error('exited before it was ready')));
  });
  child.kill(signal);
  return exited;
}

describe('exitOnSignals', () => {
  it.each([
    ['a server stopped', 'server', 'SIGTERM', {}, 0],
    ['a command interrupted by SIGTERM', 'command', 'SIGTERM', {}, 143],
    ['a command interrupted by SIGINT', 'command', 'SIGINT', {}, 130],
    ['a command interrupted while it shuts down', 'command', 'SIGTERM', { stoppable: true }, 143],
    ['a command whose work is done', 'command', 'SIGTERM', { finished: true }, 0],
    ['a command whose work is done, shutting down', 'command', 'SIGINT', { finished: true, stoppable: true }, 0],
    ['a command whose work is done with the status it set', 'command', 'SIGTERM', { finished: true, exitCode: 2 }, 2],
  ] as const)('exits %s with its status', async (_, kind, signal, setup, status) => {
    expect(await exitStatus(kind, signal, setup)).toBe(status);
  });
});
