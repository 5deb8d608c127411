import path from 'node:path';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { freePort, testInfra, waitFor } from '@gateway/testing';
import { call, checkedFetch, createMerchant, TestMerchant } from '../support/gateway-client';
import { readState } from '../support/e2e-state';
import { httpOk, StartedProcess, startApp } from '../support/processes';

jest.setTimeout(60_000);

/**
 * An edge whose services are gone (a NATS subject prefix nobody serves) or hung (a subscriber
 * that never answers): a valid operation is answered 503 SERVER_BUSY within the configured
 * timeout, never a hang and never a 500.
 */
describe('operations while services are unavailable', () => {
  const TIMEOUT_MS = 800;
  const prefix = `lonely${Date.now()}.`;
  let edge: StartedProcess;
  let base: string;
  let merchant: TestMerchant;
  let nats: NatsConnection;

  beforeAll(async () => {
    merchant = await createMerchant();
    const state = readState();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    edge = startApp(
      'api-edge',
      {
        ...state.appEnv['api-edge'],
        HTTP_PORT: String(port),
        NATS_SUBJECT_PREFIX: prefix,
        NATS_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
      },
      path.join(state.logDir, 'service-unavailable'),
      'lonely-edge',
    );
    await waitFor(() => httpOk(`${base}/health/live`), { timeoutMs: 30_000, what: 'the lonely edge' });
    nats = await connect({ servers: testInfra.natsUrl });
  });

  afterAll(async () => {
    await edge?.stop();
    await nats?.close();
  });

  const verify = (orderId: string) =>
    checkedFetch(base, `${merchant.base()}/order/${orderId}/transaction/t-1`, {
      method: 'PUT',
      headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({
        apiOperation: 'VERIFY',
        sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } },
        order: { currency: 'USD' },
      }),
    });

  it('answers 503 SERVER_BUSY with Retry-After at once when no instance of the service is running', async () => {
    const started = Date.now();
    const response = await verify('no-responders');
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await response.json()).toEqual({
      error: { cause: 'SERVER_BUSY', explanation: expect.any(String) },
      result: 'ERROR',
    });
  });

  it('answers 503 SERVER_BUSY after the configured timeout when the service never answers', async () => {
    const hung = nats.subscribe(`${prefix}order-transaction.verify.v1`, { queue: 'order-transaction', callback: () => undefined });
    try {
      const started = Date.now();
      const response = await verify('hung-service');
      const elapsed = Date.now() - started;
      expect(response.status).toBe(503);
      expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(elapsed).toBeLessThan(TIMEOUT_MS + 2_000);
      expect(await response.json()).toMatchObject({ error: { cause: 'SERVER_BUSY' }, result: 'ERROR' });
    } finally {
      hung.unsubscribe();
    }
  });

  it('stays ready while no service answers: its own dependencies do, and each operation answers for itself', async () => {
    // docs/decisions/edge-readiness.md: a missing service must not take every edge replica out
    // of the load balancer; the operations that need it answer 503 SERVER_BUSY (above).
    const response = await fetch(`${base}/health/ready`);
    expect(response.status).toBe(200);
    expect((await call('GET', '/health/ready')).status).toBe(200);
  });
});
