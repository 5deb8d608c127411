import { readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, TEST_CARD, waitFor } from '@gateway/testing';
import { admin, basic, checkedFetch, createMerchant, readState, TestMerchant } from '../support/gateway-client';
import { StartedProcess, startApp } from '../support/processes';

jest.setTimeout(120_000);

/**
 * Two more api-edge processes of this run (the edge's own database role, as deployed), each
 * caching merchant profiles for a minute, and the admin CLI as the platform team runs it: a
 * disabled merchant and a revoked password stop working on both at once
 * (docs/decisions/merchant-cache-invalidation.md). Each wait gives up after 5 s, far inside the
 * minute. Requests carry a body that is not JSON: its 400 comes only after the credentials were
 * accepted (the order of checks), so it tells an authenticated request apart.
 */
describe('merchant changes made with the admin CLI, on edge replicas that cache profiles', () => {
  const replicas: { process: StartedProcess; url: string }[] = [];

  beforeAll(async () => {
    const state = readState();
    const logDir = path.join(state.logDir, 'merchant-changes');
    for (const name of ['edge-c', 'edge-d']) {
      const port = await freePort();
      const env = {
        ...state.appEnv['api-edge'],
        HTTP_PORT: String(port),
        MERCHANT_CACHE_TTL_MS: '60000',
        DATABASE_MIGRATE_ON_START: 'false',
      };
      replicas.push({ process: startApp('api-edge', env, logDir, name), url: `http://127.0.0.1:${port}` });
    }
    for (const replica of replicas) {
      await waitFor(async () => (await fetch(`${replica.url}/health/ready`).catch(() => undefined))?.status === 200, {
        timeoutMs: 60_000,
        what: `${replica.process.name} to be ready`,
      });
    }
  });

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.process.stop()));
  });

  /** The status `replica` answers the merchant with `password`: 400 once authenticated (the body), else 401 or 403. */
  async function status(replica: number, merchant: TestMerchant, password = merchant.password): Promise<number> {
    const response = await checkedFetch(replicas[replica].url, `${merchant.base()}/order/o-${Date.now()}/transaction/t-1`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: basic(`merchant.${merchant.id}`, password) },
      body: `{"apiOperation":"VERIFY","sourceOfFunds":{"provided":{"card":{"number":"${TEST_CARD}"`,
    });
    await response.body?.cancel();
    return response.status;
  }

  async function answers(replica: number, merchant: TestMerchant, expected: number, password?: string): Promise<void> {
    await waitFor(async () => (await status(replica, merchant, password)) === expected, {
      timeoutMs: 5_000,
      intervalMs: 20,
      what: `${expected} from ${replicas[replica].process.name}`,
    });
  }

  it('refuses a disabled merchant (403) and a revoked password (401) on both replicas at once, and takes the new password', async () => {
    const merchant = await createMerchant();
    for (const replica of [0, 1]) {
      expect(await status(replica, merchant)).toBe(400);
    }
    await admin(['disable', merchant.id]);
    for (const replica of [0, 1]) {
      await answers(replica, merchant, 403);
    }
    await admin(['enable', merchant.id]);
    const { apiPassword } = (await admin(['rotate-password', merchant.id, '--keep-previous-hours', '0'])) as { apiPassword: string };
    for (const replica of [0, 1]) {
      await answers(replica, merchant, 401);
      expect(await status(replica, merchant, apiPassword)).toBe(400);
    }
  });

  it('says so in each replica\'s log, with the session it listens on', async () => {
    for (const { process } of replicas) {
      expect(readFileSync(process.logFile, 'utf8')).toMatch(/"backendPid":\d+.*"msg":"listening for merchant changes"/);
    }
  });
});
