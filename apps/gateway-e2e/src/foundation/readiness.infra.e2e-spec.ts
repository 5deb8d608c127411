import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { waitFor, freePort } from '@gateway/testing';
import { checkedFetch } from '../support/gateway-client';
import { readState } from '../support/e2e-state';
import { APPS, StartedProcess, startApp } from '../support/processes';
import { throwawayNats, throwawayPostgres, throwawayRedis, ThrowawayServer } from '../support/throwaway-servers';

jest.setTimeout(180_000);

type Readiness = Record<string, number>;

/**
 * Every app against Postgres, Redis and NATS of this test's own: readiness must turn false
 * while a dependency is down, and true again when it is back, without restarting the app.
 */
describe('readiness follows the dependencies', () => {
  let pg: ThrowawayServer;
  let redis: ThrowawayServer;
  let nats: ThrowawayServer;
  const apps: StartedProcess[] = [];
  const urls: Record<string, string> = {};

  beforeAll(async () => {
    [pg, redis, nats] = await Promise.all([throwawayPostgres(), throwawayRedis(), throwawayNats()]);
    const logDir = path.join(readState().logDir, 'readiness');
    for (const app of APPS) {
      const port = await freePort();
      urls[app] = `http://127.0.0.1:${port}`;
      apps.push(
        startApp(
          app,
          {
            GATEWAY_PROFILE: 'distributed',
            HTTP_HOST: '127.0.0.1',
            HTTP_PORT: String(port),
            DATABASE_URL: pg.url,
            NATS_URL: nats.url,
            REDIS_URL: redis.url,
            API_PASSWORD_PEPPER: randomBytes(32).toString('hex'),
            VAULT_MASTER_KEYS: `readiness:${randomBytes(32).toString('base64')}`,
            VAULT_FINGERPRINT_KEY: randomBytes(32).toString('base64'),
            REQUEST_HASH_KEY: randomBytes(32).toString('base64'),
            // Required by browser-payment; no payer is sent anywhere here.
            PUBLIC_BASE_URL: 'https://pay.readiness.test',
            HEALTH_CHECK_TIMEOUT_MS: '500',
            LOG_LEVEL: 'warn',
          },
          logDir,
        ),
      );
    }
    await waitForReadiness(() => true, 'every app ready');
  });

  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop()));
    await Promise.all([pg, redis, nats].map((s) => s?.destroy()));
  });

  async function readiness(): Promise<Readiness> {
    const entries = await Promise.all(
      Object.entries(urls).map(async ([app, url]) => {
        try {
          const response = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(3_000) });
          return [app, response.status] as const;
        } catch {
          return [app, 0] as const;
        }
      }),
    );
    return Object.fromEntries(entries);
  }

  async function waitForReadiness(expected: (app: string) => boolean, what: string): Promise<void> {
    await waitFor(
      async () => {
        const now = await readiness();
        return Object.entries(now).every(([app, status]) => (expected(app) ? status === 200 : status === 503));
      },
      { timeoutMs: 40_000, intervalMs: 250, what },
    );
  }

  it('turns every app unready while Postgres is stopped, answering requests SERVER_BUSY meanwhile, and ready when it returns', async () => {
    await pg.stop();
    await waitForReadiness(() => false, 'every app unready without Postgres');
    // A request meanwhile: the edge cannot read the merchant's credentials. An outage, not a
    // fault: 503 SERVER_BUSY with a retry hint (docs/decisions/database-unavailable-is-server-busy.md).
    const during = await checkedFetch(urls['api-edge'], '/api/rest/version/100/merchant/OUTAGE1/order/o-1/transaction/t-1', {
      method: 'PUT',
      headers: { authorization: `Basic ${Buffer.from('merchant.OUTAGE1:password').toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ apiOperation: 'VERIFY' }),
    }).finally(() => pg.start());
    expect({ status: during.status, body: await during.json() }).toMatchObject({ status: 503, body: { result: 'ERROR', error: { cause: 'SERVER_BUSY' } } });
    await waitForReadiness(() => true, 'every app ready with Postgres back');
  });

  it('turns the edge unready while Redis is stopped, and ready when it returns', async () => {
    await redis.stop();
    await waitForReadiness((app) => app !== 'api-edge', 'only the edge unready without Redis');
    await redis.start();
    await waitForReadiness(() => true, 'every app ready with Redis back');
  });

  it('turns every app unready while NATS is stopped, and ready when it returns', async () => {
    await nats.stop();
    await waitForReadiness(() => false, 'every app unready without NATS');
    await nats.start();
    await waitForReadiness(() => true, 'every app ready with NATS back');
  });

  it('keeps liveness up while a dependency is down', async () => {
    await nats.stop();
    try {
      for (const url of Object.values(urls)) {
        const response = await fetch(`${url}/health/live`);
        expect(response.status).toBe(200);
      }
    } finally {
      await nats.start();
      await waitForReadiness(() => true, 'every app ready again');
    }
  });

  it('keeps the edge ready while a service is down: the other operations need no such service', async () => {
    const verification = apps.find((app) => app.name === 'verification')!;
    await verification.stop();
    // Longer than the edge would take to see a missing service if its readiness pinged them.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const after = await readiness();
    expect(after['api-edge']).toBe(200);
    expect(after.verification).toBe(0);
  });
});
