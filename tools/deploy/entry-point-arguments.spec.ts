import { spawn } from 'node:child_process';
import { createServer, Server } from 'node:net';
import path from 'node:path';
import { OPERATOR_COMMAND_NAMES as BROWSER_PAYMENT_COMMANDS } from '@gateway/browser-payment/feature';
import { OPERATOR_COMMAND_NAMES as ORDER_TRANSACTION_COMMANDS } from '@gateway/order-transaction/feature';

jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../..');

/**
 * Each app's entry point (`node main.js` in its image) started with `--help`, or with an argument
 * it does not take, from its sources. The environment would let it start: its database, NATS and
 * Redis are a listener that counts connections, so an entry point that went on to start is seen
 * connecting (or failing on the settings it still lacks) instead of answering from its line. The
 * standalone gateway's data folder cannot be created, so that it never starts an embedded Postgres.
 */
interface Run {
  status: number | null | string;
  stdout: string;
  stderr: string;
}

let listener: Server;
let connections = 0;
let env: Record<string, string>;

beforeAll(async () => {
  listener = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const port = (listener.address() as { port: number }).port;
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    DATABASE_URL: `postgres://gateway:x@127.0.0.1:${port}/gateway`,
    NATS_URL: `nats://127.0.0.1:${port}`,
    REDIS_URL: `redis://127.0.0.1:${port}`,
    PUBLIC_BASE_URL: 'https://pay.example.com',
    API_PASSWORD_PEPPER: 'p'.repeat(32),
    STANDALONE_DATA_DIR: '/dev/null/gateway',
  };
});

afterAll(() => listener.close());

function run(app: string, args: readonly string[]): Promise<Run> {
  const child = spawn(
    process.execPath,
    ['-r', './tools/scripts/register-ts.cjs', `apps/${app}/src/main.ts`, ...args],
    {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ status: 'still running after 20 s', stdout, stderr });
    }, 20_000);
    child.once('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** What each entry point takes besides nothing (serve): its --help names each. */
const TAKES: Record<string, readonly string[]> = {
  'api-edge': ['migrate'],
  'token-vault': ['migrate', 'rotate-keys'],
  'order-transaction': ['migrate', ...ORDER_TRANSACTION_COMMANDS],
  'browser-payment': ['migrate', ...BROWSER_PAYMENT_COMMANDS],
  verification: ['migrate'],
  gateway: ORDER_TRANSACTION_COMMANDS,
};

describe("the apps' entry points read their arguments before anything else", () => {
  it.each(Object.entries(TAKES))(
    '%s --help prints its usage and exits 0, connecting to nothing',
    async (app, takes) => {
      const before = connections;
      const { status, stdout, stderr } = await run(app, ['--help']);
      expect([status, stderr]).toEqual([0, '']);
      expect(stdout).toContain(`Usage: node dist/apps/${app}/src/main.js`);
      expect(stdout).toContain('docs/operations/configuration.md');
      expect(takes.filter((command) => !new RegExp(`^  ${command}\\b`, 'm').test(stdout))).toEqual([]);
      expect(connections).toBe(before);
    },
  );

  it.each(Object.keys(TAKES))(
    '%s refuses an argument it does not take with exit code 64, naming it, connecting to nothing',
    async (app) => {
      const before = connections;
      const { status, stdout, stderr } = await run(app, ['--port=9000']);
      expect([status, stdout, stderr]).toEqual([
        64,
        '',
        "error: unknown argument '--port=9000'. Run with --help.\n",
      ]);
      expect(connections).toBe(before);
    },
  );

  it.each(
    Object.entries(TAKES).flatMap(([app, takes]) =>
      takes.filter((command) => command !== 'migrate').map((command) => [app, command]),
    ),
  )("%s %s --help is still the command's own usage", async (app, command) => {
    const before = connections;
    const { status, stdout } = await run(app, [command, '--help']);
    expect(status).toBe(0);
    expect(stdout).toContain(`${command} `);
    expect(stdout).not.toContain('Exit code 64: an argument this entry point does not take');
    expect(connections).toBe(before);
  });

  it('the admin CLI names its settings reference in its --help, and refuses an unknown argument as usage (its exit code 2)', async () => {
    const help = await run('admin', ['--help']);
    expect([help.status, help.stdout]).toEqual([
      0,
      expect.stringContaining('docs/operations/configuration.md'),
    ]);
    const unknown = await run('admin', ['--port=9000']);
    expect([unknown.status, unknown.stderr]).toEqual([2, expect.stringContaining("'--port'")]);
  });
});
