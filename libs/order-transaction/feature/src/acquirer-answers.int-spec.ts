import { TestAcquirer } from '@gateway/acquirer';
import type { JsonObject, MerchantContext, OrderApiOperation } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import {
  LedgerTestApp,
  newOrderId,
  operateAs,
  rejection,
  startLedgerTestApp,
  testMerchant,
} from './testing/ledger-test-app';

/**
 * An acquirer whose successful answer disagrees with what was asked (more than asked, a part the
 * operation does not accept, another currency) through the real handlers, ledger and Postgres:
 * recorded UNKNOWN at the amount asked, the order's totals as the answer never came
 * (docs/decisions/acquirer-answer-checks.md). The test acquirer answers as it does; a spy alters
 * its answer as a misbehaving acquirer would.
 */
let app: LedgerTestApp;

beforeAll(async () => {
  app = await startLedgerTestApp();
});

afterAll(async () => {
  await app?.running.shutdown('tests done');
});

afterEach(() => {
  jest.restoreAllMocks();
});

const operate = (
  merchant: MerchantContext,
  orderId: string,
  transactionId: string,
  apiOperation: OrderApiOperation,
  body: JsonObject,
) => operateAs(app, merchant, orderId, transactionId, apiOperation, body);

const card = { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } };
const usd = (amount: string) => Money.of(amount, 'USD');

async function orderRow(merchant: MerchantContext, orderId: string) {
  const rows = await app.dataSource.query(
    `SELECT status, total_authorized_amount::text AS authorized, total_captured_amount::text AS captured, total_refunded_amount::text AS refunded
       FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2`,
    [merchant.id, orderId],
  );
  return rows[0] as Record<string, string>;
}

async function transactionsOf(merchant: MerchantContext, orderId: string) {
  return app.dataSource.query(
    `SELECT transaction_id AS id, type, amount::text AS amount, currency, result, gateway_code AS "gatewayCode"
       FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2 ORDER BY sequence`,
    [merchant.id, orderId],
  ) as Promise<Record<string, string>[]>;
}

async function refused(operation: string, discrepancy: string): Promise<number> {
  const metric = await app.metrics.registry.getSingleMetric('gateway_acquirer_answers_refused_total')?.get();
  return (metric?.values ?? [])
    .filter((v) => v.labels.operation === operation && v.labels.discrepancy === discrepancy)
    .reduce((sum, v) => sum + v.value, 0);
}

describe("an acquirer's answer that disagrees with what was asked", () => {
  it('records a PAY approved for more than asked UNKNOWN at the amount asked: nothing captured, the amount held', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const answer = TestAcquirer.prototype.pay;
    jest.spyOn(TestAcquirer.prototype, 'pay').mockImplementation(async function (
      this: TestAcquirer,
      ...args
    ) {
      return { ...(await answer.apply(this, args)), approvedAmount: usd('1000.00') };
    });
    const before = await refused('PAY', 'MORE_THAN_ASKED');
    const body = await operate(merchant, orderId, 'p1', 'PAY', {
      order: { amount: '12.00', currency: 'USD' },
      sourceOfFunds: card,
    });
    expect(body).toMatchObject({
      result: 'UNKNOWN',
      response: { gatewayCode: 'UNKNOWN' },
      transaction: { amount: 12, currency: 'USD' },
      order: { amount: 12, totalCapturedAmount: 0, totalAuthorizedAmount: 0 },
    });
    expect(await transactionsOf(merchant, orderId)).toEqual([
      {
        id: 'p1',
        type: 'PAYMENT',
        amount: '12.0000',
        currency: 'USD',
        result: 'UNKNOWN',
        gatewayCode: 'UNKNOWN',
      },
    ]);
    expect(await orderRow(merchant, orderId)).toMatchObject({ authorized: '0.0000', captured: '0.0000' });
    expect(await refused('PAY', 'MORE_THAN_ASKED')).toBe(before + 1);
  });

  it('records an AUTHORIZE partially approved though the request did not accept it UNKNOWN at the amount asked', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const answer = TestAcquirer.prototype.authorize;
    jest.spyOn(TestAcquirer.prototype, 'authorize').mockImplementation(async function (
      this: TestAcquirer,
      ...args
    ) {
      return {
        ...(await answer.apply(this, args)),
        gatewayCode: 'PARTIALLY_APPROVED',
        approvedAmount: usd('4.00'),
      };
    });
    const body = await operate(merchant, orderId, 'a1', 'AUTHORIZE', {
      order: { amount: '20.00', currency: 'USD' },
      sourceOfFunds: card,
    });
    expect(body).toMatchObject({
      result: 'UNKNOWN',
      transaction: { amount: 20 },
      order: { totalAuthorizedAmount: 0 },
    });
    expect((await transactionsOf(merchant, orderId)).map((t) => [t.id, t.amount, t.result])).toEqual([
      ['a1', '20.0000', 'UNKNOWN'],
    ]);
  });

  it('records a CAPTURE the acquirer made for a part UNKNOWN: the authorisation stands, nothing captured', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    expect(
      await operate(merchant, orderId, 'a1', 'AUTHORIZE', {
        order: { amount: '20.00', currency: 'USD' },
        sourceOfFunds: card,
      }),
    ).toMatchObject({
      result: 'SUCCESS',
    });
    const totals = await orderRow(merchant, orderId);
    const answer = TestAcquirer.prototype.capture;
    jest.spyOn(TestAcquirer.prototype, 'capture').mockImplementation(async function (
      this: TestAcquirer,
      ...args
    ) {
      return { ...(await answer.apply(this, args)), amount: usd('3.00') };
    });
    const before = await refused('CAPTURE', 'PARTIAL_NOT_ACCEPTED');
    const body = await operate(merchant, orderId, 'c1', 'CAPTURE', {
      transaction: { amount: '10.00', currency: 'USD' },
    });
    expect(body).toMatchObject({
      result: 'UNKNOWN',
      response: { gatewayCode: 'UNKNOWN' },
      transaction: { amount: 10 },
      order: { totalCapturedAmount: 0 },
    });
    expect(await orderRow(merchant, orderId)).toEqual(totals);
    expect((await transactionsOf(merchant, orderId)).map((t) => [t.id, t.amount, t.result])).toEqual([
      ['a1', '20.0000', 'SUCCESS'],
      ['c1', '10.0000', 'UNKNOWN'],
    ]);
    expect(await refused('CAPTURE', 'PARTIAL_NOT_ACCEPTED')).toBe(before + 1);
  });

  it('records a REFUND answered in another currency UNKNOWN: nothing refunded, the amount held against the refund limit', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    expect(
      await operate(merchant, orderId, 'p1', 'PAY', {
        order: { amount: '20.00', currency: 'USD' },
        sourceOfFunds: card,
      }),
    ).toMatchObject({
      result: 'SUCCESS',
    });
    const totals = await orderRow(merchant, orderId);
    const answer = TestAcquirer.prototype.refund;
    jest.spyOn(TestAcquirer.prototype, 'refund').mockImplementation(async function (
      this: TestAcquirer,
      ...args
    ) {
      return { ...(await answer.apply(this, args)), amount: Money.of('15.00', 'EUR') };
    });
    const body = await operate(merchant, orderId, 'r1', 'REFUND', {
      transaction: { amount: '15.00', currency: 'USD' },
    });
    expect(body).toMatchObject({
      result: 'UNKNOWN',
      transaction: { amount: 15, currency: 'USD' },
      order: { totalRefundedAmount: 0 },
    });
    expect(await orderRow(merchant, orderId)).toEqual(totals);
    jest.restoreAllMocks();
    // The UNKNOWN refund's 15.00 stays reserved: only 5.00 is left to refund.
    const over = await rejection(
      operate(merchant, orderId, 'r2', 'REFUND', { transaction: { amount: '6.00', currency: 'USD' } }),
    );
    expect(over).toMatchObject({ code: 'INVALID_FIELD', field: 'transaction.amount' });
    expect(
      await operate(merchant, orderId, 'r3', 'REFUND', { transaction: { amount: '5.00', currency: 'USD' } }),
    ).toMatchObject({
      result: 'SUCCESS',
      order: { totalRefundedAmount: 5 },
    });
  });

  it('still records a partial approval the PAY accepted, at the approved amount', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    // 10.51: the test acquirer approves half (docs/decisions/test-acquirer-partial-approvals.md).
    const body = await operate(merchant, orderId, 'p1', 'PAY', {
      order: { amount: '10.51', currency: 'USD', acceptPartialAmount: true },
      sourceOfFunds: card,
    });
    expect(body).toMatchObject({
      result: 'SUCCESS',
      response: { gatewayCode: 'PARTIALLY_APPROVED' },
      order: { amount: 5.25, totalCapturedAmount: 5.25 },
    });
    expect((await transactionsOf(merchant, orderId)).map((t) => [t.id, t.amount, t.result])).toEqual([
      ['p1', '5.2500', 'SUCCESS'],
    ]);
  });
});
