import { readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, waitFor } from '@gateway/testing';
import { readState } from '../support/e2e-state';
import { startApp } from '../support/processes';

/** An app refuses to start on a bad or missing setting, and says which variable is at fault. */
describe('startup configuration', () => {
  const logDir = () => path.join(readState().logDir, 'bad-config');

  it.each([
    ['api-edge', { API_PASSWORD_PEPPER: 'too-short' }, 'API_PASSWORD_PEPPER'],
    ['api-edge', { NATS_REQUEST_TIMEOUT_MS: '5s' }, 'NATS_REQUEST_TIMEOUT_MS'],
    ['verification', { DATABASE_URL: '' }, 'DATABASE_URL'],
    ['token-vault', { HTTP_PORT: '70000' }, 'HTTP_PORT'],
    ['order-transaction', { REQUEST_HASH_KEY: '' }, 'REQUEST_HASH_KEY'],
    ['browser-payment', { REQUEST_HASH_KEY: 'dG9vLXNob3J0' }, 'REQUEST_HASH_KEY'],
  ] as const)('%s exits 78 naming %s', async (app, override, variable) => {
    const env = { ...readState().appEnv[app], ...override };
    const started = startApp(app, env, logDir(), `${app}-${variable}`);
    expect(await started.exited).toBe(78);
    const output = readFileSync(started.logFile, 'utf8');
    expect(output).toContain(variable);
    expect(output).not.toMatch(/\bat .+\.js:\d+/); // a clear line, not a stack trace
  });
});

/**
 * A process still starting stops when told to (a Kubernetes rollout or scale-down never waits
 * its whole grace period), and gives up on a database that never answers.
 */
describe('a process waiting for its database at start', () => {
  it('exits at once on SIGTERM', async () => {
    const closedPort = await freePort();
    const env = { ...readState().appEnv.verification, DATABASE_URL: `postgres://postgres@127.0.0.1:${closedPort}/none` };
    const started = startApp('verification', env, path.join(readState().logDir, 'bad-config'), 'verification-database-down');
    await waitFor(async () => /Unable to connect to the database/.test(readFileSync(started.logFile, 'utf8')), {
      timeoutMs: 20_000,
      what: 'the app retrying its database',
    });
    const signalled = Date.now();
    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(2_000);
  });

  it('gives up after DATABASE_CONNECT_TIMEOUT_SECONDS and exits 1, saying why', async () => {
    const closedPort = await freePort();
    const env = {
      ...readState().appEnv.verification,
      DATABASE_URL: `postgres://postgres@127.0.0.1:${closedPort}/none`,
      DATABASE_CONNECT_TIMEOUT_SECONDS: '3',
    };
    const startedAt = Date.now();
    const started = startApp('verification', env, path.join(readState().logDir, 'bad-config'), 'verification-database-never-up');
    expect(await started.exited).toBe(1);
    const elapsed = Date.now() - startedAt;
    // Tries every second until the deadline (closed port: each try fails at once), then stops.
    expect(elapsed).toBeGreaterThanOrEqual(2_000);
    expect(elapsed).toBeLessThan(15_000);
    const output = readFileSync(started.logFile, 'utf8');
    expect(output).toMatch(/Unable to connect to the database/);
    expect(output).toMatch(/"msg":"startup failed"/);
    expect(output).toContain('ECONNREFUSED');
  });
});
