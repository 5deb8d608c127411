import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '../../../..');

/**
 * exitOnSignals in a process of its own (a signal's exit status is the point): a command that
 * has set its status and said its work is done, then gets SIGTERM while it closes its
 * connections, exits with that status, not 0 (rotate-keys' 2: tokens remain under a retired key,
 * which a Job reading 0 would go on to destroy).
 */
describe('exitOnSignals', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'exit-on-signals-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs `body` after exitOnSignals(kind), sends SIGTERM once it printed 'ready', and returns the exit status. */
  async function exitStatus(kind: 'command' | 'server', body: string): Promise<number | null> {
    const script = path.join(dir, `${kind}-${Math.random().toString(16).slice(2)}.ts`);
    await writeFile(
      script,
      `import { exitOnSignals } from ${JSON.stringify(path.join(ROOT, 'libs/platform/src/bootstrap/bootstrap'))};
       const signals = exitOnSignals(${JSON.stringify(kind)});
       ${body}
       // Still closing its connections: alive until the signal.
       setInterval(() => undefined, 1_000);
       process.stdout.write('ready\\n');`,
    );
    const child = spawn(process.execPath, ['-r', './tools/scripts/register-ts.cjs', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve()));
    child.kill('SIGTERM');
    return exited;
  }

  it('a finished command stopped while it closes exits with the status it set', async () => {
    expect(await exitStatus('command', 'signals.finished(); process.exitCode = 2;')).toBe(2);
  });

  it('a finished command that set no status exits 0, an unfinished one 143', async () => {
    expect(await exitStatus('command', 'signals.finished();')).toBe(0);
    expect(await exitStatus('command', '')).toBe(143);
  });
});
