import { randomBytes } from 'node:crypto';
import { defaultMerchantSettings, JsonObject, MerchantContext, notificationSecretContext } from '@gateway/contracts';
import { SealingKeyRing, Secret } from '@gateway/crypto';
import { ErasePayerData, RetainPayerData } from '@gateway/order-transaction/domain';
import { PayerDataRepository } from '@gateway/order-transaction/data-access';
import { createLogger, PersonalDataRetention } from '@gateway/platform';
import { createDatabase, dropDatabase, keptForAtRestScan, logLinesInto, TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { LedgerTestApp, newOrderId, operateAs, startLedgerTestApp, testMerchant } from './testing/ledger-test-app';

/**
 * The ledger's payer personal-data retention (RetainPayerData, docs/decisions/payer-personal-data.md
 * amendment 2026-11-27) against the real ledger, run by the app's PersonalDataRetention job as its
 * module wires it (PERSONAL_DATA_RETENTION_DAYS at its default, 600). Orders are paid through the
 * service's own operation path, then made old by moving their times back. A database of its own:
 * a run reads every order of the schema it has not stripped.
 */
const database = `${process.env.TEST_DATABASE}_personal_data_retention`;
let app: LedgerTestApp;

beforeAll(async () => {
  const url = await createDatabase(database);
  app = await startLedgerTestApp({ DATABASE_URL: url });
});

afterAll(async () => {
  await app?.running.shutdown('tests done');
  if (!process.env.TEST_KEEP_DATABASE && !keptForAtRestScan()) {
    await dropDatabase(database);
  }
});

const RING = SealingKeyRing.parse(`t1:${randomBytes(32).toString('base64')}`, 'KEYS');

/** A merchant whose order changes are announced (PENDING notifications: no dispatcher runs here). */
function notifiedMerchant(): MerchantContext {
  const merchant = testMerchant();
  const secret = RING.seal(new Secret(randomBytes(32).toString('base64url')), notificationSecretContext(merchant.id));
  return { ...merchant, settings: { ...defaultMerchantSettings(), notifications: { enabled: true, secret: { current: secret } } } };
}

const PERSONAL = /zelda|Privet|SW1A 2AA|\+4479460000|203\.0\.113\.7|mauve|neighbour|called back|\?customer=/i;

const payRequest: JsonObject = {
  order: { amount: '25.00', currency: 'USD', notificationUrl: 'https://merchant.example/hooks?customer=zelda', custom: { colour: 'mauve' }, customerNote: 'leave it with the neighbour' },
  billing: { address: { street: '10 Privet Drive', city: 'Little Whinging', postcodeZip: 'SW1A 2AA', country: 'GBR' } },
  customer: { email: 'zelda@example.org', firstName: 'Zelda', lastName: 'Quux', phone: '+4479460000' },
  device: { ipAddress: '203.0.113.7' },
  transaction: { merchantNote: 'called back' },
  sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: '100', nameOnCard: 'ZELDA Q HOLDER' } } },
};

async function paidOrder(merchant: MerchantContext): Promise<string> {
  const orderId = newOrderId();
  await operateAs(app, merchant, orderId, 'p1', 'PAY', payRequest);
  return orderId;
}

/** The order's creation and last operation moved `createdDaysAgo` and `idleDaysAgo` days back. */
async function age(merchant: MerchantContext, orderId: string, createdDaysAgo: number, idleDaysAgo: number): Promise<void> {
  await app.dataSource.query(
    `UPDATE order_transaction.orders SET created_at = now() - make_interval(days => $3), updated_at = now() - make_interval(days => $4)
      WHERE merchant_id = $1 AND order_id = $2`,
    [merchant.id, orderId, createdDaysAgo, idleDaysAgo],
  );
}

/** Every row the ledger holds of the order, each with its version (xmin): a write of any of them shows. */
async function ledgerRows(merchant: MerchantContext, orderId: string) {
  const key = [merchant.id, orderId];
  const [order] = await app.dataSource.query(
    `SELECT xmin::text AS version, status, total_captured_amount::text AS captured, updated_at::text AS "updatedAt", notification_url AS "notificationUrl", details,
            personal_data_stripped_at IS NOT NULL AS marked
       FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2`,
    key,
  );
  const responses = await app.dataSource.query(
    `SELECT xmin::text AS version, transaction_id AS id, request_hash AS "requestHash", body
       FROM order_transaction.operation_responses WHERE merchant_id = $1 AND order_id = $2 ORDER BY sequence`,
    key,
  );
  const outbox = await app.dataSource.query(
    `SELECT xmin::text AS version, status, url, payload FROM order_transaction.notification_outbox WHERE merchant_id = $1 AND order_id = $2 ORDER BY created_at`,
    key,
  );
  return { order, responses, outbox };
}

const versions = (rows: Awaited<ReturnType<typeof ledgerRows>>) => [rows.order.version, ...rows.responses.map((r: { version: string }) => r.version), ...rows.outbox.map((n: { version: string }) => n.version)];

/** The app's retention job, run now (its ledger pass is the only one in this process). */
async function retentionRun(): Promise<Record<string, number>> {
  const reports = await app.running.app.get(PersonalDataRetention).runNow();
  return reports['order-transaction'];
}

// The tests run in order in one database: each run reads the orders of the tests before too,
// stripped and marked by then, so it counts only the orders of its own test.
describe('payer personal-data retention in the ledger', () => {
  it('strips an order idle past the retention, and leaves a recent order and an old order with a recent operation whole', async () => {
    const merchant = notifiedMerchant();
    const [idle, recent, oldButBusy] = [await paidOrder(merchant), await paidOrder(merchant), await paidOrder(merchant)];
    await age(merchant, idle, 701, 700);
    await age(merchant, oldButBusy, 700, 10);
    const before = { idle: await ledgerRows(merchant, idle), recent: await ledgerRows(merchant, recent), oldButBusy: await ledgerRows(merchant, oldButBusy) };
    expect(JSON.stringify(before.idle)).toMatch(PERSONAL);

    expect(await retentionRun()).toEqual({ erased: 1, unchanged: 0, failed: 0 });

    const after = await ledgerRows(merchant, idle);
    expect(JSON.stringify(after)).not.toMatch(PERSONAL);
    // The financial record stays, and the erasure is not an operation: the last operation's time is kept.
    expect(after.order).toMatchObject({ status: 'CAPTURED', captured: '25.0000', updatedAt: before.idle.order.updatedAt, notificationUrl: 'https://merchant.example/hooks', marked: true });
    expect(after.responses.map((r: { requestHash: string }) => r.requestHash)).toEqual(before.idle.responses.map((r: { requestHash: string }) => r.requestHash));
    expect(after.responses[0].body).toMatchObject({ result: 'SUCCESS', order: { amount: 25, currency: 'USD', status: 'CAPTURED' } });
    expect(after.outbox).toHaveLength(1);
    // Not a row of the other two written.
    expect(await ledgerRows(merchant, recent)).toEqual(before.recent);
    expect(await ledgerRows(merchant, oldButBusy)).toEqual(before.oldButBusy);
  });

  it('reads an order it has done no more: neither one it stripped nor one that had nothing to strip, until their next operation', async () => {
    const merchant = notifiedMerchant();
    const stripped = await paidOrder(merchant);
    // An order never given anything personal (a card payment with the card alone, to a merchant without notifications).
    const plain = testMerchant();
    const bare = newOrderId();
    await operateAs(app, plain, bare, 'p1', 'PAY', {
      order: { amount: '9.00', currency: 'USD' },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: '100' } } },
    });
    await age(merchant, stripped, 800, 690);
    await age(plain, bare, 800, 690);
    expect(await retentionRun()).toEqual({ erased: 1, unchanged: 1, failed: 0 });
    const done = { stripped: await ledgerRows(merchant, stripped), bare: await ledgerRows(plain, bare) };
    expect(JSON.stringify(done.stripped)).not.toMatch(PERSONAL);
    expect([done.stripped.order.marked, done.bare.order.marked]).toEqual([true, true]);

    expect(await retentionRun()).toEqual({ erased: 0, unchanged: 0, failed: 0 });
    // Same row versions: not one row of either order written by the second run.
    expect(versions(await ledgerRows(merchant, stripped))).toEqual(versions(done.stripped));
    expect(versions(await ledgerRows(plain, bare))).toEqual(versions(done.bare));
  });

  it('reads an order again once an operation after its stripping has been idle that long too', async () => {
    const merchant = notifiedMerchant();
    const orderId = await paidOrder(merchant);
    await age(merchant, orderId, 900, 680);
    await retentionRun();
    // A REFUND naming the customer again, recorded after the stripping: the order's last operation is now.
    await operateAs(app, merchant, orderId, 'r1', 'REFUND', { transaction: { amount: '5.00', currency: 'USD' }, customer: { email: 'zelda@example.org' } });
    const refunded = await ledgerRows(merchant, orderId);
    expect(JSON.stringify(refunded)).toMatch(/zelda@example\.org/);
    // The operation's write took the mark off: the order is one to strip again once idle.
    expect(refunded.order.marked).toBe(false);
    expect((await retentionRun()).erased).toBe(0);
    await age(merchant, orderId, 900, 670);
    expect(await retentionRun()).toEqual({ erased: 1, unchanged: 0, failed: 0 });
    expect(JSON.stringify(await ledgerRows(merchant, orderId))).not.toMatch(PERSONAL);
  });

  it("strips an idle order's copies of its agreement's custom data, and leaves the agreement's own: the series may still be paid on", async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const agreementId = `agr-${randomBytes(5).toString('hex')}`;
    await operateAs(app, merchant, orderId, 'p1', 'PAY', {
      order: { amount: '12.00', currency: 'USD' },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } },
      agreement: { id: agreementId, type: 'UNSCHEDULED', customData: 'member zelda-42' },
    });
    await age(merchant, orderId, 700, 650);
    expect(await retentionRun()).toEqual({ erased: 1, unchanged: 0, failed: 0 });
    expect(JSON.stringify(await ledgerRows(merchant, orderId))).not.toContain('zelda-42');
    const [agreement] = await app.dataSource.query(`SELECT custom_data AS "customData" FROM order_transaction.agreements WHERE merchant_id = $1 AND agreement_id = $2`, [
      merchant.id,
      agreementId,
    ]);
    expect(agreement).toEqual({ customData: 'member zelda-42' });
    // The series goes on as before: a later payment naming only the id still gets the text.
    const later = await operateAs(app, merchant, newOrderId(), 'p1', 'PAY', {
      order: { amount: '12.00', currency: 'USD' },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } },
      agreement: { id: agreementId },
    });
    expect(later).toMatchObject({ result: 'SUCCESS', agreement: { id: agreementId, customData: 'member zelda-42' } });
  });

  it('lets replicas run at once: each order is stripped once, by one of them, and neither fails', async () => {
    const merchant = notifiedMerchant();
    const orders = [];
    for (let i = 0; i < 6; i++) {
      const orderId = await paidOrder(merchant);
      await age(merchant, orderId, 700, 660 - i);
      orders.push(orderId);
    }
    // Warnings kept: an order a replica failed is logged with its reason, which a failure then shows.
    const warnings: Record<string, unknown>[] = [];
    const logger = createLogger({ service: 'order-transaction', level: 'warn', destination: logLinesInto(warnings) });
    const replica = () => {
      const records = PayerDataRepository.over(app.dataSource);
      return new RetainPayerData(records, new ErasePayerData(records, logger), { retentionMs: 600 * 86_400_000, pageSize: 2, pauseMs: 0 }, logger);
    };
    const [first, second] = await Promise.all([replica().run(() => false), replica().run(() => false)]);
    expect(warnings.filter((line) => 'reason' in line).map(({ orderId, reason }) => ({ orderId, reason }))).toEqual([]);
    expect(first.failed + second.failed).toBe(0);
    expect(first.erased + second.erased).toBe(6);
    for (const orderId of orders) {
      expect(JSON.stringify(await ledgerRows(merchant, orderId))).not.toMatch(PERSONAL);
    }
  });

  it('leaves an order that had an operation after the run read it, and does not mark it', async () => {
    const merchant = notifiedMerchant();
    const orderId = await paidOrder(merchant);
    await age(merchant, orderId, 700, 650);
    const logger = createLogger({ service: 'order-transaction', level: 'silent' });
    const records = PayerDataRepository.over(app.dataSource);
    const [read] = (await records.unstrippedOrders(null, new Date(Date.now() - 600 * 86_400_000), 100)).filter((o) => o.orderId === orderId);
    expect(read).toBeDefined();
    // A REFUND between the run's read and its erasure.
    await operateAs(app, merchant, orderId, 'r1', 'REFUND', { transaction: { amount: '5.00', currency: 'USD' } });
    const erased = await new ErasePayerData(records, logger).execute({ ...read, dryRun: false, retention: { idleBefore: new Date(Date.now() - 600 * 86_400_000) } });
    expect(erased.status).toBe('UNCHANGED');
    const rows = await ledgerRows(merchant, orderId);
    expect(JSON.stringify(rows)).toMatch(PERSONAL);
    expect(rows.order.marked).toBe(false);
  });

  it("does not wait for an order whose row a transaction holds (an operation being recorded): it passes it, unmarked, and the next run strips it", async () => {
    const merchant = notifiedMerchant();
    const orderId = await paidOrder(merchant);
    await age(merchant, orderId, 700, 650);
    const holder = app.dataSource.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    try {
      await holder.query('SELECT 1 FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2 FOR UPDATE', [merchant.id, orderId]);
      // The run ends with the row still held (waiting, it would not end until the release).
      expect(await retentionRun()).toEqual({ erased: 0, unchanged: 1, failed: 0 });
    } finally {
      await holder.rollbackTransaction();
      await holder.release();
    }
    const rows = await ledgerRows(merchant, orderId);
    expect(JSON.stringify(rows)).toMatch(PERSONAL);
    expect(rows.order.marked).toBe(false);
    expect(await retentionRun()).toEqual({ erased: 1, unchanged: 0, failed: 0 });
    expect(JSON.stringify(await ledgerRows(merchant, orderId))).not.toMatch(PERSONAL);
  });

  it('reads the orders to strip through orders_to_strip_idx, by creation up to the retention, never the whole table', async () => {
    const idleBefore = new Date(Date.now() - 600 * 86_400_000);
    const plan = await app.dataSource.transaction(async (manager) => {
      await manager.query('SET LOCAL enable_seqscan = off');
      const [row] = await manager.query(
        `EXPLAIN (FORMAT JSON) SELECT created_at, merchant_id, order_id FROM order_transaction.orders
          WHERE personal_data_stripped_at IS NULL AND created_at < $4 AND updated_at < $4
            AND (created_at, merchant_id, order_id) > ($1::timestamptz, $2, $3)
          ORDER BY created_at, merchant_id, order_id LIMIT 100`,
        ['-infinity', '', '', idleBefore],
      );
      return JSON.stringify(row);
    });
    expect(plan).toContain('orders_to_strip_idx');
    expect(plan).toContain('Index Cond');
  });

  it("indexes no column of the orders an operation writes, so an operation's update of its order stays a HOT update", async () => {
    // The columns the ledger's UPDATE of an order sets on every operation (ledger.repository's applyToOrderStatement).
    const written = ['currency', 'amount', 'status', 'total_authorized_amount', 'total_captured_amount', 'total_refunded_amount', 'details', 'notification_url', 'last_fencing_token', 'operation_count', 'updated_at'];
    const indexes: { name: string; definition: string }[] = await app.dataSource.query(
      `SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS definition FROM pg_index WHERE indrelid = 'order_transaction.orders'::regclass`,
    );
    expect(indexes.map((i) => i.name).sort()).toEqual(['order_transaction.orders_pkey', 'order_transaction.orders_to_strip_idx']);
    for (const { definition } of indexes) {
      for (const column of written) {
        expect({ definition, column, indexed: new RegExp(`\\b${column}\\b`).test(definition) }).toMatchObject({ indexed: false });
      }
    }
  });
});

/** The app's `gateway_personal_data_retention_days` series, as Prometheus scrapes them. */
async function declaredDays(of: LedgerTestApp): Promise<string[]> {
  return (await of.metrics.registry.metrics()).split('\n').filter((line) => line.startsWith('gateway_personal_data_retention_days{'));
}

// The setting must be the same in order-transaction and browser-payment; the alert
// GatewayPersonalDataRetentionMismatch compares what each process declares.
describe("the ledger's retention setting, as a request-serving process exports it", () => {
  it('exports the setting in days where the pass runs', async () => {
    expect(await declaredDays(app)).toEqual(['gateway_personal_data_retention_days{pass="order-transaction"} 600']);
  });

  it('exports 0 where the retention is off, and runs no pass there', async () => {
    // On the shared database: with the retention off it reads no order.
    const off = await startLedgerTestApp({ PERSONAL_DATA_RETENTION_DAYS: '0' });
    try {
      expect(await declaredDays(off)).toEqual(['gateway_personal_data_retention_days{pass="order-transaction"} 0']);
      expect(await off.running.app.get(PersonalDataRetention).runNow()).toEqual({});
    } finally {
      await off.running.shutdown('test done');
    }
  });
});
