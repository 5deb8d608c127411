import { randomBytes } from 'node:crypto';
import {
  defaultMerchantSettings,
  JsonObject,
  MerchantContext,
  notificationSecretContext,
  OperationReply,
  SUBJECTS,
} from '@gateway/contracts';
import { SealingKeyRing, Secret } from '@gateway/crypto';
import { UnresolvedTransactions } from '@gateway/order-transaction/data-access';
import { RecordOperation } from '@gateway/order-transaction/domain';
import { createLogger } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { recordLostOver, resolveUnknownOver } from './operator-commands';
import { LedgerTestApp, newOrderId, operateAs, startLedgerTestApp, testMerchant } from './testing/ledger-test-app';
import { runTransactionsCommand } from './transactions.command';

/**
 * `transactions resolve` (ResolveUnknown) against the real ledger: card operations the test
 * acquirer answers UNKNOWN (expiry 05/37), then resolved by the operator's command, wired as the
 * command's main wires it, over the app's database. No edge, so no Redis lock: what holds when
 * a resolution races an operation is the ledger's own write path.
 */
let app: LedgerTestApp;

beforeAll(async () => {
  app = await startLedgerTestApp();
});

afterAll(async () => {
  await app?.running.shutdown('tests done');
});

const RING = SealingKeyRing.parse(`t1:${randomBytes(32).toString('base64')}`, 'KEYS');
const HOOKS = 'https://merchant.example/hooks';

/** A test merchant with webhook notifications on (a sealed secret, as the admin CLI issues it). */
function notifiedMerchant(settings: Partial<MerchantContext['settings']> = {}): MerchantContext {
  const merchant = testMerchant(settings);
  const secret = RING.seal(new Secret(randomBytes(32).toString('base64url')), notificationSecretContext(merchant.id));
  return { ...merchant, settings: { ...defaultMerchantSettings(), ...settings, notifications: { enabled: true, secret: { current: secret } } } };
}

const card = (expiry: { month: string; year: string }) => ({ type: 'CARD', provided: { card: { number: TEST_CARD, expiry, securityCode: '100' } } });
const payBody = (amount: string, expiry: { month: string; year: string } = TEST_EXPIRY.UNKNOWN, notificationUrl?: string): JsonObject => ({
  order: { amount, currency: 'USD', ...(notificationUrl ? { notificationUrl } : {}) },
  sourceOfFunds: card(expiry),
});

async function resolve(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const logger = createLogger({ service: 'order-transaction', level: 'silent' });
  const ledger = { unresolved: UnresolvedTransactions.over(app.dataSource), resolution: resolveUnknownOver(app.dataSource, logger), lost: recordLostOver(app.dataSource, logger) };
  const code = await runTransactionsCommand(['resolve', ...args], ledger, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const ids = (merchant: MerchantContext, orderId: string, transactionId: string) => ['--merchant', merchant.id, '--order', orderId, '--transaction', transactionId];

async function orderRow(merchant: MerchantContext, orderId: string) {
  const [row] = await app.dataSource.query(
    `SELECT status, total_authorized_amount::text AS authorized, total_captured_amount::text AS captured,
            total_refunded_amount::text AS refunded, operation_count AS "operationCount", last_fencing_token::text AS fence
       FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2`,
    [merchant.id, orderId],
  );
  return row as Record<string, string | number>;
}

async function outboxRows(merchant: MerchantContext, orderId: string) {
  return app.dataSource.query(
    `SELECT transaction_id AS "transactionId", api_operation AS "apiOperation", url, merchant_mode AS mode,
            sealed_secret AS "sealedSecret", payload
       FROM order_transaction.notification_outbox WHERE merchant_id = $1 AND order_id = $2 ORDER BY created_at`,
    [merchant.id, orderId],
  ) as Promise<{ transactionId: string; apiOperation: string; url: string; mode: string; sealedSecret: string; payload: JsonObject }[]>;
}

async function retrieveTransaction(merchant: MerchantContext, orderId: string, transactionId: string): Promise<JsonObject> {
  const envelope = { merchant, apiVersion: 100, requestId: `get-${transactionId}`, authMethod: 'PASSWORD' as const };
  const reply: OperationReply = await app.bus.request(SUBJECTS.orderTransaction.retrieveTransaction, { envelope, orderId, transactionId });
  return reply.body;
}

async function retrieveOrder(merchant: MerchantContext, orderId: string): Promise<JsonObject> {
  const envelope = { merchant, apiVersion: 100, requestId: `get-${orderId}`, authMethod: 'PASSWORD' as const };
  const reply: OperationReply = await app.bus.request(SUBJECTS.orderTransaction.retrieveOrder, { envelope, orderId });
  return reply.body;
}

async function acquirerCalls(operation: string): Promise<number> {
  const metric = await app.metrics.registry.getSingleMetric('gateway_acquirer_requests_total')?.get();
  return (metric?.values ?? []).filter((v) => v.labels.operation === operation).reduce((sum, v) => sum + v.value, 0);
}

describe('a PAY answered UNKNOWN, then learned APPROVED', () => {
  it('captures its amount, answers the learned outcome on GET and on a replay, and notifies as the UNKNOWN outcome was', async () => {
    const merchant = notifiedMerchant();
    const orderId = newOrderId();
    const request = payBody('12.00', TEST_EXPIRY.UNKNOWN, HOOKS);
    const unknown = await operateAs(app, merchant, orderId, 'p1', 'PAY', request);
    expect(unknown).toMatchObject({ result: 'UNKNOWN', response: { gatewayCode: 'UNKNOWN' }, order: { status: 'INITIATED', totalCapturedAmount: 0 } });
    const [announcedUnknown] = await outboxRows(merchant, orderId);
    expect(announcedUnknown.payload).toMatchObject({ result: 'UNKNOWN' });
    const before = await orderRow(merchant, orderId);

    const resolved = await resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'APPROVED', '--acquirer-transaction-id', 'MCC7654320101', '--authorization-code', '123456', '--json']);
    expect(resolved.code).toBe(0);
    expect(JSON.parse(resolved.out)).toEqual({
      status: 'RESOLVED',
      merchantId: merchant.id,
      orderId,
      transactionId: 'p1',
      type: 'PAYMENT',
      amount: '12.00',
      currency: 'USD',
      result: 'SUCCESS',
      gatewayCode: 'APPROVED',
      order: { status: 'CAPTURED', totalAuthorizedAmount: '12.00', totalCapturedAmount: '12.00', totalRefundedAmount: '0.00' },
      notified: true,
    });
    // The order as every record leaves it: derived again, one more operation, its fencing token kept.
    expect(await orderRow(merchant, orderId)).toEqual({
      status: 'CAPTURED',
      authorized: '12.0000',
      captured: '12.0000',
      refunded: '0.0000',
      operationCount: Number(before.operationCount) + 1,
      fence: before.fence,
    });

    const retrieved = await retrieveTransaction(merchant, orderId, 'p1');
    expect(retrieved).toMatchObject({
      result: 'SUCCESS',
      response: { gatewayCode: 'APPROVED' },
      order: { status: 'CAPTURED', totalCapturedAmount: 12 },
      transaction: { id: 'p1', type: 'PAYMENT', amount: 12, authorizationCode: '123456', acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC7654320101' } },
      sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } },
      timeOfRecord: unknown.timeOfRecord,
    });
    expect(await retrieveOrder(merchant, orderId)).toMatchObject({ status: 'CAPTURED', totalCapturedAmount: 12, transaction: [{ result: 'SUCCESS' }] });

    // The merchant retrying its PUT learns the outcome, and nothing reaches the acquirer again.
    const payments = await acquirerCalls('PAY');
    expect(await operateAs(app, merchant, orderId, 'p1', 'PAY', request)).toEqual(retrieved);
    expect(await acquirerCalls('PAY')).toBe(payments);

    const rows = await outboxRows(merchant, orderId);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toEqual({
      transactionId: 'p1',
      apiOperation: 'PAY',
      url: HOOKS,
      mode: 'TEST',
      sealedSecret: announcedUnknown.sealedSecret,
      payload: { ...retrieved, merchant: merchant.id },
    });
    const text = JSON.stringify(rows) + JSON.stringify(retrieved);
    expect(text).not.toContain(TEST_CARD);

    // A refund of it goes to the acquirer by the learned reference.
    expect(await operateAs(app, merchant, orderId, 'r1', 'REFUND', { transaction: { amount: '5.00', currency: 'USD' } })).toMatchObject({
      result: 'SUCCESS',
      order: { status: 'PARTIALLY_REFUNDED', totalRefundedAmount: 5 },
    });
  });

  it('recorded UNKNOWN before the ledger kept its announcement: notified as its UNKNOWN outcome was, while the outbox still holds that notification', async () => {
    const merchant = notifiedMerchant();
    const [announced, purged] = [newOrderId(), newOrderId()];
    for (const orderId of [announced, purged]) {
      expect(await operateAs(app, merchant, orderId, 'p1', 'PAY', payBody('12.00', TEST_EXPIRY.UNKNOWN, HOOKS))).toMatchObject({ result: 'UNKNOWN' });
      // As the release before AddTransactionAnnouncement1765800000000 recorded it: nothing kept.
      await app.dataSource.query(`UPDATE order_transaction.transactions SET announcement = NULL WHERE merchant_id = $1 AND order_id = $2`, [merchant.id, orderId]);
    }
    // The second's UNKNOWN notification purged since its delivery (WEBHOOK_RETENTION_DAYS).
    await app.dataSource.query(`DELETE FROM order_transaction.notification_outbox WHERE merchant_id = $1 AND order_id = $2`, [merchant.id, purged]);
    const [announcedUnknown] = await outboxRows(merchant, announced);

    expect(JSON.parse((await resolve([...ids(merchant, announced, 'p1'), '--outcome', 'APPROVED', '--json'])).out)).toMatchObject({ status: 'RESOLVED', notified: true });
    const retrieved = await retrieveTransaction(merchant, announced, 'p1');
    expect((await outboxRows(merchant, announced))[1]).toEqual({
      transactionId: 'p1',
      apiOperation: 'PAY',
      url: HOOKS,
      mode: 'TEST',
      sealedSecret: announcedUnknown.sealedSecret,
      payload: { ...retrieved, merchant: merchant.id },
    });

    expect(JSON.parse((await resolve([...ids(merchant, purged, 'p1'), '--outcome', 'APPROVED', '--json'])).out)).toMatchObject({ status: 'RESOLVED', notified: false });
    expect(await outboxRows(merchant, purged)).toEqual([]);
  });

  it('a second resolution with the same outcome writes nothing; another outcome is refused', async () => {
    const merchant = notifiedMerchant();
    const orderId = newOrderId();
    await operateAs(app, merchant, orderId, 'p1', 'PAY', payBody('7.00', TEST_EXPIRY.UNKNOWN, HOOKS));
    expect((await resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'APPROVED'])).code).toBe(0);
    const after = { order: await orderRow(merchant, orderId), outbox: await outboxRows(merchant, orderId), body: await retrieveTransaction(merchant, orderId, 'p1') };

    const again = await resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'APPROVED']);
    expect(again).toMatchObject({ code: 0, out: expect.stringMatching(/^Already recorded, nothing written:/) });
    const declined = await resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'DECLINED']);
    expect(declined).toEqual({ code: 1, out: '', err: expect.stringContaining('is recorded SUCCESS (APPROVED), not UNKNOWN') });
    expect({ order: await orderRow(merchant, orderId), outbox: await outboxRows(merchant, orderId), body: await retrieveTransaction(merchant, orderId, 'p1') }).toEqual(after);
  });

  it('two resolutions racing record one outcome once: the other is refused, or finds it recorded', async () => {
    const merchant = notifiedMerchant();
    const orderId = newOrderId();
    await operateAs(app, merchant, orderId, 'p1', 'PAY', payBody('9.00', TEST_EXPIRY.UNKNOWN, HOOKS));
    const [approved, declined, approvedAgain] = await Promise.all([
      resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'APPROVED']),
      resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'DECLINED']),
      resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'APPROVED']),
    ]);
    const { status } = await orderRow(merchant, orderId);
    const outcomes = [approved, declined, approvedAgain].map((r) => r.out.split(':')[0] || `refused ${r.code}`);
    if (status === 'CAPTURED') {
      expect(outcomes.sort()).toEqual(['Already recorded, nothing written', 'Recorded', 'refused 1']);
    } else {
      expect(status).toBe('FAILED');
      expect(outcomes).toEqual(['refused 1', 'Recorded', 'refused 1']);
    }
    // The UNKNOWN outcome's notification and the one resolution's.
    expect(await outboxRows(merchant, orderId)).toHaveLength(2);
  });
});

describe('an AUTHORIZE answered UNKNOWN, then learned APPROVED', () => {
  it('authorises its amount, and a CAPTURE is sent by the learned reference; no notification when the merchant has none', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await operateAs(app, merchant, orderId, 'a1', 'AUTHORIZE', payBody('40.00', TEST_EXPIRY.UNKNOWN, HOOKS));
    const resolved = await resolve([...ids(merchant, orderId, 'a1'), '--outcome', 'APPROVED', '--acquirer-transaction-id', 'MCC1112220101']);
    expect(resolved.code).toBe(0);
    expect(resolved.out.split('\t')).toEqual([
      'Recorded:',
      `${merchant.id}/${orderId}/a1`,
      'AUTHORIZATION',
      '40.00 USD',
      'SUCCESS',
      'APPROVED',
      'order AUTHORIZED',
      'no notification',
    ]);
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'AUTHORIZED', authorized: '40.0000', captured: '0.0000' });
    expect(await operateAs(app, merchant, orderId, 'c1', 'CAPTURE', { transaction: { amount: '40.00', currency: 'USD' } })).toMatchObject({
      result: 'SUCCESS',
      order: { status: 'CAPTURED', totalCapturedAmount: 40 },
    });
    expect(await outboxRows(merchant, orderId)).toEqual([]);
  });
});

describe('a PAY or AUTHORIZE answered UNKNOWN, then learned PARTIALLY_APPROVED (unknown-resolution.md, amendment 2026-11-27)', () => {
  // 110.51 with a tax of 10.00, partial amounts accepted: with an approving card the test acquirer
  // approves 55.25 at once (test-acquirer-partial-approvals.md); with 05/37 its answer is lost.
  const partialBody = (expiry: { month: string; year: string }, notificationUrl?: string): JsonObject => ({
    order: { amount: '110.51', currency: 'USD', itemAmount: '100.51', taxAmount: '10.00', acceptPartialAmount: true, ...(notificationUrl ? { notificationUrl } : {}) },
    sourceOfFunds: card(expiry),
  });

  async function ledgerRows(merchant: MerchantContext, orderId: string, transactionId: string) {
    const [order] = await app.dataSource.query(`SELECT amount::text AS amount, status FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2`, [merchant.id, orderId]);
    const [transaction] = await app.dataSource.query(
      `SELECT amount::text AS amount, result, gateway_code AS "gatewayCode", tax_amount::text AS "taxAmount"
         FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = $3`,
      [merchant.id, orderId, transactionId],
    );
    return { order, transaction };
  }

  it('a PAY is recorded at the approved amount as a live partial approval is: totals, status, stored response (GET, replay), notification', async () => {
    const merchant = notifiedMerchant();
    const orderId = newOrderId();
    const request = partialBody(TEST_EXPIRY.UNKNOWN, HOOKS);
    expect(await operateAs(app, merchant, orderId, 'p1', 'PAY', request)).toMatchObject({ result: 'UNKNOWN', order: { amount: 110.51, status: 'INITIATED' } });
    const before = await orderRow(merchant, orderId);

    const resolved = await resolve([
      ...ids(merchant, orderId, 'p1'),
      '--outcome',
      'PARTIALLY_APPROVED',
      '--approved-amount',
      '55.25',
      '--acquirer-transaction-id',
      'MCC7654320101',
      '--authorization-code',
      '123456',
      '--json',
    ]);
    expect(resolved).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(resolved.out)).toEqual({
      status: 'RESOLVED',
      merchantId: merchant.id,
      orderId,
      transactionId: 'p1',
      type: 'PAYMENT',
      amount: '55.25',
      currency: 'USD',
      result: 'SUCCESS',
      gatewayCode: 'PARTIALLY_APPROVED',
      order: { status: 'CAPTURED', totalAuthorizedAmount: '55.25', totalCapturedAmount: '55.25', totalRefundedAmount: '0.00' },
      notified: true,
    });
    expect(await orderRow(merchant, orderId)).toEqual({
      status: 'CAPTURED',
      authorized: '55.2500',
      captured: '55.2500',
      refunded: '0.0000',
      operationCount: Number(before.operationCount) + 1,
      fence: before.fence,
    });
    // As the completion records a partial approval: the order and the transaction at the amount approved, no tax kept.
    expect(await ledgerRows(merchant, orderId, 'p1')).toEqual({
      order: { amount: '55.2500', status: 'CAPTURED' },
      transaction: { amount: '55.2500', result: 'SUCCESS', gatewayCode: 'PARTIALLY_APPROVED', taxAmount: null },
    });

    const retrieved = await retrieveTransaction(merchant, orderId, 'p1');
    expect(retrieved).toMatchObject({
      result: 'SUCCESS',
      response: { gatewayCode: 'PARTIALLY_APPROVED' },
      order: { amount: 55.25, status: 'CAPTURED', totalAuthorizedAmount: 55.25, totalCapturedAmount: 55.25, acceptPartialAmount: true, taxAmount: 10 },
      transaction: { id: 'p1', type: 'PAYMENT', amount: 55.25, requestedAmount: 110.51, currency: 'USD', authorizationCode: '123456', acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC7654320101' } },
    });
    expect(retrieved.transaction).not.toHaveProperty('taxAmount');
    expect(await retrieveOrder(merchant, orderId)).toMatchObject({
      amount: 55.25,
      status: 'CAPTURED',
      totalCapturedAmount: 55.25,
      transaction: [{ result: 'SUCCESS', response: { gatewayCode: 'PARTIALLY_APPROVED' }, transaction: { amount: 55.25, requestedAmount: 110.51 } }],
    });

    // The same request answered at once on another order: the ledger's fields of both answers agree.
    const live = await operateAs(app, merchant, newOrderId(), 'p1', 'PAY', partialBody(TEST_EXPIRY.APPROVED));
    expect(live).toMatchObject({ result: 'SUCCESS', response: { gatewayCode: 'PARTIALLY_APPROVED' } });
    const ledgerFields = (body: JsonObject) => {
      const { id: _id, creationTime: _c, lastUpdatedTime: _l, notificationUrl: _n, ...order } = body.order as JsonObject;
      const { amount, requestedAmount, currency, taxAmount, type } = body.transaction as JsonObject;
      return { result: body.result, gatewayCode: (body.response as JsonObject).gatewayCode, order, transaction: { amount, requestedAmount, currency, taxAmount, type } };
    };
    expect(ledgerFields(retrieved)).toEqual(ledgerFields(live));

    // The merchant's retry of its PUT answers the partial approval, and nothing reaches the acquirer again.
    const payments = await acquirerCalls('PAY');
    expect(await operateAs(app, merchant, orderId, 'p1', 'PAY', request)).toEqual(retrieved);
    expect(await acquirerCalls('PAY')).toBe(payments);
    expect((await outboxRows(merchant, orderId)).map((r) => r.payload)).toEqual([expect.objectContaining({ result: 'UNKNOWN' }), { ...retrieved, merchant: merchant.id }]);

    // What is left to refund is what was approved, with no default tax.
    await expect(operateAs(app, merchant, orderId, 'r1', 'REFUND', { transaction: { amount: '55.26', currency: 'USD' } })).rejects.toMatchObject({ field: 'transaction.amount' });
    const refunded = await operateAs(app, merchant, orderId, 'r1', 'REFUND', { transaction: { amount: '55.25', currency: 'USD' } });
    expect(refunded).toMatchObject({ result: 'SUCCESS', order: { status: 'REFUNDED', totalRefundedAmount: 55.25 } });
    expect(refunded.transaction).not.toHaveProperty('taxAmount');
  });

  it('an AUTHORIZE is authorised at the approved amount, which bounds its capture; a second resolution writes nothing', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await operateAs(app, merchant, orderId, 'a1', 'AUTHORIZE', partialBody(TEST_EXPIRY.UNKNOWN));
    const partially = [...ids(merchant, orderId, 'a1'), '--outcome', 'PARTIALLY_APPROVED', '--approved-amount', '20.1'];
    const resolved = await resolve(partially);
    expect(resolved.code).toBe(0);
    expect(resolved.out.split('\t')).toEqual(['Recorded:', `${merchant.id}/${orderId}/a1`, 'AUTHORIZATION', '20.10 USD', 'SUCCESS', 'PARTIALLY_APPROVED', 'order AUTHORIZED', 'no notification']);
    const after = { order: await orderRow(merchant, orderId), body: await retrieveTransaction(merchant, orderId, 'a1') };
    expect(await resolve(partially)).toMatchObject({ code: 0, out: expect.stringMatching(/^Already recorded, nothing written:/) });
    expect(await resolve([...ids(merchant, orderId, 'a1'), '--outcome', 'PARTIALLY_APPROVED', '--approved-amount', '20.00'])).toMatchObject({
      code: 1,
      err: expect.stringContaining('is recorded SUCCESS (PARTIALLY_APPROVED), not UNKNOWN'),
    });
    expect({ order: await orderRow(merchant, orderId), body: await retrieveTransaction(merchant, orderId, 'a1') }).toEqual(after);

    await expect(operateAs(app, merchant, orderId, 'c1', 'CAPTURE', { transaction: { amount: '20.11', currency: 'USD' } })).rejects.toMatchObject({
      explanation: "Value '20.11' is invalid. The amount available for capture on this order is 20.10 USD.",
    });
    expect(await operateAs(app, merchant, orderId, 'c1', 'CAPTURE', { transaction: { amount: '20.10', currency: 'USD' } })).toMatchObject({
      result: 'SUCCESS',
      order: { status: 'CAPTURED', totalCapturedAmount: 20.1 },
    });
  });

  it('is refused, writing nothing, when the request did not accept partial amounts, or for an amount not below the one asked', async () => {
    const merchant = notifiedMerchant();
    const orderId = newOrderId();
    const request = payBody('40.00', TEST_EXPIRY.UNKNOWN, HOOKS);
    const unknown = await operateAs(app, merchant, orderId, 'p1', 'PAY', request);
    const before = { order: await orderRow(merchant, orderId), rows: await ledgerRows(merchant, orderId, 'p1'), outbox: await outboxRows(merchant, orderId) };
    expect(await resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'PARTIALLY_APPROVED', '--approved-amount', '20.00'])).toEqual({
      code: 1,
      out: '',
      err: expect.stringContaining('was requested without order.acceptPartialAmount: it is approved in full or not at all'),
    });
    // Usage: the amount goes with a partial approval, and only with it.
    expect(await resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'PARTIALLY_APPROVED'])).toMatchObject({ code: 2, err: expect.stringContaining('--approved-amount') });
    expect(await resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'APPROVED', '--approved-amount', '20.00'])).toMatchObject({ code: 2 });
    expect({ order: await orderRow(merchant, orderId), rows: await ledgerRows(merchant, orderId, 'p1'), outbox: await outboxRows(merchant, orderId) }).toEqual(before);
    expect(await operateAs(app, merchant, orderId, 'p1', 'PAY', request)).toEqual(unknown);

    const accepting = newOrderId();
    await operateAs(app, merchant, accepting, 'p1', 'PAY', partialBody(TEST_EXPIRY.UNKNOWN));
    for (const amount of ['110.51', '0', '55.255']) {
      expect(await resolve([...ids(merchant, accepting, 'p1'), '--outcome', 'PARTIALLY_APPROVED', '--approved-amount', amount])).toMatchObject({
        code: 1,
        err: expect.stringContaining('approvedAmount'),
      });
    }
    expect(await ledgerRows(merchant, accepting, 'p1')).toMatchObject({ transaction: { amount: '110.5100', result: 'UNKNOWN' } });
  });
});

describe('a standalone REFUND answered UNKNOWN', () => {
  it('learned DECLINED frees its amount: the order FAILED with nothing refunded', async () => {
    const merchant = notifiedMerchant();
    const orderId = newOrderId();
    const unknown = await operateAs(app, merchant, orderId, 'r1', 'REFUND', {
      transaction: { amount: '15.00', currency: 'USD' },
      order: { notificationUrl: HOOKS },
      sourceOfFunds: card(TEST_EXPIRY.UNKNOWN),
    });
    expect(unknown).toMatchObject({ result: 'UNKNOWN', order: { status: 'INITIATED' } });
    const resolved = await resolve([...ids(merchant, orderId, 'r1'), '--outcome', 'DECLINED', '--json']);
    expect(JSON.parse(resolved.out)).toMatchObject({ status: 'RESOLVED', type: 'REFUND', result: 'FAILURE', gatewayCode: 'DECLINED', order: { status: 'FAILED', totalRefundedAmount: '0.00' }, notified: true });
    expect(await retrieveTransaction(merchant, orderId, 'r1')).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'DECLINED' }, transaction: { type: 'REFUND', amount: 15 } });
    expect((await outboxRows(merchant, orderId)).map((r) => r.payload.result)).toEqual(['UNKNOWN', 'FAILURE']);
  });

  it('learned APPROVED refunds it: the order REFUNDED', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await operateAs(app, merchant, orderId, 'r1', 'REFUND', { transaction: { amount: '15.00', currency: 'USD' }, sourceOfFunds: card(TEST_EXPIRY.UNKNOWN) });
    expect((await resolve([...ids(merchant, orderId, 'r1'), '--outcome', 'APPROVED'])).code).toBe(0);
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'REFUNDED', refunded: '15.0000' });
  });
});

describe('a VERIFY answered UNKNOWN, then learned APPROVED', () => {
  it('leaves the order VERIFIED', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    expect(await operateAs(app, merchant, orderId, 'v1', 'VERIFY', { order: { currency: 'USD' }, sourceOfFunds: card(TEST_EXPIRY.UNKNOWN) })).toMatchObject({
      result: 'UNKNOWN',
    });
    expect((await resolve([...ids(merchant, orderId, 'v1'), '--outcome', 'APPROVED'])).code).toBe(0);
    expect(await retrieveOrder(merchant, orderId)).toMatchObject({ status: 'VERIFIED', transaction: [{ result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } }] });
  });
});

describe('a resolution racing another operation on the order (no lock)', () => {
  it('a PAY reserved when the resolution lands completes on the order as the resolution left it: both counted', async () => {
    const merchant = testMerchant({ testAcquirer: { latencyMs: 600 } });
    const orderId = newOrderId();
    await operateAs(app, merchant, orderId, 'p1', 'PAY', payBody('12.00'));
    const second = operateAs(app, merchant, orderId, 'p2', 'PAY', payBody('30.00', TEST_EXPIRY.APPROVED));
    // p2 is reserved (PENDING, holding 30.00) and at the acquirer when p1's outcome is learned.
    await waitForResult(merchant, orderId, 'p2', 'PENDING');
    expect((await resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'APPROVED'])).code).toBe(0);
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'CAPTURED', captured: '12.0000' });
    expect(await second).toMatchObject({ result: 'SUCCESS', order: { status: 'CAPTURED', totalCapturedAmount: 42 } });
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'CAPTURED', captured: '42.0000' });
  });
});

describe('a PAY approved at the acquirer whose completion never reached the ledger', () => {
  it('stays PENDING while its operation could still complete it, then is resolved like an UNKNOWN one', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const request = payBody('12.00', TEST_EXPIRY.APPROVED);
    // The ledger refuses every completion (its database away beyond the retries): money moved, PENDING recorded.
    const records = app.running.app.get(RecordOperation);
    const write = records.execute.bind(records);
    const lost = jest.spyOn(records, 'execute').mockImplementation(async (message, step, seen) => {
      if (step === 'COMPLETE') {
        throw new Error('completion lost');
      }
      return write(message, step, seen);
    });
    try {
      await expect(operateAs(app, merchant, orderId, 'p1', 'PAY', request)).rejects.toMatchObject({ code: 'SERVER_FAILED' });
    } finally {
      lost.mockRestore();
    }
    expect(await operateAs(app, merchant, orderId, 'p1', 'PAY', request)).toMatchObject({ result: 'PENDING', response: { gatewayCode: 'PENDING' } });

    // Reserved moments ago: its operation may still complete it.
    expect(await resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'APPROVED'])).toMatchObject({
      code: 1,
      err: expect.stringContaining('resolved once it has been PENDING for 10 minutes'),
    });
    await app.dataSource.query(
      `UPDATE order_transaction.transactions SET updated_at = updated_at - interval '11 minutes'
        WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = 'p1'`,
      [merchant.id, orderId],
    );
    const resolved = await resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'APPROVED', '--acquirer-transaction-id', 'MCC7654320101', '--acquirer-id', 'TEST_ACQUIRER', '--json']);
    expect(resolved.code).toBe(0);
    expect(JSON.parse(resolved.out)).toMatchObject({ status: 'RESOLVED', result: 'SUCCESS', order: { status: 'CAPTURED', totalCapturedAmount: '12.00' } });
    // The merchant's retry of its request answers the outcome now, and calls no acquirer.
    expect(await operateAs(app, merchant, orderId, 'p1', 'PAY', request)).toMatchObject({
      result: 'SUCCESS',
      response: { gatewayCode: 'APPROVED' },
      order: { status: 'CAPTURED', totalCapturedAmount: 12 },
    });
  });
});

describe('a card reservation abandoned PENDING, resolved (unknown-resolution.md, amendment 2026-11-27)', () => {
  /** A PAY approved at the acquirer whose completion never reached the ledger (the process died in between), its last write 11 minutes old. */
  async function abandonedPay(merchant: MerchantContext, orderId: string, request: JsonObject): Promise<void> {
    const records = app.running.app.get(RecordOperation);
    const write = records.execute.bind(records);
    const lost = jest.spyOn(records, 'execute').mockImplementation(async (message, step, seen, deadline) => {
      if (step === 'COMPLETE') {
        throw new Error('process killed before its completion');
      }
      return write(message, step, seen, deadline);
    });
    try {
      await expect(operateAs(app, merchant, orderId, 'p1', 'PAY', request)).rejects.toMatchObject({ code: 'SERVER_FAILED' });
    } finally {
      lost.mockRestore();
    }
    await app.dataSource.query(
      `UPDATE order_transaction.transactions SET updated_at = updated_at - interval '11 minutes'
        WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = 'p1'`,
      [merchant.id, orderId],
    );
  }

  const announcementOf = async (merchant: MerchantContext, orderId: string): Promise<JsonObject | null> =>
    (await app.dataSource.query(`SELECT announcement FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = 'p1'`, [merchant.id, orderId]))[0]
      .announcement;

  it('with notifications on: one notification, as the completion would have written it, whose payload is GET\'s body; a second resolution writes none', async () => {
    const merchant = notifiedMerchant();
    const orderId = newOrderId();
    const request = payBody('12.00', TEST_EXPIRY.APPROVED, HOOKS);
    await abandonedPay(merchant, orderId, request);
    // A reservation is not announced; it keeps what its completion's notification needs, sealed, no card data.
    expect(await outboxRows(merchant, orderId)).toEqual([]);
    const kept = await announcementOf(merchant, orderId);
    expect(kept).toEqual({ url: HOOKS, merchantMode: 'TEST', sealedSecret: merchant.settings.notifications.secret?.current });
    expect(JSON.stringify(kept)).not.toContain(TEST_CARD);

    const resolved = await resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'APPROVED', '--acquirer-transaction-id', 'MCC7654320101', '--json']);
    expect(resolved.code).toBe(0);
    expect(JSON.parse(resolved.out)).toMatchObject({ status: 'RESOLVED', result: 'SUCCESS', order: { status: 'CAPTURED' }, notified: true });
    const retrieved = await retrieveTransaction(merchant, orderId, 'p1');
    expect(retrieved).toMatchObject({ result: 'SUCCESS', response: { gatewayCode: 'APPROVED' }, order: { status: 'CAPTURED', totalCapturedAmount: 12 } });
    expect(await outboxRows(merchant, orderId)).toEqual([
      {
        transactionId: 'p1',
        apiOperation: 'PAY',
        url: HOOKS,
        mode: 'TEST',
        sealedSecret: merchant.settings.notifications.secret?.current,
        payload: { ...retrieved, merchant: merchant.id },
      },
    ]);
    // Used up with the outcome recorded.
    expect(await announcementOf(merchant, orderId)).toBeNull();

    // A resolution replayed (the operator's command run again) writes nothing, nor does the merchant's retry.
    const again = await resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'APPROVED', '--acquirer-transaction-id', 'MCC7654320101', '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ status: 'UNCHANGED', notified: false });
    expect(await operateAs(app, merchant, orderId, 'p1', 'PAY', request)).toEqual(retrieved);
    expect(await outboxRows(merchant, orderId)).toHaveLength(1);
  });

  it('learned DECLINED: notified with the FAILURE GET answers', async () => {
    const merchant = notifiedMerchant();
    const orderId = newOrderId();
    await abandonedPay(merchant, orderId, payBody('7.00', TEST_EXPIRY.APPROVED, HOOKS));
    expect((await resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'DECLINED'])).code).toBe(0);
    const retrieved = await retrieveTransaction(merchant, orderId, 'p1');
    expect(retrieved).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'DECLINED' } });
    expect((await outboxRows(merchant, orderId)).map((r) => r.payload)).toEqual([{ ...retrieved, merchant: merchant.id }]);
  });

  it("on an order opened earlier: notified at the URL of the reservation's own request, as its completion would have been, not the order's earlier one", async () => {
    const merchant = notifiedMerchant();
    const orderId = newOrderId();
    const earlier = 'https://merchant.example/earlier-hooks';
    // The order opened by a declined PAY naming another URL; a reservation on it leaves the order's URL as it was.
    expect(await operateAs(app, merchant, orderId, 'p0', 'PAY', payBody('12.00', TEST_EXPIRY.DECLINED, earlier))).toMatchObject({ result: 'FAILURE' });
    await abandonedPay(merchant, orderId, payBody('12.00', TEST_EXPIRY.APPROVED, HOOKS));
    expect(await announcementOf(merchant, orderId)).toMatchObject({ url: HOOKS });
    const [{ url }] = await app.dataSource.query(`SELECT notification_url AS url FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2`, [merchant.id, orderId]);
    expect(url).toBe(earlier);

    expect((await resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'APPROVED'])).code).toBe(0);
    const retrieved = await retrieveTransaction(merchant, orderId, 'p1');
    expect((await outboxRows(merchant, orderId)).filter((row) => row.transactionId === 'p1')).toEqual([
      expect.objectContaining({ url: HOOKS, payload: { ...retrieved, merchant: merchant.id } }),
    ]);
  });

  it('with notifications off, or no notification URL on the order: nothing kept, none written', async () => {
    const off = testMerchant();
    const noUrl = notifiedMerchant();
    // Notifications turned off after a secret was issued: the profile keeps the secret.
    const issued = notifiedMerchant();
    const turnedOff: MerchantContext = { ...issued, settings: { ...issued.settings, notifications: { ...issued.settings.notifications, enabled: false } } };
    for (const [merchant, request] of [
      [off, payBody('12.00', TEST_EXPIRY.APPROVED, HOOKS)],
      [turnedOff, payBody('12.00', TEST_EXPIRY.APPROVED, HOOKS)],
      [noUrl, payBody('12.00', TEST_EXPIRY.APPROVED)],
    ] as const) {
      const orderId = newOrderId();
      await abandonedPay(merchant, orderId, request);
      expect(await announcementOf(merchant, orderId)).toBeNull();
      const resolved = await resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'APPROVED', '--json']);
      expect(JSON.parse(resolved.out)).toMatchObject({ status: 'RESOLVED', notified: false });
      expect(await outboxRows(merchant, orderId)).toEqual([]);
    }
  });
});

describe('what is refused, writing nothing', () => {
  it('a transaction that never was UNKNOWN, an unknown one, and a malformed outcome', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await operateAs(app, merchant, orderId, 'p1', 'PAY', payBody('5.00', TEST_EXPIRY.APPROVED));
    const before = await orderRow(merchant, orderId);
    expect(await resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'DECLINED'])).toMatchObject({ code: 1, err: expect.stringContaining('not UNKNOWN') });
    expect(await resolve([...ids(merchant, orderId, 'nope'), '--outcome', 'DECLINED'])).toMatchObject({ code: 1, err: expect.stringContaining("No transaction 'nope'") });
    expect(await resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'DECLINED', '--authorization-code', '1'])).toMatchObject({
      code: 1,
      err: expect.stringContaining('authorizationCode is given on approvals only'),
    });
    expect(await resolve([...ids(merchant, orderId, 'p1'), '--outcome', 'MAYBE'])).toMatchObject({ code: 2, err: 'error: --outcome must be APPROVED, PARTIALLY_APPROVED or DECLINED' });
    expect(await resolve(['--merchant', merchant.id, '--outcome', 'APPROVED'])).toMatchObject({ code: 2 });
    expect(await orderRow(merchant, orderId)).toEqual(before);
  });
});

async function waitForResult(merchant: MerchantContext, orderId: string, transactionId: string, result: string): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    const rows = await app.dataSource.query(
      'SELECT result FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = $3',
      [merchant.id, orderId, transactionId],
    );
    if (rows[0]?.result === result) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${transactionId} never became ${result}`);
}
