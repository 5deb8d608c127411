import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { freePort, waitFor } from '@gateway/testing';
import { Client } from 'pg';
import { ROOT } from './processes';

/**
 * Servers of a test's own, on free ports, for tests that must stop and restart a dependency
 * (readiness, failover). Only these are ever stopped, by their own pid: the machine's shared
 * Postgres, Redis and NATS are never touched.
 */
export interface ThrowawayServer {
  url: string;
  pid(): number | undefined;
  /** Its usual shutdown, or `SIGKILL`: a crash, with nothing flushed or said goodbye to. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

const PG_BIN = ['/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/17/bin'].find((dir) =>
  existsSync(path.join(dir, 'postgres')),
);

function tempDir(prefix: string): string {
  mkdirSync(path.join(ROOT, 'tmp'), { recursive: true });
  return mkdtempSync(path.join(ROOT, 'tmp', prefix));
}

async function stopChild(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

function serverProcess(command: string, args: string[], options: { uid?: number; gid?: number } = {}): ChildProcess {
  return spawn(command, args, { stdio: 'ignore', ...options });
}

/** A Postgres cluster in a temporary folder (run as the `postgres` user when we are root). */
export async function throwawayPostgres(): Promise<ThrowawayServer> {
  if (!PG_BIN) {
    throw new Error('Postgres server binaries not found under /usr/lib/postgresql');
  }
  const dir = tempDir('pg-');
  const dataDir = path.join(dir, 'data');
  const asRoot = userInfo().uid === 0;
  const ids = asRoot ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) } : {};
  if (asRoot) {
    chownSync(dir, ids.uid!, ids.gid!);
  }
  execFileSync(path.join(PG_BIN, 'initdb'), ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync'], { stdio: 'ignore', ...ids });
  const port = await freePort();
  let child: ChildProcess | undefined;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const server: ThrowawayServer = {
    url,
    pid: () => child?.pid,
    async start() {
      child = serverProcess(
        path.join(PG_BIN, 'postgres'),
        ['-D', dataDir, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'],
        ids,
      );
      await waitFor(
        async () => {
          const client = new Client({ connectionString: url, connectionTimeoutMillis: 500 });
          await client.connect();
          await client.end();
          return true;
        },
        { timeoutMs: 30_000, what: 'throwaway Postgres' },
      );
    },
    // Fast shutdown (SIGINT): what a crashed or failed-over database looks like to clients.
    stop: (signal = 'SIGINT') => stopChild(child, signal),
    async destroy() {
      await stopChild(child, 'SIGINT');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

export async function throwawayRedis(): Promise<ThrowawayServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const server: ThrowawayServer = {
    url: `redis://127.0.0.1:${port}`,
    pid: () => child?.pid,
    async start() {
      child = serverProcess('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
      await waitFor(() => tcpOpen(port), { timeoutMs: 10_000, what: 'throwaway Redis' });
    },
    stop: (signal = 'SIGTERM') => stopChild(child, signal),
    destroy: () => stopChild(child, 'SIGTERM'),
  };
  await server.start();
  return server;
}

export async function throwawayNats(): Promise<ThrowawayServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const server: ThrowawayServer = {
    url: `nats://127.0.0.1:${port}`,
    pid: () => child?.pid,
    async start() {
      child = serverProcess('nats-server', ['-a', '127.0.0.1', '-p', String(port)]);
      await waitFor(() => tcpOpen(port), { timeoutMs: 10_000, what: 'throwaway NATS' });
    },
    stop: (signal = 'SIGTERM') => stopChild(child, signal),
    destroy: () => stopChild(child, 'SIGTERM'),
  };
  await server.start();
  return server;
}

async function tcpOpen(port: number): Promise<boolean> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
