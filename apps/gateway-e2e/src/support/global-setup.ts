import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { provisionServiceRoles } from '@gateway/platform';
import { createDatabase, freePort, newRunId, recordForAtRestScan, selfSignedCertificate, testInfra, waitFor } from '@gateway/testing';
import { E2E_PROFILE_NAME, E2eState, writeState } from './e2e-state';
import { recordSecret } from './gateway-client';
import { APPS, httpOk, ROOT, StartedProcess, startApp } from './processes';

/** Service schema names, and the app that owns each. */
export const SCHEMA_OF: Record<(typeof APPS)[number], string> = {
  'api-edge': 'edge',
  'token-vault': 'token_vault',
  'order-transaction': 'order_transaction',
  'browser-payment': 'browser_payment',
  verification: 'verification',
};

declare global {
  var __E2E_PROCESSES__: StartedProcess[] | undefined;
}

/**
 * Boots the gateway for the e2e tier, in the profile E2E_PROFILE names: `distributed` (each
 * app its own process, each service its own Postgres role and schema, the machine's NATS and
 * Redis under this run's prefixes) or `standalone` (one process, embedded Postgres).
 */
export default async function setup(): Promise<void> {
  const profile = E2E_PROFILE_NAME;
  if (!process.env.E2E_SKIP_BUILD) {
    execFileSync(process.execPath, [path.join(ROOT, 'tools/scripts/build.mjs')], { stdio: 'inherit' });
  }
  const runId = newRunId();
  const logDir = path.join(ROOT, 'test-artifacts', 'logs', `${runId}-${profile}`);
  mkdirSync(path.join(ROOT, 'tmp'), { recursive: true });
  try {
    const state = profile === 'standalone' ? await startStandalone(runId, logDir) : await startDistributed(runId, logDir);
    writeState(state);
  } catch (err) {
    // Jest skips the teardown when the setup fails: stop what was started here.
    await Promise.all((globalThis.__E2E_PROCESSES__ ?? []).map((p) => p.stop()));
    throw err;
  }
  process.env.E2E_RUN_ID = runId;
}

/**
 * Webhook receivers of the tests listen on https://localhost with a self-signed certificate the
 * dispatchers trust through WEBHOOK_CA_FILE (explicit test configuration); test merchants may
 * be notified on loopback addresses here, and retries come fast.
 */
function webhookTestConfig(runId: string): { env: Record<string, string>; certFile: string; keyFile: string } {
  const dir = path.join(ROOT, 'tmp', `e2e-webhooks-${runId}`);
  mkdirSync(dir, { recursive: true });
  const { cert, key } = selfSignedCertificate();
  const certFile = path.join(dir, 'receiver-cert.pem');
  const keyFile = path.join(dir, 'receiver-key.pem');
  writeFileSync(certFile, cert);
  writeFileSync(keyFile, key, { mode: 0o600 });
  return {
    certFile,
    keyFile,
    env: {
      WEBHOOK_CA_FILE: certFile,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      WEBHOOK_RETRY_BASE_MS: '200',
      WEBHOOK_RETRY_MAX_DELAY_MS: '1000',
    },
  };
}

/**
 * The ledger asks the test acquirer about UNKNOWN outcomes (expiry 05/37) soon and often, so a
 * test can watch one learned within seconds; production waits minutes (docs/decisions/unknown-resolution.md).
 */
const UNKNOWN_INQUIRY_TEST_ENV: Record<string, string> = {
  UNKNOWN_INQUIRY_INTERVAL_MS: '500',
  UNKNOWN_INQUIRY_AFTER_MS: '1500',
};

const common = (runId: string): Record<string, string> => ({
  LOG_LEVEL: 'info',
  NATS_URL: testInfra.natsUrl,
  NATS_SUBJECT_PREFIX: `e${runId}.`,
  // Production's: the ledger's calls under the edge's wait (REFUND_CALL_TIMEOUT_MS, 5 s, then a
  // timed-out call's reversal, 3 s) must end before it, or order-transaction refuses to start.
  NATS_REQUEST_TIMEOUT_MS: '10000',
  // Settings changed by a test apply to its next request.
  MERCHANT_CACHE_TTL_MS: '0',
  // Every test calls from 127.0.0.1: their deliberate wrong passwords must not add up to an
  // address block for the whole run (the limits have tests of their own).
  AUTH_FAILURES_PER_ADDRESS: '100000',
});

async function startDistributed(runId: string, logDir: string): Promise<E2eState> {
  const database = `gw_e2e_${runId}`;
  const adminDbUrl = await createDatabase(database);
  const roles = APPS.map((app) => ({
    app,
    schema: SCHEMA_OF[app],
    role: `gw_${runId}_${SCHEMA_OF[app]}`.toLowerCase(),
    password: randomBytes(12).toString('hex'),
  }));
  await provisionServiceRoles(adminDbUrl, roles);
  recordForAtRestScan('role', ...roles.map((r) => r.role));
  const roleUrl = (role: string, password: string) => {
    const url = new URL(adminDbUrl);
    url.username = role;
    url.password = password;
    return url.toString();
  };
  const ports = Object.fromEntries(await Promise.all(APPS.map(async (app) => [app, await freePort()] as const)));
  // As deployed (k8s/): the edge serves /metrics on a port of its own, the services on theirs.
  const edgeMetricsPort = await freePort();
  const pepper = randomBytes(32).toString('hex');
  recordSecret(pepper);
  const vaultKeys = { master: randomBytes(32).toString('base64'), fingerprint: randomBytes(32).toString('base64') };
  recordSecret(vaultKeys.master);
  recordSecret(vaultKeys.fingerprint);
  // The replay hashes' key: order-transaction and browser-payment share it.
  const requestHashKey = randomBytes(32).toString('base64');
  recordSecret(requestHashKey);
  const webhookKeys = `e2e-1:${randomBytes(32).toString('base64')}`;
  recordSecret(webhookKeys.slice('e2e-1:'.length));
  const webhooks = webhookTestConfig(runId);
  const redisPrefix = `e2e:${runId}:`;
  recordForAtRestScan('redis', redisPrefix);
  const base = `http://127.0.0.1:${ports['api-edge']}`;
  const appEnv: Record<string, Record<string, string>> = {};
  for (const { app, role, password } of roles) {
    appEnv[app] = {
      ...common(runId),
      // The standalone gateway listens on the loopback address by default; these apps are told.
      HTTP_HOST: '127.0.0.1',
      GATEWAY_PROFILE: 'distributed',
      // Production's, what a stopping ledger needs and above what a stopping edge needs (api-edge
      // and order-transaction refuse to start with less); a process that has finished exits sooner.
      SHUTDOWN_GRACE_MS: '50000',
      HTTP_PORT: String(ports[app]),
      DATABASE_URL: roleUrl(role, password),
      ...(app === 'api-edge'
        ? {
            REDIS_URL: testInfra.redisUrl,
            REDIS_KEY_PREFIX: redisPrefix,
            API_PASSWORD_PEPPER: pepper,
          }
        : {}),
      // browser-payment builds the payer's redirect URLs on the edge's address.
      ...(app === 'browser-payment' ? { PUBLIC_BASE_URL: base, REQUEST_HASH_KEY: requestHashKey } : {}),
      ...(app === 'token-vault'
        ? { VAULT_MASTER_KEYS: `e2e-1:${vaultKeys.master}`, VAULT_FINGERPRINT_KEY: vaultKeys.fingerprint }
        : {}),
      // The ledger and the webhook dispatcher in one process (production runs them apart).
      ...(app === 'order-transaction'
        ? { ORDER_TRANSACTION_MODE: 'all', REQUEST_HASH_KEY: requestHashKey, WEBHOOK_SECRET_KEYS: webhookKeys, ...webhooks.env, ...UNKNOWN_INQUIRY_TEST_ENV }
        : {}),
    };
  }
  // The edge's metrics port is this edge's alone: kept out of appEnv, which tests copy to start
  // more edges (those serve /metrics on their HTTP port).
  const processes = APPS.map((app) => startApp(app, app === 'api-edge' ? { ...appEnv[app], METRICS_PORT: String(edgeMetricsPort) } : appEnv[app], logDir));
  globalThis.__E2E_PROCESSES__ = processes;
  await waitFor(() => httpOk(`${base}/health/ready`), { timeoutMs: 60_000, what: 'the distributed gateway to be ready' });
  return {
    profile: 'distributed',
    runId,
    baseUrl: base,
    logDir,
    adminEnv: { DATABASE_URL: appEnv['api-edge'].DATABASE_URL, API_PASSWORD_PEPPER: pepper, WEBHOOK_SECRET_KEYS: webhookKeys },
    adminArgs: [],
    appEnv,
    appUrls: Object.fromEntries(APPS.map((app) => [app, `http://127.0.0.1:${ports[app]}`])),
    metricsUrls: { 'api-edge': `http://127.0.0.1:${edgeMetricsPort}` },
    pids: Object.fromEntries(processes.map((p) => [p.name, p.pid])),
    database,
    roles: roles.map((r) => r.role),
    redisPrefix,
    natsPrefix: `e${runId}.`,
    webhookReceiverTls: { certFile: webhooks.certFile, keyFile: webhooks.keyFile },
  };
}

async function startStandalone(runId: string, logDir: string): Promise<E2eState> {
  const dataDir = path.join(ROOT, 'tmp', `e2e-${runId}`);
  recordForAtRestScan('dir', dataDir);
  const [httpPort, pgPort] = [await freePort(), await freePort()];
  const webhooks = webhookTestConfig(runId);
  const env = {
    ...common(runId),
    ...webhooks.env,
    ...UNKNOWN_INQUIRY_TEST_ENV,
    // No SHUTDOWN_GRACE_MS: as `npm start`, the gateway takes what it needs with these settings
    // (60.1 s: a card operation begun late in an order operation's budget runs on after the edge's
    // wait), more than the distributed apps' 50 s, which it would refuse. Nothing in flight at the
    // teardown's SIGTERM: it exits at once.
    HTTP_PORT: String(httpPort),
    STANDALONE_DATA_DIR: dataDir,
    STANDALONE_PG_PORT: String(pgPort),
    PUBLIC_BASE_URL: `http://127.0.0.1:${httpPort}`,
  };
  const gateway = startApp('gateway', env, logDir);
  globalThis.__E2E_PROCESSES__ = [gateway];
  const base = `http://127.0.0.1:${httpPort}`;
  await waitFor(() => httpOk(`${base}/health/ready`), { timeoutMs: 90_000, what: 'the standalone gateway to be ready' });
  return {
    profile: 'standalone',
    runId,
    baseUrl: base,
    logDir,
    adminEnv: { STANDALONE_DATA_DIR: dataDir, STANDALONE_PG_PORT: String(pgPort) },
    adminArgs: ['--standalone'],
    appEnv: { gateway: env },
    appUrls: { gateway: base },
    pids: { gateway: gateway.pid },
    standaloneDataDir: dataDir,
    webhookReceiverTls: { certFile: webhooks.certFile, keyFile: webhooks.keyFile },
  };
}
