import path from 'node:path';
import { Client } from 'pg';
import { defaultMerchantSettings, JsonObject, SUBJECTS } from '@gateway/contracts';
import { GatewayNatsClient } from '@gateway/platform';
import { freePort, testInfra, waitFor } from '@gateway/testing';
import { call, checkedFetch, createMerchant, readState, TestMerchant } from '../support/gateway-client';
import { acquirerRefundCalls } from '../support/metrics';
import { seededCardPayment } from '../support/seeded-payments';
import { httpOk, StartedProcess, startApp } from '../support/processes';

jest.setTimeout(60_000);

/**
 * Under overload the edge stops waiting for a service after NATS_REQUEST_TIMEOUT_MS and answers
 * 503 SERVER_BUSY, yet the service still has the message and carries the operation out
 * (docs/decisions/overload-behaviour.md). The money then moved while the merchant was told
 * "busy": the merchant's retry under the same transaction id must get the recorded outcome,
 * not a second refund. Here the service is held up deterministically: the test holds the
 * order's row lock in the ledger's database, so the refund's reservation waits behind it past
 * a short-timeout edge's patience.
 */
describe('a refund the edge stopped waiting for', () => {
  const TIMEOUT_MS = 800;
  const nats = new GatewayNatsClient({
    servers: [testInfra.natsUrl],
    name: 'e2e-refund-timeout',
    requestTimeoutMs: 10_000,
  });
  let edge: StartedProcess;
  let impatientBase: string;
  let merchant: TestMerchant;

  beforeAll(async () => {
    merchant = await createMerchant();
    const state = readState();
    const port = await freePort();
    impatientBase = `http://127.0.0.1:${port}`;
    edge = startApp(
      'api-edge',
      { ...state.appEnv['api-edge'], HTTP_PORT: String(port), NATS_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) },
      path.join(state.logDir, 'refund-after-edge-timeout'),
      'impatient-edge',
    );
    await waitFor(() => httpOk(`${impatientBase}/health/ready`), {
      timeoutMs: 30_000,
      what: 'the impatient edge',
    });
  });

  afterAll(async () => {
    await edge?.stop();
    await nats.close();
  });

  async function seedCardPayment(orderId: string): Promise<void> {
    const context = { id: merchant.id, mode: 'TEST' as const, settings: { ...defaultMerchantSettings(), testAcquirer: { latencyMs: 0 } } };
    await nats.request(`${readState().natsPrefix}${SUBJECTS.orderTransaction.ledgerRecord}`, seededCardPayment(context, orderId, '100.00'), 10_000);
  }

  it('answers 503 SERVER_BUSY, records the refund once the service gets to it, and replays it to the retry without a second refund', async () => {
    const orderId = `refund-timeout-${Date.now()}`;
    await seedCardPayment(orderId);
    const refundPath = `${merchant.base(29)}/order/${orderId}/transaction/refund-1`;
    const body = JSON.stringify({
      apiOperation: 'REFUND',
      transaction: { amount: '10.00', currency: 'USD' },
    });
    const headers = { authorization: merchant.authorization, 'content-type': 'application/json' };
    const callsBefore = await acquirerRefundCalls();

    const ledger = new Client({ connectionString: readState().appEnv['order-transaction'].DATABASE_URL });
    await ledger.connect();
    let busy: Response;
    try {
      await ledger.query('BEGIN');
      await ledger.query(
        'SELECT 1 FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2 FOR UPDATE',
        [merchant.id, orderId],
      );
      busy = await checkedFetch(impatientBase, refundPath, { method: 'PUT', headers, body });
    } finally {
      await ledger.query('COMMIT').finally(() => ledger.end());
    }
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(await busy.json()).toEqual({
      error: { cause: 'SERVER_BUSY', explanation: expect.any(String) },
      result: 'ERROR',
    });

    // The service carries on once the row is free: the refund is recorded although its merchant got a 503.
    const transactionPath = `${merchant.base()}/order/${orderId}/transaction/refund-1`;
    await waitFor(
      async () =>
        (await call<JsonObject>('GET', transactionPath, { authorization: merchant.authorization })).body
          .result === 'SUCCESS',
      {
        timeoutMs: 20_000,
        what: 'the abandoned refund to be recorded',
      },
    );

    const retry = await call<JsonObject>('PUT', refundPath, {
      authorization: merchant.authorization,
      rawBody: body,
      headers: { 'content-type': 'application/json' },
    });
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({
      result: 'SUCCESS',
      transaction: { id: 'refund-1', type: 'REFUND', amount: 10 },
      order: { totalCapturedAmount: 100, totalRefundedAmount: 10 },
    });
    const order = await call<JsonObject>('GET', `${merchant.base()}/order/${orderId}`, {
      authorization: merchant.authorization,
    });
    expect(order.body).toMatchObject({ totalRefundedAmount: 10, status: 'PARTIALLY_REFUNDED' });
    expect(
      (order.body.transaction as JsonObject[]).filter((t) => (t.transaction as JsonObject).type === 'REFUND'),
    ).toHaveLength(1);
    expect((await acquirerRefundCalls()) - callsBefore).toBe(1);
  });
});
