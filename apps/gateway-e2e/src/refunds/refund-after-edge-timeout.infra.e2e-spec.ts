import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client } from 'pg';
import { defaultMerchantSettings, JsonObject, SUBJECTS } from '@gateway/contracts';
import { GatewayNatsClient } from '@gateway/platform';
import { freePort, testInfra, waitFor } from '@gateway/testing';
import { call, checkedFetch, createMerchant, readState, TestMerchant } from '../support/gateway-client';
import { acquirerRefundCalls, counterTotal } from '../support/metrics';
import { seededCardPayment } from '../support/seeded-payments';
import { httpOk, StartedProcess, startApp } from '../support/processes';

jest.setTimeout(60_000);

/** The 503 explanation of an order operation the service did not answer in time (recommendation 4). */
const MAY_HAVE_BEEN_PROCESSED = expect.stringMatching(/may still have been processed.*same transaction id/);

/**
 * The merchant's retry of its refund `refund-1` of 10.00 (the same body, the same transaction id)
 * on an order captured for 100.00: answered 201 SUCCESS, with 10.00 refunded in all.
 */
async function expectRetryRefundedOnce(merchant: TestMerchant, refundPath: string, body: string): Promise<void> {
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
}

/**
 * Under overload the edge stops waiting for a service after NATS_REQUEST_TIMEOUT_MS and answers
 * 503 SERVER_BUSY. A refund the service began before that (docs/decisions/overload-behaviour.md)
 * is carried out anyway: the money then moved while the merchant was told "busy", so the 503 says
 * it may have been processed, and the merchant's retry under the same transaction id must get the
 * recorded outcome, not a second refund. Here the service is held up deterministically: the test
 * holds the order's row lock in the ledger's database, so the refund, which began in time (its
 * deadline checked before its reservation), waits behind it in its reservation past a
 * short-timeout edge's patience.
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

  it('answers 503 SERVER_BUSY (may have been processed), records the refund begun in time once the service gets to it, and replays it to the retry without a second refund', async () => {
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
      error: { cause: 'SERVER_BUSY', explanation: MAY_HAVE_BEEN_PROCESSED },
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

    await expectRetryRefundedOnce(merchant, refundPath, body);
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

/**
 * The deadline (docs/decisions/operation-deadline.md): a refund whose message waits, before it
 * begins, until the edge has stopped waiting is refused unprocessed. Under overload that wait is
 * the ledger's database pool: here an order-transaction of this file's own (a NATS prefix only it
 * and an impatient edge use, the run's database) has a pool of 2, and the test holds both
 * connections with two refunds whose reservations wait on order rows the test has locked. A third
 * refund then waits for a connection for its first read, past the edge's 800 ms.
 */
describe('a refund that could begin only after the edge stopped waiting', () => {
  const TIMEOUT_MS = 800;
  const POOL_SIZE = 2;
  const state = readState();
  const prefix = `rdl${randomBytes(3).toString('hex')}.`;
  const logDir = path.join(state.logDir, 'refund-past-deadline');
  const processes: StartedProcess[] = [];
  const nats = new GatewayNatsClient({ servers: [testInfra.natsUrl], name: 'e2e-refund-deadline', requestTimeoutMs: 10_000 });
  let impatientBase: string;
  let ledgerBase: string;
  let merchant: TestMerchant;

  beforeAll(async () => {
    const [edgePort, ledgerPort] = await Promise.all([freePort(), freePort()]);
    impatientBase = `http://127.0.0.1:${edgePort}`;
    ledgerBase = `http://127.0.0.1:${ledgerPort}`;
    processes.push(
      startApp(
        'order-transaction',
        {
          ...state.appEnv['order-transaction'],
          NATS_SUBJECT_PREFIX: prefix,
          HTTP_PORT: String(ledgerPort),
          ORDER_TRANSACTION_MODE: 'serve',
          DATABASE_POOL_SIZE: String(POOL_SIZE),
          // Nothing else of this process may take a connection while the test holds the pool.
          UNKNOWN_INQUIRY_INTERVAL_MS: '0',
        },
        logDir,
        'small-pool-ledger',
      ),
      startApp(
        'api-edge',
        { ...state.appEnv['api-edge'], NATS_SUBJECT_PREFIX: prefix, HTTP_PORT: String(edgePort), NATS_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) },
        logDir,
        'impatient-edge',
      ),
    );
    for (const base of [ledgerBase, impatientBase]) {
      await waitFor(() => httpOk(`${base}/health/ready`), { timeoutMs: 60_000, what: `the app at ${base}` });
    }
    merchant = await createMerchant();
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await nats.close();
  });

  async function seedCardPayment(orderId: string): Promise<void> {
    const context = { id: merchant.id, mode: 'TEST' as const, settings: { ...defaultMerchantSettings(), testAcquirer: { latencyMs: 0 } } };
    await nats.request(`${state.natsPrefix}${SUBJECTS.orderTransaction.ledgerRecord}`, seededCardPayment(context, orderId, '100.00'), 10_000);
  }

  async function ledgerMetric(name: string, labels: Record<string, string> = {}): Promise<number> {
    return counterTotal(await (await fetch(`${ledgerBase}/metrics`)).text(), name, labels);
  }

  const refundBody = JSON.stringify({ apiOperation: 'REFUND', transaction: { amount: '10.00', currency: 'USD' } });
  const refundAt = (base: string, orderId: string) =>
    checkedFetch(base, `${merchant.base(29)}/order/${orderId}/transaction/refund-1`, {
      method: 'PUT',
      headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
      body: refundBody,
    });

  it('is not carried out (nothing recorded, no acquirer call), the merchant gets 503, and the retry with the same id refunds once', async () => {
    const run = Date.now();
    const holders = [`deadline-hold1-${run}`, `deadline-hold2-${run}`];
    const late = `deadline-late-${run}`;
    for (const orderId of [...holders, late]) {
      await seedCardPayment(orderId);
    }
    const handledRefunds = () =>
      ledgerMetric('gateway_message_handler_duration_seconds_count', { subject: SUBJECTS.orderTransaction.refund });
    const handledBefore = await handledRefunds();

    const ledger = new Client({ connectionString: state.appEnv['order-transaction'].DATABASE_URL });
    await ledger.connect();
    let answers: Response[];
    try {
      await ledger.query('BEGIN');
      await ledger.query('SELECT 1 FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = ANY($2) FOR UPDATE', [merchant.id, holders]);
      const { rows } = await ledger.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const held = holders.map((orderId) => refundAt(impatientBase, orderId));
      // Both of the small pool's connections wait on the locked rows, in the holders' reservations.
      await waitFor(
        async () => {
          // pg_locks, not pg_stat_activity: inside a transaction the latter is a snapshot taken at its first read.
          const blocked = await ledger.query<{ n: number }>(
            'SELECT count(DISTINCT pid)::int AS n FROM pg_locks WHERE NOT granted AND $1 = ANY(pg_blocking_pids(pid))',
            [rows[0].pid],
          );
          return blocked.rows[0].n === POOL_SIZE;
        },
        { timeoutMs: 10_000, what: "the holders' reservations to wait on the locked rows" },
      );
      // This one's first read waits for a connection until after the edge has stopped waiting.
      answers = await Promise.all([...held, refundAt(impatientBase, late)]);
    } finally {
      await ledger.query('COMMIT').finally(() => ledger.end());
    }
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    expect(await answers[2].json()).toEqual({ error: { cause: 'SERVER_BUSY', explanation: MAY_HAVE_BEEN_PROCESSED }, result: 'ERROR' });

    // Once the rows are free the holders' refunds, begun in time, complete; the late one is refused unprocessed.
    await waitFor(async () => (await handledRefunds()) - handledBefore === 3, { timeoutMs: 20_000, what: 'the small-pool ledger to handle the three refunds' });
    const transactions = await new Client({ connectionString: state.appEnv['order-transaction'].DATABASE_URL });
    await transactions.connect();
    try {
      const recorded = await transactions.query<{ order_id: string; result: string }>(
        "SELECT order_id, result FROM order_transaction.transactions WHERE merchant_id = $1 AND transaction_id = 'refund-1' ORDER BY order_id",
        [merchant.id],
      );
      expect(recorded.rows).toEqual(holders.map((orderId) => ({ order_id: orderId, result: 'SUCCESS' })));
    } finally {
      await transactions.end();
    }
    expect(await ledgerMetric('gateway_acquirer_requests_total', { operation: 'REFUND' })).toBe(2);
    expect(await ledgerMetric('gateway_messages_past_deadline_total', { subject: SUBJECTS.orderTransaction.refund })).toBe(1);

    // The merchant's retry with the same transaction id, at the run's own edge, refunds once.
    const callsBefore = await acquirerRefundCalls();
    await expectRetryRefundedOnce(merchant, `${merchant.base(29)}/order/${late}/transaction/refund-1`, refundBody);
    expect((await acquirerRefundCalls()) - callsBefore).toBe(1);
  });
});

