import { randomBytes } from 'node:crypto';
import { defaultMerchantSettings, JsonObject, MerchantContext, notificationSecretContext, OperationReply, SUBJECTS } from '@gateway/contracts';
import { SealingKeyRing, Secret } from '@gateway/crypto';
import { ErasePayerData } from '@gateway/order-transaction/domain';
import { AgreementRepository, NotificationClaims, ORDER_TRANSACTION_SCHEMA, PayerDataRepository } from '@gateway/order-transaction/data-access';
import { createLogger, createServiceDataSource } from '@gateway/platform';
import type { DataSource } from 'typeorm';
import { TEST_CARD, TEST_EXPIRY, waitFor } from '@gateway/testing';
import { LedgerTestApp, newOrderId, operateAs, startLedgerTestApp, testMerchant } from './testing/ledger-test-app';
import { runPayerDataCommand } from './payer-data.command';
import { resolveUnknownOver } from './operator-commands';

/**
 * `payer-data erase` (ErasePayerData) against the real ledger: orders paid through
 * order-transaction's own operation path with a payer's personal data in every group the API
 * has for it, erased by the operator's command as its main wires it, then read back through
 * the service's retrieval and the merchant's replay, its test acquirer counted in
 * `gateway_acquirer_requests_total`.
 */
let app: LedgerTestApp;

beforeAll(async () => {
  app = await startLedgerTestApp();
});

afterAll(async () => {
  await app?.running.shutdown('tests done');
});

const HOOKS = 'https://merchant.example/hooks';
const RING = SealingKeyRing.parse(`t1:${randomBytes(32).toString('base64')}`, 'KEYS');

/** A merchant of its own whose order changes are announced (a PENDING notification per change: no dispatcher runs here). */
function notifiedMerchant(): MerchantContext {
  const merchant = testMerchant();
  const secret = RING.seal(new Secret(randomBytes(32).toString('base64url')), notificationSecretContext(merchant.id));
  return { ...merchant, settings: { ...defaultMerchantSettings(), notifications: { enabled: true, secret: { current: secret } } } };
}

/** Distinctive values in every personal field: none may be left anywhere in the ledger's rows. */
const PERSONAL_VALUES = ['zelda@example.org', 'Zelda', 'Quux', '10 Privet Drive', 'Flat 4', 'SW1A 2AA', '+4479460000', 'ZELDA Q HOLDER', '203.0.113.7', 'zelda-fp', 'zelda-host', 'mauve', 'leave it with the neighbour', 'called back'];

/** A PAY carrying them: billing, customer, shipping, device, name on card, custom fields and notes. */
const payRequest: JsonObject = {
  order: {
    amount: '25.00',
    currency: 'USD',
    reference: 'ref-7',
    description: 'two tickets',
    notificationUrl: HOOKS,
    custom: { colour: 'mauve' },
    customerNote: 'leave it with the neighbour',
  },
  billing: { address: { street: '10 Privet Drive', street2: 'Flat 4', city: 'Little Whinging', postcodeZip: 'SW1A 2AA', country: 'GBR' } },
  customer: { email: 'zelda@example.org', firstName: 'Zelda', lastName: 'Quux', phone: '+4479460000' },
  shipping: {
    address: { street: '10 Privet Drive', city: 'Little Whinging', postcodeZip: 'SW1A 2AA', country: 'GBR' },
    contact: { firstName: 'Zelda', lastName: 'Quux', email: 'zelda@example.org' },
  },
  device: { ipAddress: '203.0.113.7', browser: 'Mozilla/5.0', fingerprint: 'zelda-fp', hostname: 'zelda-host' },
  transaction: { merchantNote: 'called back' },
  sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: '100', nameOnCard: 'ZELDA Q HOLDER' } } },
};

/** A partial REFUND of it that names the customer again. */
const refundRequest: JsonObject = { transaction: { amount: '5.00', currency: 'USD' }, customer: { email: 'zelda@example.org', firstName: 'Zelda' } };

async function paidOrder(merchant: MerchantContext): Promise<string> {
  const orderId = newOrderId();
  await operateAs(app, merchant, orderId, 'p1', 'PAY', payRequest);
  await operateAs(app, merchant, orderId, 'r1', 'REFUND', refundRequest);
  return orderId;
}

type Run = { code: number; out: string; err: string };

const logger = createLogger({ service: 'order-transaction', level: 'silent' });

/** The command as its main wires it. */
function erase(...args: string[]): Promise<Run> {
  return eraseOver(app.dataSource, ...args);
}

/** The command as its main wires it, over `dataSource`. */
async function eraseOver(dataSource: DataSource, ...args: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const erasure = new ErasePayerData(PayerDataRepository.over(dataSource), logger);
  const code = await runPayerDataCommand(args, erasure, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Every row the ledger holds of the order, with each row's version (xmin): a write of any of them shows. */
async function ledgerRows(merchant: MerchantContext, orderId: string) {
  const key = [merchant.id, orderId];
  const [order] = await app.dataSource.query(
    `SELECT xmin::text AS version, status, amount::text, total_captured_amount::text AS captured, total_refunded_amount::text AS refunded,
            operation_count AS "operationCount", updated_at AS "updatedAt", notification_url AS "notificationUrl", details
       FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2`,
    key,
  );
  const transactions = await app.dataSource.query(
    `SELECT xmin::text AS version, transaction_id AS id, type, amount::text, result, gateway_code AS "gatewayCode"
       FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2 ORDER BY sequence`,
    key,
  );
  const responses = await app.dataSource.query(
    `SELECT xmin::text AS version, transaction_id AS id, request_hash AS "requestHash", body
       FROM order_transaction.operation_responses WHERE merchant_id = $1 AND order_id = $2 ORDER BY sequence`,
    key,
  );
  const outbox = await app.dataSource.query(
    `SELECT xmin::text AS version, transaction_id AS id, status, url, payload
       FROM order_transaction.notification_outbox WHERE merchant_id = $1 AND order_id = $2 ORDER BY created_at`,
    key,
  );
  return { order, transactions, responses, outbox };
}

/** The dispatcher's columns of the order's notifications: what an erasure must never change. */
function deliveryRecords(merchant: MerchantContext, orderId: string) {
  return app.dataSource.query(
    `SELECT id, status, attempts, next_attempt_at AS "nextAttemptAt", last_attempt_at AS "lastAttemptAt", last_result AS "lastResult", delivered_at AS "deliveredAt"
       FROM order_transaction.notification_outbox WHERE merchant_id = $1 AND order_id = $2 ORDER BY created_at`,
    [merchant.id, orderId],
  );
}

/** The command's answer for one paid order erased: its details, its two stored responses and two notifications. */
function paidOrderErased(merchant: MerchantContext, orderId: string) {
  return {
    code: 0,
    err: '',
    out: [
      `Erased:\t${merchant.id}/${orderId}\torder details stripped, notification URL unchanged, 2 stored responses, 2 notifications, 0 agreements`,
      'Orders: 1 erased, 0 with nothing to erase, 0 not found. Changed: 1 order details, 0 notification URLs, 2 stored responses, 2 notifications, 0 agreements.',
    ].join('\n'),
  };
}

/** The backends waiting for a lock the backend `pid` holds, with what each runs. */
function blockedBy(pid: number): Promise<{ pid: number; query: string }[]> {
  return app.dataSource.query('SELECT pid, query FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid]);
}

async function retrieveOrder(merchant: MerchantContext, orderId: string): Promise<JsonObject> {
  const envelope = { merchant, apiVersion: 100, requestId: `get-${orderId}`, authMethod: 'PASSWORD' as const };
  const reply: OperationReply = await app.bus.request(SUBJECTS.orderTransaction.retrieveOrder, { envelope, orderId });
  return reply.body;
}

async function retrieveTransaction(merchant: MerchantContext, orderId: string, transactionId: string): Promise<JsonObject> {
  const envelope = { merchant, apiVersion: 100, requestId: `get-${transactionId}`, authMethod: 'PASSWORD' as const };
  const reply: OperationReply = await app.bus.request(SUBJECTS.orderTransaction.retrieveTransaction, { envelope, orderId, transactionId });
  return reply.body;
}

async function acquirerCalls(operation: string): Promise<number> {
  const metric = await app.metrics.registry.getSingleMetric('gateway_acquirer_requests_total')?.get();
  return (metric?.values ?? []).filter((v) => v.labels.operation === operation).reduce((sum, v) => sum + v.value, 0);
}

/** The order fields the ledger owns, as a retrieval shows them at its top level. */
const ledgerFieldsOf = (order: JsonObject): JsonObject =>
  Object.fromEntries(
    ['id', 'amount', 'currency', 'status', 'totalAuthorizedAmount', 'totalCapturedAmount', 'totalRefundedAmount', 'creationTime', 'lastUpdatedTime'].map((k) => [k, order[k]]),
  );

const keys = (value: unknown): string[] => Object.keys(value as JsonObject).sort();
const group = (value: unknown, ...path: string[]): JsonObject => path.reduce((node, key) => (node as JsonObject)[key] as JsonObject, value as JsonObject);

describe('payer-data erase', () => {
  it('strips every personal field from the order, its stored responses and its unsent notifications, and keeps the money', async () => {
    const merchant = notifiedMerchant();
    const orderId = await paidOrder(merchant);
    const before = await ledgerRows(merchant, orderId);
    const orderBefore = await retrieveOrder(merchant, orderId);
    // The data is really there to erase: in the details, both responses and both notifications.
    for (const value of ['zelda@example.org', '10 Privet Drive', 'mauve', 'ZELDA Q HOLDER', '203.0.113.7']) {
      expect(JSON.stringify(before.responses[0].body)).toContain(value);
    }
    expect(JSON.stringify(before.order.details)).toContain('10 Privet Drive');
    expect(JSON.stringify(before.responses[1].body)).toContain('zelda@example.org');
    expect(before.outbox.map((n: { status: string }) => n.status)).toEqual(['PENDING', 'PENDING']);

    const run = await erase('erase', merchant.id, orderId);
    expect(run).toEqual(paidOrderErased(merchant, orderId));

    const after = await ledgerRows(merchant, orderId);
    const stored = JSON.stringify(after);
    for (const value of PERSONAL_VALUES) {
      expect(stored).not.toContain(value);
    }
    expect(stored).not.toContain(TEST_CARD);
    // The money, the transactions and what a replay is matched on, as they were.
    expect(after.transactions).toEqual(before.transactions);
    expect(after.responses.map((r: { requestHash: string }) => r.requestHash)).toEqual(before.responses.map((r: { requestHash: string }) => r.requestHash));
    const { version: _orderVersion, details, ...orderColumns } = after.order;
    const { version: _before, details: _detailsBefore, ...orderColumnsBefore } = before.order;
    expect(orderColumns).toEqual(orderColumnsBefore);
    // Per field: the order's own non-personal fields stay.
    expect(details).toEqual({ reference: 'ref-7', description: 'two tickets' });
    // Per field, exactly what is left: the personal groups and fields gone, every other one as it was.
    const [pay, refund] = after.responses.map((r: { body: JsonObject }) => r.body);
    const [payBefore, refundBefore] = before.responses.map((r: { body: JsonObject }) => r.body);
    expect(keys(payBefore)).toEqual(expect.arrayContaining(['billing', 'customer', 'device', 'shipping']));
    expect(keys(pay)).toEqual(['authorizationResponse', 'order', 'response', 'result', 'sourceOfFunds', 'timeOfRecord', 'transaction']);
    expect(keys(group(pay, 'order'))).toEqual([
      'amount', 'creationTime', 'currency', 'description', 'id', 'lastUpdatedTime', 'notificationUrl', 'reference', 'status',
      'totalAuthorizedAmount', 'totalCapturedAmount', 'totalRefundedAmount',
    ]);
    expect(keys(group(pay, 'transaction'))).toEqual(['acquirer', 'amount', 'authorizationCode', 'currency', 'id', 'receipt', 'type']);
    for (const kept of ['authorizationResponse', 'response', 'result', 'timeOfRecord'] as const) {
      expect(pay[kept]).toEqual(payBefore[kept]);
    }
    expect(group(pay, 'transaction', 'acquirer')).toEqual(group(payBefore, 'transaction', 'acquirer'));
    // The card stays, masked, without the name on it.
    expect(pay.sourceOfFunds).toEqual({
      type: 'CARD',
      provided: { card: { brand: 'MASTERCARD', expiry: { month: '1', year: '39' }, fundingMethod: 'CREDIT', number: '512345xxxxxx0008', scheme: 'MASTERCARD' } },
    });
    expect(keys(refund)).toEqual(['authorizationResponse', 'order', 'response', 'result', 'sourceOfFunds', 'timeOfRecord', 'transaction']);
    expect(refund.transaction).toEqual(refundBefore.transaction);
    expect(refund.sourceOfFunds).toEqual(pay.sourceOfFunds);
    expect(after.outbox.map((n: { status: string }) => n.status)).toEqual(['PENDING', 'PENDING']);
    expect(keys(after.outbox[0].payload)).toEqual(['authorizationResponse', 'merchant', 'order', 'response', 'result', 'sourceOfFunds', 'timeOfRecord', 'transaction']);
    expect(keys(after.outbox[1].payload)).toEqual(['authorizationResponse', 'merchant', 'order', 'response', 'result', 'sourceOfFunds', 'timeOfRecord', 'transaction']);

    // GET: the same order and money, without the fields.
    const orderAfter = await retrieveOrder(merchant, orderId);
    expect(JSON.stringify(orderAfter)).not.toMatch(/zelda|Privet|mauve|203\.0\.113\.7/i);
    expect(keys(orderBefore)).toEqual(expect.arrayContaining(['billing', 'custom', 'customer', 'customerNote', 'shipping']));
    expect(keys(orderAfter)).toEqual([
      'amount', 'creationTime', 'currency', 'description', 'id', 'lastUpdatedTime', 'reference', 'result', 'status',
      'totalAuthorizedAmount', 'totalCapturedAmount', 'totalRefundedAmount', 'transaction',
    ]);
    expect(orderAfter.transaction).toEqual([pay, refund].map((body) => ({ ...body, order: { ...group(body, 'order'), ...ledgerFieldsOf(orderAfter) } })));
    for (const field of ['amount', 'currency', 'status', 'totalAuthorizedAmount', 'totalCapturedAmount', 'totalRefundedAmount', 'lastUpdatedTime']) {
      expect(orderAfter[field]).toEqual(orderBefore[field]);
    }
    expect(orderAfter).toMatchObject({ status: 'PARTIALLY_REFUNDED', totalCapturedAmount: 25, totalRefundedAmount: 5 });
    const payment = await retrieveTransaction(merchant, orderId, 'p1');
    expect(payment).toMatchObject({ result: 'SUCCESS', order: { amount: 25, totalRefundedAmount: 5 }, transaction: { id: 'p1', amount: 25, currency: 'USD' } });
    expect(JSON.stringify(payment)).not.toMatch(/zelda|Privet|mauve|203\.0\.113\.7/i);

    // The merchant's replay of the PAY: the stored body, stripped, no second charge, no new transaction.
    const payments = await acquirerCalls('PAY');
    expect(await operateAs(app, merchant, orderId, 'p1', 'PAY', payRequest)).toEqual(pay);
    expect(await acquirerCalls('PAY')).toBe(payments);
    const replayed = await ledgerRows(merchant, orderId);
    expect(replayed.transactions).toEqual(after.transactions);
    expect(replayed.responses).toEqual(after.responses);
  });

  it('leaves the merchant\'s other orders as they were', async () => {
    const merchant = notifiedMerchant();
    const [erased, other] = [await paidOrder(merchant), await paidOrder(merchant)];
    const before = await ledgerRows(merchant, other);
    expect((await erase('erase', merchant.id, erased)).code).toBe(0);
    expect(await ledgerRows(merchant, other)).toEqual(before);
  });

  it('refuses an order the merchant does not have, and changes nothing of it', async () => {
    const owner = notifiedMerchant();
    const stranger = testMerchant();
    const orderId = await paidOrder(owner);
    const before = await ledgerRows(owner, orderId);

    const refused = await erase('erase', stranger.id, orderId, 'no-such-order');
    expect(refused).toEqual({
      code: 1,
      err: [`error: ${stranger.id}/${orderId}: the merchant has no such order: nothing changed`, `error: ${stranger.id}/no-such-order: the merchant has no such order: nothing changed`].join('\n'),
      out: 'Orders: 0 erased, 0 with nothing to erase, 2 not found. Changed: 0 order details, 0 notification URLs, 0 stored responses, 0 notifications, 0 agreements.',
    });
    expect(await ledgerRows(owner, orderId)).toEqual(before);

    // Named beside one it has: that one is erased, the exit code still says one was not found.
    const mixed = await erase('erase', owner.id, 'no-such-order', orderId, '--json');
    expect(mixed.code).toBe(1);
    expect(JSON.parse(mixed.out).orders.map((o: { orderId: string; status: string }) => [o.orderId, o.status])).toEqual([
      ['no-such-order', 'NOT_FOUND'],
      [orderId, 'ERASED'],
    ]);
  });

  it('reports an order whose erasure fails (a statement timeout on a held row), goes on with the others, and exits 1', async () => {
    const merchant = notifiedMerchant();
    const [first, held, last] = [await paidOrder(merchant), await paidOrder(merchant), await paidOrder(merchant)];
    const heldBefore = await ledgerRows(merchant, held);
    // The command's pool with a statement timeout short enough to meet while a record holds the row.
    const pool = createServiceDataSource(ORDER_TRANSACTION_SCHEMA, {
      url: (app.dataSource.options as { url: string }).url,
      poolSize: 2,
      statementTimeoutMs: 300,
      applicationName: 'payer-data-int-failure',
    });
    await pool.initialize();
    const record = app.dataSource.createQueryRunner();
    await record.connect();
    try {
      await record.startTransaction();
      await record.query('SELECT 1 FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2 FOR UPDATE', [merchant.id, held]);

      const run = await eraseOver(pool, 'erase', merchant.id, first, held, last);
      expect(run).toEqual({
        code: 1,
        err: `error: ${merchant.id}/${held}: failed: canceling statement due to statement timeout: run the command again for this order`,
        out: [
          `Erased:\t${merchant.id}/${first}\torder details stripped, notification URL unchanged, 2 stored responses, 2 notifications, 0 agreements`,
          `Erased:\t${merchant.id}/${last}\torder details stripped, notification URL unchanged, 2 stored responses, 2 notifications, 0 agreements`,
          'Orders: 2 erased, 0 with nothing to erase, 0 not found, 1 failed. Changed: 2 order details, 0 notification URLs, 4 stored responses, 4 notifications, 0 agreements.',
        ].join('\n'),
      });
      for (const orderId of [first, last]) {
        expect(JSON.stringify(await ledgerRows(merchant, orderId))).not.toMatch(/zelda/i);
      }
      expect(await ledgerRows(merchant, held)).toEqual(heldBefore);

      // --json: the failed order has its entry, with the error's message alone: no stack, no data.
      const json = await eraseOver(pool, 'erase', merchant.id, first, held, last, '--json');
      expect(json.code).toBe(1);
      const answer = JSON.parse(json.out);
      expect(answer.orders.map((o: { orderId: string; status: string }) => [o.orderId, o.status])).toEqual([
        [first, 'UNCHANGED'],
        [held, 'FAILED'],
        [last, 'UNCHANGED'],
      ]);
      expect(answer.orders[1]).toEqual({ merchantId: merchant.id, orderId: held, status: 'FAILED', error: 'canceling statement due to statement timeout' });
      expect(answer.total).toMatchObject({ erased: 0, unchanged: 2, notFound: 0, failed: 1 });
      expect(json.out + json.err).not.toMatch(/\bat \S+ \(|zelda|Privet/i);
      await record.rollbackTransaction();
    } finally {
      await record.release();
      await pool.destroy();
    }
    // Run again once the row is free: the failed order is erased.
    expect((await erase('erase', merchant.id, held)).code).toBe(0);
    expect(JSON.stringify(await ledgerRows(merchant, held))).not.toMatch(/zelda/i);
  });

  it("is the victim of a deadlock with a deferral of the order's notifications, runs its transaction again, and erases the order", async () => {
    const merchant = notifiedMerchant();
    const orderId = await paidOrder(merchant);
    const key = [merchant.id, orderId];
    // The cycle as the dispatcher's deferTarget and the purge make it: they lock outbox rows, the
    // erasure the order's row and then the order's notifications. A third session holds the
    // order's stored responses so that the erasure, its order row taken, is stopped before it
    // reaches the outbox until the deferral waits for that row: then the erasure is the one to
    // meet the cycle, when its own wait is checked (deadlock_timeout, the server's default 1 s),
    // and the deferral never checks for one meanwhile (its deadlock_timeout is a minute).
    const response = app.dataSource.createQueryRunner();
    const deferral = app.dataSource.createQueryRunner();
    await response.connect();
    await deferral.connect();
    try {
      await response.startTransaction();
      const [{ pid: responsePid }] = await response.query('SELECT pg_backend_pid() AS pid');
      await response.query('SELECT 1 FROM order_transaction.operation_responses WHERE merchant_id = $1 AND order_id = $2 FOR UPDATE', key);
      await deferral.startTransaction();
      const [{ pid: deferralPid }] = await deferral.query('SELECT pg_backend_pid() AS pid');
      await deferral.query("SET LOCAL deadlock_timeout = '1min'");
      const deferredTo = new Date('2099-01-01T00:00:00.000Z');
      await deferral.query(`UPDATE order_transaction.notification_outbox SET next_attempt_at = $3 WHERE merchant_id = $1 AND order_id = $2 AND status = 'PENDING'`, [
        ...key,
        deferredTo,
      ]);

      let ended = false;
      const erasing = erase('erase', merchant.id, orderId).finally(() => (ended = true));
      const erasure = await waitFor(async () => (await blockedBy(responsePid)).find((b) => b.query.includes('UPDATE order_transaction.operation_responses')), {
        what: 'the erasure at the stored responses, the order row held',
      });
      const deferralHasOrder = deferral.query('SELECT 1 FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2 FOR UPDATE', key);
      await waitFor(async () => (await blockedBy(erasure.pid)).some((b) => b.pid === deferralPid), { what: 'the deferral at the order row' });
      // The erasure goes on to the outbox and waits for the deferral: a cycle, which Postgres
      // breaks by aborting the erasure's transaction (40P01). The deferral then has the row.
      await response.rollbackTransaction();
      await deferralHasOrder;
      // The erasure's next transaction waits for the order's row behind the deferral, which commits.
      // (Or the erasure has ended already: it gave up on the deadlock, which the answer then shows.)
      await waitFor(async () => ended || (await blockedBy(deferralPid)).some((b) => b.query.includes('order_transaction.orders')), {
        what: "the erasure's second transaction at the order row",
      });
      await deferral.commitTransaction();

      expect(await erasing).toEqual(paidOrderErased(merchant, orderId));
    } finally {
      for (const runner of [response, deferral]) {
        if (runner.isTransactionActive) {
          await runner.rollbackTransaction();
        }
        await runner.release();
      }
    }
    expect(JSON.stringify(await ledgerRows(merchant, orderId))).not.toMatch(/zelda/i);
    // Neither write is lost: the deferral's columns and the erasure's payload.
    expect((await deliveryRecords(merchant, orderId)).map((n: { nextAttemptAt: Date }) => n.nextAttemptAt.toISOString())).toEqual([
      '2099-01-01T00:00:00.000Z',
      '2099-01-01T00:00:00.000Z',
    ]);
  });

  it('run again, changes nothing and says so', async () => {
    const merchant = notifiedMerchant();
    const orderId = await paidOrder(merchant);
    await erase('erase', merchant.id, orderId);
    const erased = await ledgerRows(merchant, orderId);

    const again = await erase('erase', merchant.id, orderId, orderId);
    expect(again).toEqual({
      code: 0,
      err: '',
      out: [
        `Nothing to erase, nothing changed:\t${merchant.id}/${orderId}\torder details unchanged, notification URL unchanged, 0 stored responses, 0 notifications, 0 agreements`,
        'Orders: 0 erased, 1 with nothing to erase, 0 not found. Changed: 0 order details, 0 notification URLs, 0 stored responses, 0 notifications, 0 agreements.',
      ].join('\n'),
    });
    // Not a row rewritten: every version as it was.
    expect(await ledgerRows(merchant, orderId)).toEqual(erased);
  });

  it('--dry-run counts what it would strip and writes nothing', async () => {
    const merchant = notifiedMerchant();
    const orderId = await paidOrder(merchant);
    const before = await ledgerRows(merchant, orderId);

    const dry = await erase('erase', merchant.id, orderId, '--dry-run', '--json');
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.out)).toEqual({
      orders: [{ merchantId: merchant.id, orderId, status: 'WOULD_ERASE', details: true, notificationUrl: false, responses: 2, notifications: 2, agreements: 0 }],
      total: { erased: 0, wouldErase: 1, unchanged: 0, notFound: 0, details: 1, notificationUrl: 0, responses: 2, notifications: 2, agreements: 0 },
    });
    expect(await ledgerRows(merchant, orderId)).toEqual(before);
  });

  it('--dry-run waits for nothing: not a record holding the order\'s row or its agreement\'s, nor a delivery in flight', async () => {
    const merchant = notifiedMerchant();
    const orderId = newOrderId();
    const agreementId = `agr-${randomBytes(5).toString('hex')}`;
    await operateAs(app, merchant, orderId, 'p1', 'PAY', {
      order: { amount: '12.00', currency: 'USD', notificationUrl: HOOKS, customerNote: 'leave it with the neighbour' },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } },
      agreement: { id: agreementId, type: 'UNSCHEDULED', customData: 'member zelda-42' },
    });
    const [[pending]] = await app.dataSource.query(
      `UPDATE order_transaction.notification_outbox SET next_attempt_at = '2000-01-01T00:00:00Z' WHERE merchant_id = $1 AND order_id = $2 RETURNING id`,
      [merchant.id, orderId],
    );
    const before = await ledgerRows(merchant, orderId);
    // A record in flight holding the order's row and the agreement's (as a payment of the series
    // records its text), and a dispatcher worker delivering the order's notification.
    const record = app.dataSource.createQueryRunner();
    await record.connect();
    const claims = new NotificationClaims(app.dataSource);
    try {
      await record.startTransaction();
      await record.query('SELECT 1 FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2 FOR UPDATE', [merchant.id, orderId]);
      await record.query('SELECT 1 FROM order_transaction.agreements WHERE merchant_id = $1 AND agreement_id = $2 FOR UPDATE', [merchant.id, agreementId]);
      const claimed = await claims.claim({ limit: 1, now: new Date(), skipTargets: [], choose: (due) => due.filter((d) => d.id === pending.id).map((d) => d.id) });
      expect(claimed.map((c) => c.id)).toEqual([pending.id]);

      const dry = erase('erase', merchant.id, orderId, '--dry-run', '--json');
      const answered = await Promise.race([dry.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 5_000))]);
      expect(answered).toBe(true);
      expect(JSON.parse((await dry).out).orders).toEqual([
        { merchantId: merchant.id, orderId, status: 'WOULD_ERASE', details: true, notificationUrl: false, responses: 1, notifications: 1, agreements: 1 },
      ]);
      expect(await ledgerRows(merchant, orderId)).toEqual(before);
    } finally {
      if (record.isTransactionActive) {
        await record.rollbackTransaction();
      }
      await record.release();
      const at = new Date();
      await claims.finish({ id: pending.id, status: 'DELIVERED', attempts: 1, nextAttemptAt: at, lastAttemptAt: at, lastResult: 'HTTP 200', deliveredAt: at }, 0);
      await claims.close();
    }
  });

  it('moves the order row\'s version when only responses held personal data, so a record that read it before decides again', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    // The device is echoed in the response but not kept in the order's details.
    await operateAs(app, merchant, orderId, 'p1', 'PAY', {
      order: { amount: '3.00', currency: 'USD' },
      device: { ipAddress: '203.0.113.7' },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } },
    });
    const before = await ledgerRows(merchant, orderId);
    expect(before.order.details).toEqual({});

    expect((await erase('erase', merchant.id, orderId)).out).toContain('order details unchanged, notification URL unchanged, 1 stored response, 0 notifications');
    const after = await ledgerRows(merchant, orderId);
    expect(after.order.details).toEqual({});
    expect(after.order.version).not.toBe(before.order.version);
    expect(keys(after.responses[0].body)).toEqual(keys(before.responses[0].body).filter((k) => k !== 'device'));
  });

  it('waits for a write holding the order row, and strips what it wrote', async () => {
    const merchant = notifiedMerchant();
    const orderId = await paidOrder(merchant);
    // A record in flight: it holds the order row, as every ledger write does, and stores a response
    // (another acquirer message, a customer named again).
    const record = app.dataSource.createQueryRunner();
    await record.connect();
    await record.startTransaction();
    try {
      await record.query('SELECT 1 FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2 FOR UPDATE', [merchant.id, orderId]);
      let done = false;
      const erasing = erase('erase', merchant.id, orderId).finally(() => (done = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(done).toBe(false);
      await record.query(
        `UPDATE order_transaction.operation_responses SET body = body || '{"customer":{"email":"late@example.org"},"response":{"gatewayCode":"APPROVED","acquirerMessage":"Approved late"}}'::jsonb
          WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = 'r1'`,
        [merchant.id, orderId],
      );
      await record.commitTransaction();
      expect((await erasing).code).toBe(0);
    } finally {
      await record.release();
    }
    const after = await ledgerRows(merchant, orderId);
    expect(JSON.stringify(after)).not.toMatch(/late@example\.org|zelda/i);
    // Read after the record committed, not before: its write is kept, not overwritten with what it replaced.
    expect(after.responses[1].body.response).toEqual({ gatewayCode: 'APPROVED', acquirerMessage: 'Approved late' });
  });

  it('strips the payloads of notifications already delivered too, and keeps their delivery record', async () => {
    const merchant = notifiedMerchant();
    const orderId = await paidOrder(merchant);
    await app.dataSource.query(
      `UPDATE order_transaction.notification_outbox SET status = 'DELIVERED', attempts = 1, last_result = 'HTTP 200', delivered_at = now()
        WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = 'p1'`,
      [merchant.id, orderId],
    );
    const before = await deliveryRecords(merchant, orderId);
    expect(JSON.stringify((await ledgerRows(merchant, orderId)).outbox[0].payload)).toContain('zelda@example.org');

    const dry = JSON.parse((await erase('erase', merchant.id, orderId, '--dry-run', '--json')).out);
    expect(dry.orders[0]).toMatchObject({ status: 'WOULD_ERASE', notifications: 2 });
    expect((await erase('erase', merchant.id, orderId)).out).toContain('2 stored responses, 2 notifications');
    const after = await ledgerRows(merchant, orderId);
    expect(after.outbox.map((n: { status: string }) => n.status)).toEqual(['DELIVERED', 'PENDING']);
    for (const value of PERSONAL_VALUES) {
      expect(JSON.stringify(after.outbox)).not.toContain(value);
    }
    expect(keys(after.outbox[0].payload)).toEqual(['authorizationResponse', 'merchant', 'order', 'response', 'result', 'sourceOfFunds', 'timeOfRecord', 'transaction']);
    // The delivery's own record (status, attempts, result, time) is the dispatcher's: as it was.
    expect(await deliveryRecords(merchant, orderId)).toEqual(before);
  });

  it('finds an order\'s delivered notifications by the index on them, not by reading every delivered row', async () => {
    const runner = app.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      // A test database is small enough for a sequential scan to win; what is asked is whether the index can serve the query.
      await runner.query('SET LOCAL enable_seqscan = off');
      const plan: { 'QUERY PLAN': string }[] = await runner.query(
        `EXPLAIN SELECT id, url, payload FROM order_transaction.notification_outbox WHERE status = 'DELIVERED' AND merchant_id = $1 AND order_id = $2`,
        ['m', 'o'],
      );
      expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toContain('notification_outbox_delivered_order_idx');
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it('cuts the notification URL\'s query from the order and its notifications, and a later change of the order is still announced there', async () => {
    const merchant = notifiedMerchant();
    const orderId = newOrderId();
    const withQuery = `${HOOKS}?customer=zelda-42&email=zelda%40example.org#top`;
    await operateAs(app, merchant, orderId, 'p1', 'PAY', { ...payRequest, order: { ...(payRequest.order as JsonObject), notificationUrl: withQuery } });
    await operateAs(app, merchant, orderId, 'r1', 'REFUND', refundRequest);
    await app.dataSource.query(
      `UPDATE order_transaction.notification_outbox SET status = 'DELIVERED', delivered_at = now() WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = 'p1'`,
      [merchant.id, orderId],
    );
    const before = await ledgerRows(merchant, orderId);
    expect(before.order.notificationUrl).toBe(withQuery);
    expect(before.outbox.map((n: { url: string }) => n.url)).toEqual([withQuery, withQuery]);

    const dry = JSON.parse((await erase('erase', merchant.id, orderId, '--dry-run', '--json')).out);
    expect(dry.orders[0]).toMatchObject({ status: 'WOULD_ERASE', notificationUrl: true, notifications: 2 });
    expect(await ledgerRows(merchant, orderId)).toEqual(before);

    const run = await erase('erase', merchant.id, orderId);
    expect(run.out.split('\n')[0]).toBe(`Erased:\t${merchant.id}/${orderId}\torder details stripped, notification URL stripped, 2 stored responses, 2 notifications, 0 agreements`);
    const after = await ledgerRows(merchant, orderId);
    expect(JSON.stringify(after)).not.toMatch(/zelda/i);
    // The receiver's address stays (the same receiver key for the dispatcher), its query and fragment go.
    expect(after.order.notificationUrl).toBe(HOOKS);
    expect(after.outbox.map((n: { url: string }) => n.url)).toEqual([HOOKS, HOOKS]);
    // The PAY named it and answered it; the REFUND named none.
    expect(group(before.responses[0].body, 'order').notificationUrl).toBe(withQuery);
    expect(group(after.responses[0].body, 'order').notificationUrl).toBe(HOOKS);
    expect((await retrieveOrder(merchant, orderId)).transaction).toEqual(
      expect.arrayContaining([expect.objectContaining({ order: expect.objectContaining({ notificationUrl: HOOKS }) })]),
    );

    // A later operation that names no URL is announced to the order's URL as the erasure left it.
    await operateAs(app, merchant, orderId, 'r2', 'REFUND', { transaction: { amount: '1.00', currency: 'USD' } });
    const later = await ledgerRows(merchant, orderId);
    expect(later.outbox.map((n: { id: string; status: string; url: string }) => [n.id, n.status, n.url])).toEqual([
      ['p1', 'DELIVERED', HOOKS],
      ['r1', 'PENDING', HOOKS],
      ['r2', 'PENDING', HOOKS],
    ]);
  });

  it('erases the custom data of the agreement the order named, keeps its terms, and a later payment in the series no longer gets it', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const agreementId = `agr-${randomBytes(5).toString('hex')}`;
    const agreement = { id: agreementId, type: 'UNSCHEDULED', customData: 'member zelda-42' };
    await operateAs(app, merchant, orderId, 'p1', 'PAY', {
      order: { amount: '12.00', currency: 'USD' },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } },
      agreement,
    });
    const terms = () =>
      app.dataSource.query(
        `SELECT xmin::text AS version, type, custom_data AS "customData", established_order_id AS "orderId", established_transaction_id AS "transactionId"
           FROM order_transaction.agreements WHERE merchant_id = $1 AND agreement_id = $2`,
        [merchant.id, agreementId],
      );
    const [before] = await terms();
    expect(before).toMatchObject({ type: 'UNSCHEDULED', customData: 'member zelda-42', orderId, transactionId: 'p1' });
    const rowsBefore = await ledgerRows(merchant, orderId);
    expect(group(rowsBefore.responses[0].body, 'agreement')).toMatchObject({ id: agreementId, customData: 'member zelda-42' });
    expect(group(rowsBefore.order.details, 'agreement')).toMatchObject({ customData: 'member zelda-42' });

    const dry = await erase('erase', merchant.id, orderId, '--dry-run');
    expect(dry.out.split('\n')[0]).toBe(`Would erase (dry run):\t${merchant.id}/${orderId}\torder details stripped, notification URL unchanged, 1 stored response, 0 notifications, 1 agreement`);
    expect((await terms())[0]).toEqual(before);

    expect((await erase('erase', merchant.id, orderId)).out.split('\n')[1]).toBe(
      'Orders: 1 erased, 0 with nothing to erase, 0 not found. Changed: 1 order details, 0 notification URLs, 1 stored response, 0 notifications, 1 agreement.',
    );
    const [after] = await terms();
    expect(after).toEqual({ ...before, version: after.version, customData: null });
    const rowsAfter = await ledgerRows(merchant, orderId);
    expect(JSON.stringify(rowsAfter)).not.toContain('zelda-42');
    expect(group(rowsAfter.responses[0].body, 'agreement')).toEqual({ id: agreementId, type: 'UNSCHEDULED' });

    // The series goes on: a later payment naming only the id still gets the type, not the text.
    const later = await operateAs(app, merchant, newOrderId(), 'p1', 'PAY', {
      order: { amount: '12.00', currency: 'USD' },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } },
      agreement: { id: agreementId },
    });
    expect(later).toMatchObject({ result: 'SUCCESS', agreement: { id: agreementId, type: 'UNSCHEDULED' } });
    expect(JSON.stringify(later)).not.toContain('zelda-42');
    // Run again: nothing left.
    expect((await erase('erase', merchant.id, orderId)).out).toContain('Nothing to erase');
  });

  it("erases the custom data of the merchant's agreement only, not another merchant's agreement of the same id", async () => {
    const [merchant, other] = [testMerchant(), testMerchant()];
    const agreementId = `agr-${randomBytes(5).toString('hex')}`;
    const establish = (as: MerchantContext, orderId: string, customData: string) =>
      operateAs(app, as, orderId, 'p1', 'PAY', {
        order: { amount: '12.00', currency: 'USD' },
        sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } },
        agreement: { id: agreementId, type: 'UNSCHEDULED', customData },
      });
    const orderId = newOrderId();
    await establish(merchant, orderId, 'member zelda-42');
    await establish(other, newOrderId(), 'member of another shop');

    expect((await erase('erase', merchant.id, orderId)).out.split('\n')[0]).toContain('1 agreement');
    const texts = await app.dataSource.query(`SELECT merchant_id AS "merchantId", custom_data AS "customData" FROM order_transaction.agreements WHERE agreement_id = $1`, [agreementId]);
    expect(texts).toEqual(
      expect.arrayContaining([
        { merchantId: merchant.id, customData: null },
        { merchantId: other.id, customData: 'member of another shop' },
      ]),
    );
    expect(texts).toHaveLength(2);
  });

  it('waits for a notification a dispatcher is delivering, keeps the outcome it writes, and strips the payload after it', async () => {
    const merchant = notifiedMerchant();
    const orderId = await paidOrder(merchant);
    const [[pending]] = await app.dataSource.query(
      `UPDATE order_transaction.notification_outbox SET next_attempt_at = '2000-01-01T00:00:00Z'
        WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = 'p1' RETURNING id`,
      [merchant.id, orderId],
    );
    // The dispatcher's own claim (its advisory lock on the notification, on its own session), as a worker takes it.
    const claims = new NotificationClaims(app.dataSource);
    try {
      const claimed = await claims.claim({ limit: 1, now: new Date(), skipTargets: [], choose: (due) => due.filter((d) => d.id === pending.id).map((d) => d.id) });
      expect(claimed).toHaveLength(1);
      expect(claimed[0].id).toBe(pending.id);
      expect(JSON.stringify(claimed[0].payload)).toContain('zelda@example.org');

      let done = false;
      const erasing = erase('erase', merchant.id, orderId).finally(() => (done = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The delivery is in flight with the payload it claimed: the erasure waits for its outcome.
      expect(done).toBe(false);
      const at = new Date();
      await claims.finish({ id: pending.id, status: 'DELIVERED', attempts: 1, nextAttemptAt: at, lastAttemptAt: at, lastResult: 'HTTP 200', deliveredAt: at }, 0);
      expect((await erasing).code).toBe(0);
    } finally {
      await claims.close();
    }
    const [row] = await app.dataSource.query(
      `SELECT status, attempts, last_result AS "lastResult", delivered_at IS NOT NULL AS delivered, payload FROM order_transaction.notification_outbox WHERE id = $1`,
      [pending.id],
    );
    // Neither write lost: the dispatcher's outcome and the erasure's payload.
    expect(row).toMatchObject({ status: 'DELIVERED', attempts: 1, lastResult: 'HTTP 200', delivered: true });
    expect(JSON.stringify(row.payload)).not.toMatch(/zelda/i);
  });

  it("does not hold the order's row while it waits for a delivery in flight: an operation on the order meanwhile is recorded, and erased", async () => {
    const merchant = notifiedMerchant();
    const orderId = await paidOrder(merchant);
    const [[pending]] = await app.dataSource.query(
      `UPDATE order_transaction.notification_outbox SET next_attempt_at = '2000-01-01T00:00:00Z'
        WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = 'p1' RETURNING id`,
      [merchant.id, orderId],
    );
    const claims = new NotificationClaims(app.dataSource);
    let erasing: Promise<Run> | undefined;
    try {
      const claimed = await claims.claim({ limit: 1, now: new Date(), skipTargets: [], choose: (due) => due.filter((d) => d.id === pending.id).map((d) => d.id) });
      expect(claimed.map((c) => c.id)).toEqual([pending.id]);
      erasing = erase('erase', merchant.id, orderId);
      await new Promise((resolve) => setTimeout(resolve, 300));

      // A delivery may take WEBHOOK_TIMEOUT_MS (up to a minute): the merchant's refund of the
      // order, its money moved at the acquirer, is not kept waiting for the order's row meanwhile.
      const refund = operateAs(app, merchant, orderId, 'r2', 'REFUND', { transaction: { amount: '1.00', currency: 'USD' }, customer: { email: 'zelda@example.org' } });
      const recorded = await Promise.race([refund.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 5_000))]);
      expect(recorded).toBe(true);
    } finally {
      const at = new Date();
      await claims.finish({ id: pending.id, status: 'DELIVERED', attempts: 1, nextAttemptAt: at, lastAttemptAt: at, lastResult: 'HTTP 200', deliveredAt: at }, 0);
      await claims.close();
    }
    expect((await erasing!).code).toBe(0);
    // The erasure decided on the order as the refund left it: its response and notification are stripped too.
    const after = await ledgerRows(merchant, orderId);
    expect(after.responses.map((r: { id: string }) => r.id)).toContain('r2');
    expect(JSON.stringify(after)).not.toMatch(/zelda/i);
  });

  it('cuts the URL an UNKNOWN outcome keeps for its announcement, so the outcome learned after the erasure is announced without the payer\'s query', async () => {
    const merchant = notifiedMerchant();
    const orderId = newOrderId();
    const withQuery = `${HOOKS}?customer=zelda-42`;
    const unknownPay = { ...payRequest, order: { ...(payRequest.order as JsonObject), notificationUrl: withQuery } };
    const card = group(unknownPay, 'sourceOfFunds', 'provided', 'card');
    await operateAs(app, merchant, orderId, 'p1', 'PAY', { ...unknownPay, sourceOfFunds: { type: 'CARD', provided: { card: { ...card, expiry: TEST_EXPIRY.UNKNOWN } } } });
    const announcementOf = async (): Promise<JsonObject | null> =>
      (await app.dataSource.query(`SELECT announcement FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = 'p1'`, [merchant.id, orderId]))[0]
        .announcement;
    expect(await announcementOf()).toMatchObject({ url: withQuery });

    const dry = JSON.parse((await erase('erase', merchant.id, orderId, '--dry-run', '--json')).out);
    expect(dry.orders[0]).toMatchObject({ status: 'WOULD_ERASE', notificationUrl: true });
    expect(await announcementOf()).toMatchObject({ url: withQuery });
    expect((await erase('erase', merchant.id, orderId)).code).toBe(0);
    // The receiver, mode and sealed secret stay: the resolution still announces the outcome, signed as before.
    expect(await announcementOf()).toEqual({ url: HOOKS, merchantMode: 'TEST', sealedSecret: merchant.settings.notifications.secret?.current });

    const resolution = resolveUnknownOver(app.dataSource, logger);
    await resolution.execute({
      merchantId: merchant.id,
      orderId,
      transactionId: 'p1',
      learned: { gatewayCode: 'APPROVED', acquirerTransactionId: 'MCC7654320101' },
      source: 'OPERATOR',
    });
    const after = await ledgerRows(merchant, orderId);
    expect(after.transactions[0]).toMatchObject({ id: 'p1', result: 'SUCCESS' });
    expect(after.outbox.map((n: { id: string; url: string }) => [n.id, n.url])).toEqual([
      ['p1', HOOKS],
      ['p1', HOOKS],
    ]);
    expect(JSON.stringify(after)).not.toMatch(/zelda/i);
  });
});

describe('payer-data erase, and a payment of the series that read the agreement before it', () => {
  const card = { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } };
  const TEXT = 'member zelda-42';

  /** The series' first order, which establishes an agreement with custom data (a notification announces it). */
  async function seriesBegun(merchant: MerchantContext): Promise<{ orderId: string; agreementId: string }> {
    const orderId = newOrderId();
    const agreementId = `agr-${randomBytes(5).toString('hex')}`;
    await operateAs(app, merchant, orderId, 'p1', 'PAY', {
      order: { amount: '12.00', currency: 'USD', notificationUrl: HOOKS },
      sourceOfFunds: card,
      agreement: { id: agreementId, type: 'UNSCHEDULED', customData: TEXT },
    });
    return { orderId, agreementId };
  }

  /** A later payment of the series, on an order of its own, naming only the agreement's id: it is given the stored text. */
  function laterPayment(merchant: MerchantContext, orderId: string, agreementId: string): Promise<JsonObject> {
    return operateAs(app, merchant, orderId, 'p1', 'PAY', { order: { amount: '12.00', currency: 'USD', notificationUrl: HOOKS }, sourceOfFunds: card, agreement: { id: agreementId } });
  }

  /** Nowhere on the later order: not in its answer, its rows (details, responses, notifications) or its retrieval. */
  async function expectNoText(merchant: MerchantContext, orderId: string, answer: JsonObject): Promise<void> {
    expect(answer).toMatchObject({ result: 'SUCCESS', agreement: { type: 'UNSCHEDULED' } });
    expect(JSON.stringify(answer)).not.toContain(TEXT);
    const rows = await ledgerRows(merchant, orderId);
    expect(rows.outbox).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(TEXT);
    expect(JSON.stringify(await retrieveOrder(merchant, orderId))).not.toContain(TEXT);
  }

  it('does not let a payment that read the text before the erasure store it on its order after the erasure', async () => {
    const merchant = notifiedMerchant();
    const { orderId, agreementId } = await seriesBegun(merchant);
    // The later payment reads the agreement (its text), then is held until the erasure has ended.
    const agreements = app.running.app.get(AgreementRepository);
    const find = agreements.find.bind(agreements);
    let read!: () => void;
    const hasRead = new Promise<void>((resolve) => (read = resolve));
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    const held = jest.spyOn(agreements, 'find').mockImplementationOnce(async (merchantId, id) => {
      const found = await find(merchantId, id);
      read();
      await resumed;
      return found;
    });
    const laterOrderId = newOrderId();
    try {
      const paying = laterPayment(merchant, laterOrderId, agreementId);
      await hasRead;
      const run = await erase('erase', merchant.id, orderId);
      expect(run.out.split('\n')[0]).toBe(`Erased:\t${merchant.id}/${orderId}\torder details stripped, notification URL unchanged, 1 stored response, 1 notification, 1 agreement`);
      resume();
      await expectNoText(merchant, laterOrderId, await paying);
    } finally {
      resume();
      held.mockRestore();
    }
  });

  it('makes a payment recording while the erasure holds the agreement wait for it, and store no text', async () => {
    const merchant = notifiedMerchant();
    const { orderId, agreementId } = await seriesBegun(merchant);
    // The erasure is stopped inside its transaction, the agreement's row taken: at the order's
    // stored response, which it writes after the agreement's lock and before it commits.
    const response = app.dataSource.createQueryRunner();
    await response.connect();
    await response.startTransaction();
    try {
      const [{ pid: responsePid }] = await response.query('SELECT pg_backend_pid() AS pid');
      await response.query('SELECT 1 FROM order_transaction.operation_responses WHERE merchant_id = $1 AND order_id = $2 FOR UPDATE', [merchant.id, orderId]);
      const erasing = erase('erase', merchant.id, orderId);
      const erasure = await waitFor(async () => (await blockedBy(responsePid)).find((b) => b.query.includes('UPDATE order_transaction.operation_responses')), {
        what: 'the erasure at the stored response',
      });

      // The later payment read the text (no lock: the erasure has not committed); its record waits for the erasure.
      const laterOrderId = newOrderId();
      const paying = laterPayment(merchant, laterOrderId, agreementId);
      await waitFor(async () => (await blockedBy(erasure.pid)).some((b) => b.query.includes('order_transaction.agreements')), { what: "the payment's record at the agreement", timeoutMs: 5_000 });

      await response.rollbackTransaction();
      expect((await erasing).out).toContain('1 agreement');
      await expectNoText(merchant, laterOrderId, await paying);
    } finally {
      if (response.isTransactionActive) {
        await response.rollbackTransaction();
      }
      await response.release();
    }
  });
});
