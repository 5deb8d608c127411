import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { RequestHasher } from '@gateway/platform';
import { ROOT } from './processes';

/** What the global setup started, for the test files (which run in other processes). */
export interface E2eState {
  profile: 'distributed' | 'standalone';
  runId: string;
  baseUrl: string;
  logDir: string;
  /** Environment for the admin CLI to reach this run's merchants. */
  adminEnv: Record<string, string>;
  adminArgs: string[];
  /** Environment each app was started with (tests that start extra replicas reuse it). */
  appEnv: Record<string, Record<string, string>>;
  /** Per-app HTTP base (health, metrics); the edge's is baseUrl. */
  appUrls: Record<string, string>;
  /** Apps that serve /metrics on a port of their own (METRICS_PORT): that port's base. */
  metricsUrls?: Record<string, string>;
  pids: Record<string, number>;
  database?: string;
  roles?: string[];
  redisPrefix?: string;
  natsPrefix?: string;
  standaloneDataDir?: string;
  /** The certificate the dispatchers trust (WEBHOOK_CA_FILE) for the tests' webhook receivers. */
  webhookReceiverTls?: { certFile: string; keyFile: string };
}

/** The profile's run: `npm test` runs the profiles' tiers side by side, each with its own gateway. */
export const E2E_PROFILE_NAME = process.env.E2E_PROFILE === 'standalone' ? 'standalone' : 'distributed';
/**
 * Which of the tier's files a run takes (jest.config.js): `infra` (the *.infra.e2e-spec.ts that
 * start and stop processes and servers of their own), `others`, or all (unset). `npm test` runs
 * the distributed profile's two halves at the same time, each with a gateway and state of its own.
 */
export const E2E_SUITES = process.env.E2E_SUITES ?? '';
export const STATE_FILE = path.join(ROOT, 'tmp', `e2e-state-${E2E_PROFILE_NAME}${E2E_SUITES ? `-${E2E_SUITES}` : ''}.json`);

export function writeState(state: E2eState): void {
  writeFileSync(STATE_FILE, JSON.stringify(state, null, 2));
}

export function readState(): E2eState {
  if (!existsSync(STATE_FILE)) {
    throw new Error('No e2e run in progress: run the e2e tier with `jest --selectProjects e2e`.');
  }
  return JSON.parse(readFileSync(STATE_FILE, 'utf8')) as E2eState;
}

/**
 * The request hasher of the run's services (distributed profile: order-transaction's key), for
 * ledger messages a test sends over NATS itself, as a service would.
 */
export function servicesRequestHasher(): RequestHasher {
  const key = readState().appEnv['order-transaction']?.REQUEST_HASH_KEY;
  if (!key) {
    throw new Error('No REQUEST_HASH_KEY in the run\'s state: ledger messages are sent over NATS in the distributed profile only.');
  }
  return RequestHasher.fromText(key);
}
