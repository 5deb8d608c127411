import { randomBytes } from 'node:crypto';
import { GatewayError, JsonObject, MerchantContext, OrderApiOperation } from '@gateway/contracts';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { LedgerTestApp, newOrderId, startLedgerTestApp, statementsOf, testMerchant } from './testing/ledger-test-app';

/**
 * AUTHORIZE, PAY, CAPTURE and VOID in order-transaction: the real handlers on the in-process bus,
 * the real ledger and Postgres, the built-in test acquirer. No HTTP edge, so no Redis lock: what
 * holds under concurrency is the ledger's own rules on the locked order row.
 */
let app: LedgerTestApp;

beforeAll(async () => {
  app = await startLedgerTestApp();
});

afterAll(async () => {
  await app?.running.shutdown('tests done');
});

let fence = 2_000_000n;
const nextFence = () => (fence += 1n).toString();

async function operate(
  merchant: MerchantContext,
  orderId: string,
  transactionId: string,
  apiOperation: OrderApiOperation,
  body: JsonObject,
  fencingToken = nextFence(),
): Promise<JsonObject> {
  const reply = await app.operate({
    envelope: { merchant, apiVersion: 100, requestId: `req-${randomBytes(4).toString('hex')}`, authMethod: 'PASSWORD', fencingToken },
    apiOperation,
    orderId,
    transactionId,
    body: { apiOperation, ...body },
  });
  return reply.body;
}

const card = { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } };
const authorize = (merchant: MerchantContext, orderId: string, amount: string) =>
  operate(merchant, orderId, 'a1', 'AUTHORIZE', { order: { amount, currency: 'USD' }, sourceOfFunds: card });
const capture = (merchant: MerchantContext, orderId: string, id: string, amount: string, fencingToken?: string) =>
  operate(merchant, orderId, id, 'CAPTURE', { transaction: { amount, currency: 'USD' } }, fencingToken);
const voidOf = (merchant: MerchantContext, orderId: string, id: string, targetTransactionId: string, fencingToken?: string) =>
  operate(merchant, orderId, id, 'VOID', { transaction: { targetTransactionId } }, fencingToken);

const outcome = (promise: Promise<JsonObject>) =>
  promise.then(
    (body) => body.result as string,
    (err: GatewayError) => `${err.code}:${err.field ?? ''}`,
  );

async function orderRow(merchant: MerchantContext, orderId: string) {
  const rows = await app.dataSource.query(
    `SELECT status, total_authorized_amount::text AS authorized, total_captured_amount::text AS captured
       FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2`,
    [merchant.id, orderId],
  );
  return rows[0];
}

async function transactionsOf(merchant: MerchantContext, orderId: string) {
  return app.dataSource.query(
    `SELECT transaction_id AS id, type, amount::text AS amount, result
       FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2 ORDER BY sequence`,
    [merchant.id, orderId],
  ) as Promise<Record<string, string>[]>;
}

async function acquirerCalls(operation: string): Promise<number> {
  const metric = await app.metrics.registry.getSingleMetric('gateway_acquirer_requests_total')?.get();
  return (metric?.values ?? []).filter((v) => v.labels.operation === operation).reduce((sum, v) => sum + v.value, 0);
}

describe('a payment opening its order', () => {
  it('reserves the new order in one statement (the ledger\'s newOrder hint), then completes it without a lock', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    let body: JsonObject = {};
    const sent = await statementsOf(async () => {
      body = await operate(merchant, orderId, 'p1', 'PAY', { order: { amount: '12.00', currency: 'USD' }, sourceOfFunds: card });
    });
    expect(body).toMatchObject({ result: 'SUCCESS', order: { status: 'CAPTURED', totalCapturedAmount: 12 } });
    const verbs = sent.map((sql) => sql.split(' ')[0]);
    // begin's read; the reservation alone; the completion, written on the order as the reservation wrote it.
    expect(verbs).toEqual(['SELECT', 'WITH', 'WITH']);
    expect(sent[1]).toMatch(/^WITH new_order AS/);
  });
});

describe('an operation on an earlier transaction', () => {
  it('gets its target\'s stored response with begin\'s read: a CAPTURE and a VOID are three statements each, no lock', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await authorize(merchant, orderId, '50.00');
    const verbs = (sent: string[]) => sent.map((sql) => sql.split(' ')[0]);
    let captured: JsonObject = {};
    const captureSent = await statementsOf(async () => {
      captured = await capture(merchant, orderId, 'c1', '20.00');
    });
    // The acquirer was reached by the authorisation's reference, and its card shown again: both from the target's response.
    expect(captured).toMatchObject({ result: 'SUCCESS', sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } } });
    expect(verbs(captureSent)).toEqual(['SELECT', 'WITH', 'WITH']);
    let voided: JsonObject = {};
    const voidSent = await statementsOf(async () => {
      voided = await voidOf(merchant, orderId, 'v1', 'c1');
    });
    expect(voided).toMatchObject({ result: 'SUCCESS', transaction: { type: 'VOID_CAPTURE' } });
    expect(verbs(voidSent)).toEqual(['SELECT', 'WITH', 'WITH']);
    expect([...captureSent, ...voidSent].filter((sql) => /FOR UPDATE|START TRANSACTION/.test(sql))).toEqual([]);
  });
});

describe('the capture limit on the locked order row', () => {
  it('20 captures of 6.00 racing on 100.00 authorized: 16 captured, 4 refused before reaching the acquirer', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    expect(await authorize(merchant, orderId, '100.00')).toMatchObject({ result: 'SUCCESS', order: { status: 'AUTHORIZED' } });
    const calls = await acquirerCalls('CAPTURE');
    // One fencing token for all: no lock serialises them, only the order row does.
    const token = nextFence();
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => outcome(capture(merchant, orderId, `c${i}`, '6.00', token))));
    expect(outcomes.filter((o) => o === 'SUCCESS')).toHaveLength(16);
    expect(outcomes.filter((o) => o === 'INVALID_FIELD:transaction.amount')).toHaveLength(4);
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'PARTIALLY_CAPTURED', authorized: '100.0000', captured: '96.0000' });
    expect(await acquirerCalls('CAPTURE')).toBe(calls + 16);
    // The refused ones left nothing behind.
    expect(await transactionsOf(merchant, orderId)).toHaveLength(17);
  });

  it('a capture during a slow capture counts the pending one: the rest is refused with what is left', async () => {
    const merchant = testMerchant({ testAcquirer: { latencyMs: 800 } });
    const orderId = newOrderId();
    await authorize(merchant, orderId, '50.00');
    const token = nextFence();
    const slow = capture(merchant, orderId, 'c1', '40.00', token);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await expect(capture(merchant, orderId, 'c2', '10.01', token)).rejects.toMatchObject({
      explanation: "Value '10.01' is invalid. The amount available for capture on this order is 10.00 USD.",
    });
    expect(await slow).toMatchObject({ result: 'SUCCESS', order: { totalCapturedAmount: 40 } });
  });
});

describe('a partial approval (order.acceptPartialAmount)', () => {
  it('is recorded at the approved amount: the transaction, the totals and the capture limit', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    // 10.51: the test acquirer approves half (docs/decisions/test-acquirer-partial-approvals.md).
    const partial = await operate(merchant, orderId, 'a1', 'AUTHORIZE', {
      order: { amount: '10.51', currency: 'USD', acceptPartialAmount: true },
      sourceOfFunds: card,
    });
    expect(partial).toMatchObject({ response: { gatewayCode: 'PARTIALLY_APPROVED' }, order: { totalAuthorizedAmount: 5.25 } });
    expect(await transactionsOf(merchant, orderId)).toEqual([{ id: 'a1', type: 'AUTHORIZATION', amount: '5.2500', result: 'SUCCESS' }]);
    await expect(capture(merchant, orderId, 'c1', '5.26')).rejects.toMatchObject({
      explanation: "Value '5.26' is invalid. The amount available for capture on this order is 5.25 USD.",
    });
    expect(await capture(merchant, orderId, 'c1', '5.25')).toMatchObject({ result: 'SUCCESS', order: { status: 'CAPTURED', totalCapturedAmount: 5.25 } });
  });
});

describe('a capture\'s tax', () => {
  it('is recorded with it, so a full refund of the order defaults to the tax captured', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await authorize(merchant, orderId, '50.00');
    await operate(merchant, orderId, 'c1', 'CAPTURE', { transaction: { amount: '50.00', currency: 'USD', taxAmount: '4.00' } });
    const refunded = await operate(merchant, orderId, 'r1', 'REFUND', { transaction: { amount: '50.00', currency: 'USD' } });
    expect(refunded).toMatchObject({ result: 'SUCCESS', transaction: { taxAmount: 4 } });
  });
});

describe('the same request sent several times at once without the lock', () => {
  it('reaches the acquirer once: the others answer the stored response', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await authorize(merchant, orderId, '50.00');
    const calls = await acquirerCalls('CAPTURE');
    const token = nextFence();
    await Promise.all(Array.from({ length: 5 }, () => capture(merchant, orderId, 'c1', '10.00', token)));
    expect(await acquirerCalls('CAPTURE')).toBe(calls + 1);
    expect(await transactionsOf(merchant, orderId)).toHaveLength(2);
    expect(await orderRow(merchant, orderId)).toMatchObject({ captured: '10.0000' });
  });
});

describe('void rules', () => {
  it('two voids of one payment racing: one voids it, the other is refused, the order CANCELLED once', async () => {
    const merchant = testMerchant({ testAcquirer: { latencyMs: 200 } });
    const orderId = newOrderId();
    await operate(merchant, orderId, 'p1', 'PAY', { order: { amount: '30.00', currency: 'USD' }, sourceOfFunds: card });
    const token = nextFence();
    const outcomes = await Promise.all([outcome(voidOf(merchant, orderId, 'v1', 'p1', token)), outcome(voidOf(merchant, orderId, 'v2', 'p1', token))]);
    expect(outcomes.sort()).toEqual(['INVALID_FIELD:transaction.targetTransactionId', 'SUCCESS']);
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'CANCELLED', authorized: '0.0000', captured: '0.0000' });
    expect((await transactionsOf(merchant, orderId)).map((t) => t.type)).toEqual(['PAYMENT', 'VOID_PAYMENT']);
  });

  it('a void of a voided transaction, and of an authorization with captures, are 400s that record nothing', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await authorize(merchant, orderId, '20.00');
    await capture(merchant, orderId, 'c1', '5.00');
    await expect(voidOf(merchant, orderId, 'v1', 'a1')).rejects.toMatchObject({ field: 'transaction.targetTransactionId' });
    expect(await voidOf(merchant, orderId, 'v1', 'c1')).toMatchObject({ result: 'SUCCESS', transaction: { type: 'VOID_CAPTURE' }, order: { status: 'AUTHORIZED' } });
    await expect(voidOf(merchant, orderId, 'v2', 'c1')).rejects.toMatchObject({ explanation: expect.stringContaining('already voided by transaction') });
    expect(await voidOf(merchant, orderId, 'v2', 'a1')).toMatchObject({ result: 'SUCCESS', order: { status: 'CANCELLED', totalAuthorizedAmount: 0 } });
    expect((await transactionsOf(merchant, orderId)).map((t) => t.id)).toEqual(['a1', 'c1', 'v1', 'v2']);
  });

  it('replays a void with the stored response and no second acquirer call', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await authorize(merchant, orderId, '20.00');
    const first = await voidOf(merchant, orderId, 'v1', 'a1');
    const calls = await acquirerCalls('VOID');
    expect(await voidOf(merchant, orderId, 'v1', 'a1')).toEqual(first);
    expect(await acquirerCalls('VOID')).toBe(calls);
  });
});
