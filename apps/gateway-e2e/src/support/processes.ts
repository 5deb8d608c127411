import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../../../..');
export const DIST = path.join(ROOT, 'dist');

export const APPS = ['api-edge', 'token-vault', 'order-transaction', 'browser-payment', 'verification'] as const;
export type AppName = (typeof APPS)[number] | 'gateway';

export interface StartedProcess {
  name: string;
  pid: number;
  child: ChildProcess;
  logFile: string;
  /** SIGTERM, then waits for exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
  exited: Promise<number | null>;
}

/** Starts a built app (`dist/apps/<app>/src/main.js`) with its output in a log file. */
export function startApp(
  app: AppName,
  env: Record<string, string>,
  logDir: string,
  label: string = app,
  args: string[] = [],
): StartedProcess {
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${label}.log`);
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, [path.join(DIST, 'apps', app, 'src', 'main.js'), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      log.end();
      resolve(code);
    }),
  );
  return {
    name: label,
    pid: child.pid!,
    child,
    logFile,
    exited,
    async stop(signal = 'SIGTERM', timeoutMs = 20_000) {
      if (child.exitCode !== null || child.signalCode !== null) {
        return child.exitCode;
      }
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

export async function httpOk(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return response.ok;
  } catch {
    return false;
  }
}
