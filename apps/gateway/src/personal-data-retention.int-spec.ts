import { randomBytes } from 'node:crypto';
import { BROWSER_PAYMENT_SCHEMA, BrowserPaymentPayerDataRepository } from '@gateway/browser-payment/data-access';
import { EraseBrowserPaymentPayerData } from '@gateway/browser-payment/domain';
import { BrowserPaymentConfig, BrowserPaymentModule } from '@gateway/browser-payment/feature';
import { JsonObject } from '@gateway/contracts';
import { ORDER_TRANSACTION_SCHEMA } from '@gateway/order-transaction/data-access';
import { createLogger, dataSourceToken, loadConfig, Metrics, PersonalDataRetention } from '@gateway/platform';
import { createDatabase, databaseUrl, dropDatabase, keptForAtRestScan } from '@gateway/testing';
import { DataSource } from 'typeorm';
import { startBrowserPaymentGateway, startTestGateway, TestGateway, TestGatewayMerchant, twoBooksOrder } from './testing/test-gateway';

/**
 * The payer personal-data retention with browser-payment and the ledger in one process, as the
 * standalone gateway runs them (docs/decisions/payer-personal-data.md, amendment 2026-11-27):
 * browser payments made through the edge's HTTP surface and the payer's journey, made old by
 * moving their times back, then the process's PersonalDataRetention job run: browser-payment's
 * pass, then the ledger's. A database of its own: a run reads every order of each schema it has not
 * stripped.
 */
const database = `${process.env.TEST_DATABASE}_personal_data_retention_bp`;
let gateway: TestGateway;
let payments: DataSource;
let ledger: DataSource;

beforeAll(async () => {
  await createDatabase(database);
  gateway = await startBrowserPaymentGateway({ DATABASE_URL: databaseUrl(database) });
  const source = (schema: string) => gateway.running.app.get<string, DataSource>(dataSourceToken(schema) as string, { strict: false });
  payments = source(BROWSER_PAYMENT_SCHEMA.schema);
  ledger = source(ORDER_TRANSACTION_SCHEMA.schema);
});

afterAll(async () => {
  await gateway?.running.shutdown('tests done');
  if (!process.env.TEST_KEEP_DATABASE && !keptForAtRestScan()) {
    await dropDatabase(database);
  }
});

const PERSONAL = /zelda|Privet|SW1A 2AA|\+4479460000|mauve|neighbour|called back|payer@wallet\.example|Simulated Payer|cart=7/i;

function initiateBody(): JsonObject {
  return {
    apiOperation: 'INITIATE_BROWSER_PAYMENT',
    browserPayment: { returnUrl: 'https://shop.example/checkout/return?cart=7#paid', provider_a: { operation: 'PAY', paymentConfirmation: 'CONFIRM_AT_PROVIDER' } },
    order: { ...twoBooksOrder(), custom: { colour: 'mauve' }, customerNote: 'leave it with the neighbour' },
    customer: { email: 'zelda@example.org' },
    shipping: { address: { street: '10 Privet Drive', city: 'Little Whinging', postcodeZip: 'SW1A 2AA', country: 'GBR' }, contact: { firstName: 'Zelda', phone: '+4479460000' } },
    transaction: { merchantNote: 'called back' },
    sourceOfFunds: { type: 'PROVIDER_A' },
  };
}

interface Order {
  merchant: TestGatewayMerchant;
  orderId: string;
}

async function initiated(): Promise<Order & { redirectUrl: string }> {
  const merchant = await gateway.newMerchant();
  const orderId = `bp-${randomBytes(5).toString('hex')}`;
  const response = await gateway.fetch(`${merchant.base()}/order/${orderId}/transaction/bp-1`, {
    method: 'PUT',
    headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
    body: JSON.stringify(initiateBody()),
  });
  expect(response.status).toBe(201);
  return { merchant, orderId, redirectUrl: (response.body.browserPayment as JsonObject).redirectUrl as string };
}

/** The payer approves at the provider and comes back through the gateway: the journey is over. */
async function completed(): Promise<Order> {
  const payment = await initiated();
  const page = await gateway.fetch(payment.redirectUrl);
  const action = /action="([^"]+\/approve)"/.exec(page.text)![1];
  const decided = await gateway.fetch(action, { method: 'POST' });
  expect((await gateway.fetch(decided.headers.get('location')!)).status).toBe(303);
  return payment;
}

/** The order's last step and last operation, in both schemas, moved `days` back (its initiation and creation a day before). */
async function idleFor({ merchant, orderId }: Order, days: number): Promise<void> {
  const key = [merchant.id, orderId, days];
  await payments.query(
    `UPDATE browser_payment.payments SET time_initiated = now() - make_interval(days => $3 + 1), updated_at = now() - make_interval(days => $3) WHERE merchant_id = $1 AND order_id = $2`,
    key,
  );
  await ledger.query(
    `UPDATE order_transaction.orders SET created_at = now() - make_interval(days => $3 + 1), updated_at = now() - make_interval(days => $3) WHERE merchant_id = $1 AND order_id = $2`,
    key,
  );
}

/** The order's rows in both schemas, each with its version (xmin): a write of any of them shows. */
async function rows({ merchant, orderId }: Order) {
  const key = [merchant.id, orderId];
  return {
    payments: await payments.query(
      `SELECT xmin::text AS version, result, amount::text, return_url AS "returnUrl", request, provider_details AS "providerDetails",
              personal_data_stripped_at IS NOT NULL AS marked
         FROM browser_payment.payments WHERE merchant_id = $1 AND order_id = $2`,
      key,
    ),
    order: await ledger.query(`SELECT xmin::text AS version, status, details FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2`, key),
    responses: await ledger.query(`SELECT xmin::text AS version, body FROM order_transaction.operation_responses WHERE merchant_id = $1 AND order_id = $2`, key),
  };
}

const retentionRun = () => gateway.running.app.get(PersonalDataRetention).runNow();

describe('payer personal-data retention of browser payments, with the ledger in one process', () => {
  it('strips a finished payment idle past the retention in both schemas, browser-payment first, and leaves a recent one whole', async () => {
    const [idle, recent] = [await completed(), await completed()];
    await idleFor(idle, 650);
    const before = { idle: await rows(idle), recent: await rows(recent) };
    expect(JSON.stringify(before.idle.payments)).toMatch(PERSONAL);
    expect(JSON.stringify(before.idle.responses)).toMatch(PERSONAL);

    const reports = await retentionRun();
    // browser-payment's pass, then the ledger's, as the standalone `payer-data erase` runs them.
    expect(Object.keys(reports)).toEqual(['browser-payment', 'order-transaction']);
    expect(reports).toEqual({ 'browser-payment': { erased: 1, unchanged: 0, unfinished: 0, failed: 0 }, 'order-transaction': { erased: 1, unchanged: 0, failed: 0 } });

    const after = await rows(idle);
    expect(JSON.stringify(after)).not.toMatch(PERSONAL);
    expect(after.payments[0]).toMatchObject({ result: 'SUCCESS', amount: '30.0000', returnUrl: 'https://shop.example/checkout/return' });
    expect(await rows(recent)).toEqual(before.recent);
  });

  it('passes a payment whose journey is under way, and strips it once it is over and idle that long', async () => {
    const underWay = await initiated();
    await idleFor(underWay, 640);
    const before = await rows(underWay);
    expect(before.payments[0].result).toBe('PENDING');

    const reports = await retentionRun();
    expect(reports['browser-payment']).toEqual({ erased: 0, unchanged: 0, unfinished: 0, failed: 0 });
    // Not a row of the payment written; its request and return URL are still needed.
    expect((await rows(underWay)).payments).toEqual(before.payments);

    // The journey ends (the payer approves and comes back): its last step is now; later it is idle that long too.
    const page = await gateway.fetch(underWay.redirectUrl);
    const decided = await gateway.fetch(/action="([^"]+\/approve)"/.exec(page.text)![1], { method: 'POST' });
    expect((await gateway.fetch(decided.headers.get('location')!)).status).toBe(303);
    await idleFor(underWay, 630);
    expect((await retentionRun())['browser-payment']).toEqual({ erased: 1, unchanged: 0, unfinished: 0, failed: 0 });
    expect(JSON.stringify((await rows(underWay)).payments)).not.toMatch(PERSONAL);
  });

  it('marks a stripped payment and reads it no more: the next run writes nothing of it', async () => {
    const order = await completed();
    await idleFor(order, 620);
    expect((await retentionRun())['browser-payment']).toEqual({ erased: 1, unchanged: 0, unfinished: 0, failed: 0 });
    const stripped = await rows(order);
    expect(JSON.stringify(stripped)).not.toMatch(PERSONAL);
    expect(stripped.payments.map((p: { marked: boolean }) => p.marked)).toEqual([true]);
    expect((await retentionRun())['browser-payment']).toEqual({ erased: 0, unchanged: 0, unfinished: 0, failed: 0 });
    expect(await rows(order)).toEqual(stripped);
  });

  it("leaves an order whose payment had a step after the run read it (a capture at the provider): it is not past retention any more", async () => {
    const order = await completed();
    await idleFor(order, 610);
    const records = BrowserPaymentPayerDataRepository.over(payments);
    const idleBefore = new Date(Date.now() - 600 * 86_400_000);
    // The run's read of the idle payments, then a step of the payment before its erasure.
    expect((await records.unstrippedPayments(null, idleBefore, 1_000)).map((p) => p.orderId)).toContain(order.orderId);
    await payments.query(`UPDATE browser_payment.payments SET updated_at = now() WHERE merchant_id = $1 AND order_id = $2`, [order.merchant.id, order.orderId]);
    const before = await rows(order);

    const erasure = new EraseBrowserPaymentPayerData(records, createLogger({ service: 'browser-payment', level: 'silent' }));
    expect(await erasure.execute({ merchantId: order.merchant.id, orderId: order.orderId, dryRun: false, retention: { idleBefore } })).toMatchObject({ status: 'UNCHANGED', payments: 0 });
    // Neither stripped nor marked: the next run reads it again, once idle that long.
    expect((await rows(order)).payments).toEqual(before.payments);
    expect(before.payments[0].marked).toBe(false);
    expect(JSON.stringify(before.payments)).toMatch(PERSONAL);
  });

  it('marks a payment that had nothing left to strip (erased on request before), and reads it no more', async () => {
    const order = await completed();
    // The merchant forwarded the payer's request: erased by the operator's command, which marks nothing.
    const erasure = new EraseBrowserPaymentPayerData(BrowserPaymentPayerDataRepository.over(payments), createLogger({ service: 'browser-payment', level: 'silent' }));
    expect(await erasure.execute({ merchantId: order.merchant.id, orderId: order.orderId, dryRun: false })).toMatchObject({ status: 'ERASED' });
    await idleFor(order, 605);
    expect((await rows(order)).payments.map((p: { marked: boolean }) => p.marked)).toEqual([false]);

    expect((await retentionRun())['browser-payment']).toEqual({ erased: 0, unchanged: 1, unfinished: 0, failed: 0 });
    const done = await rows(order);
    expect(done.payments.map((p: { marked: boolean }) => p.marked)).toEqual([true]);
    expect((await retentionRun())['browser-payment']).toEqual({ erased: 0, unchanged: 0, unfinished: 0, failed: 0 });
    expect((await rows(order)).payments).toEqual(done.payments);
  });
});

/** The process's `gateway_personal_data_retention_days` series, as Prometheus scrapes them. */
async function declaredDays(of: TestGateway): Promise<string[]> {
  const text = await of.running.app.get(Metrics).registry.metrics();
  return text.split('\n').filter((line) => line.startsWith('gateway_personal_data_retention_days{'));
}

// The setting must be the same in browser-payment and order-transaction; the alert
// GatewayPersonalDataRetentionMismatch compares what each process declares.
describe("the services' retention settings, as their processes export them", () => {
  it('exports the setting of each pass the standalone gateway runs', async () => {
    expect((await declaredDays(gateway)).sort()).toEqual([
      'gateway_personal_data_retention_days{pass="browser-payment"} 600',
      'gateway_personal_data_retention_days{pass="order-transaction"} 600',
    ]);
  });

  it('exports 0 from a browser-payment process with the retention off, which runs no pass', async () => {
    // browser-payment alone beside the edge, as its Deployment runs it; on the shared database:
    // with the retention off it reads no payment.
    const off = await startTestGateway({
      services: (config) => [BrowserPaymentModule.forRoot(loadConfig(BrowserPaymentConfig, config))],
      env: { PERSONAL_DATA_RETENTION_DAYS: '0' },
    });
    try {
      expect(await declaredDays(off)).toEqual(['gateway_personal_data_retention_days{pass="browser-payment"} 0']);
      expect(await off.running.app.get(PersonalDataRetention).runNow()).toEqual({});
    } finally {
      await off.running.shutdown('test done');
    }
  });
});
