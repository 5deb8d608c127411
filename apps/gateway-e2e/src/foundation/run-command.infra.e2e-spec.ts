import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { freePort, waitFor } from '@gateway/testing';
import { checkedFetch } from '../support/gateway-client';
import { ROOT } from '../support/processes';

jest.setTimeout(180_000);

/**
 * The README's run command, as a new user runs it: `npm start` in a fresh clone starts the
 * standalone gateway with no external servers, prints the demo merchant, serves the API, and
 * stops cleanly (embedded Postgres included) on Ctrl-C.
 */
describe('npm start from a fresh clone', () => {
  let clone: string;
  let gateway: ChildProcess | undefined;
  let output = '';

  beforeAll(() => {
    clone = mkdtempSync(path.join(ROOT, 'tmp', 'fresh-clone-'));
    // Like any clone (mkdtemp makes 0700 folders): the embedded Postgres runs as `postgres`.
    chmodSync(clone, 0o755);
    execFileSync('git', ['clone', '--quiet', ROOT, clone]);
    // Installing takes most of a minute and is what CI's own clean clone does anyway; reuse
    // this checkout's packages (hard links) so the test is about the command, not the network.
    execFileSync('cp', ['-al', path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules')]);
  });

  afterAll(() => {
    // The whole process group (npm, the gateway, its Postgres), should the test fail midway.
    if (gateway?.pid && gateway.exitCode === null) {
      try {
        process.kill(-gateway.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(clone, { recursive: true, force: true });
  });

  it('prints the demo merchant, answers with its credentials, and stops cleanly on Ctrl-C', async () => {
    const [httpPort, pgPort] = [await freePort(), await freePort()];
    gateway = spawn('npm', ['start'], {
      cwd: clone,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', HTTP_PORT: String(httpPort), STANDALONE_PG_PORT: String(pgPort), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    gateway.stdout!.on('data', (chunk) => (output += chunk));
    gateway.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      gateway!.once('exit', (code, signal) => resolve({ code, signal })),
    );

    const password = await waitFor(async () => /API password:\s+([0-9a-f]{32})/.exec(output)?.[1], {
      timeoutMs: 120_000,
      what: 'the demo merchant banner',
    }).catch((err: Error) => {
      throw new Error(`${err.message}\n--- npm start printed:\n${output}`);
    });
    expect(output).toContain('Demo merchant: TESTDEMO');

    const response = await checkedFetch(
      `http://127.0.0.1:${httpPort}`,
      '/api/rest/version/100/merchant/TESTDEMO/order/o-1/transaction/t-1',
      {
        method: 'PUT',
        headers: { authorization: `Basic ${Buffer.from(`merchant.TESTDEMO:${password}`).toString('base64')}` },
        body: '{',
      },
    );
    // Authenticated and routed: the unparsable body is the first problem found.
    expect(response.status).toBe(400);

    // Ctrl-C reaches the whole foreground process group (npm itself then ends by the signal).
    process.kill(-gateway.pid!, 'SIGINT');
    const { code, signal } = await exited;
    expect(code === 0 || signal === 'SIGINT').toBe(true);
    // Nothing is left behind: neither the gateway nor its embedded Postgres.
    const leftovers = () =>
      execFileSync('ps', ['-eo', 'args'])
        .toString()
        .split('\n')
        .filter((line) => line.includes(clone) && !line.startsWith('ps '));
    await waitFor(async () => leftovers().length === 0, { timeoutMs: 20_000, what: 'the gateway and its Postgres to exit' });
  });
});
