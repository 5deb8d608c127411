import path from 'node:path';
import { readState } from '../support/e2e-state';
import { startApp } from '../support/processes';
import { readFileSync } from 'node:fs';

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
