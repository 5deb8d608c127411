import { randomBytes } from 'node:crypto';
import { ACQUIRER_WIRE, Pan, parseCardExpiry, TestAcquirer } from '@gateway/acquirer';
import { AcquirerCallMessage, GatewayError, JsonObject, MerchantContext, OrderApiOperation, SUBJECTS } from '@gateway/contracts';
import { NotDeliveredError, standaloneBus } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY, testRequestHasher } from '@gateway/testing';
import {
  dropFirstCompletionWrite,
  holdPoolAtRecord,
  LedgerTestApp,
  newOrderId,
  nextFence,
  operateAs,
  reserveTogether,
  startLedgerTestApp,
  statementsOf,
  testMerchant,
} from './testing/ledger-test-app';

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

const operate = (
  merchant: MerchantContext,
  orderId: string,
  transactionId: string,
  apiOperation: OrderApiOperation,
  body: JsonObject,
  fencingToken?: string,
) => operateAs(app, merchant, orderId, transactionId, apiOperation, body, fencingToken);

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

async function acquirerCalls(operation: string, outcome?: string): Promise<number> {
  const metric = await app.metrics.registry.getSingleMetric('gateway_acquirer_requests_total')?.get();
  return (metric?.values ?? [])
    .filter((v) => v.labels.operation === operation && (outcome === undefined || v.labels.outcome === outcome))
    .reduce((sum, v) => sum + v.value, 0);
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

describe("a payment's deadline (docs/decisions/operation-deadline.md)", () => {
  /** A PAY opening its order, as an edge stamps it: `deadline`, when that edge stops waiting. */
  const payBy = (merchant: MerchantContext, orderId: string, deadline: number) =>
    app
      .operate({
        envelope: { merchant, apiVersion: 100, requestId: `req-${randomBytes(4).toString('hex')}`, authMethod: 'PASSWORD', fencingToken: nextFence() },
        apiOperation: 'PAY',
        orderId,
        transactionId: 'p1',
        body: { apiOperation: 'PAY', order: { amount: '12.00', currency: 'USD' }, sourceOfFunds: card },
        deadline,
      })
      .then((reply) => reply.body);
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected a refusal');
      },
      (err: unknown) => err,
    );

  it('refuses, unprocessed, a PAY that could begin only after the edge stopped waiting: no order, no acquirer call; the retry pays once', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const calls = await acquirerCalls('PAY');
    expect(await refusal(payBy(merchant, orderId, Date.now() - 1))).toBeInstanceOf(NotDeliveredError);
    expect(await orderRow(merchant, orderId)).toBeUndefined();
    expect(await acquirerCalls('PAY')).toBe(calls);
    expect(await payBy(merchant, orderId, Date.now() + 60_000)).toMatchObject({ result: 'SUCCESS', transaction: { id: 'p1' } });
    expect(await acquirerCalls('PAY')).toBe(calls + 1);
  });

  it('refuses, unprocessed, a CAPTURE that could begin only after the edge stopped waiting: nothing captured, no acquirer call', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await authorize(merchant, orderId, '10.00');
    const calls = await acquirerCalls('CAPTURE');
    const late = app.operate({
      envelope: { merchant, apiVersion: 100, requestId: `req-${randomBytes(4).toString('hex')}`, authMethod: 'PASSWORD', fencingToken: nextFence() },
      apiOperation: 'CAPTURE',
      orderId,
      transactionId: 'c1',
      body: { apiOperation: 'CAPTURE', transaction: { amount: '10.00', currency: 'USD' } },
      deadline: Date.now() - 1,
    });
    expect(await refusal(late)).toBeInstanceOf(NotDeliveredError);
    expect(await acquirerCalls('CAPTURE')).toBe(calls);
    expect((await transactionsOf(merchant, orderId)).map((t) => t.id)).toEqual(['a1']);
  });

  it("refuses, unprocessed, a PAY whose new order's reservation gets its database connection only after the deadline", async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const calls = await acquirerCalls('PAY');
    // In time at begin and at the reservation's start; the pool is then busy until past the deadline.
    const deadline = Date.now() + 3_000;
    const pool = holdPoolAtRecord(app, 'RESERVE', ({ waiting }) => waiting > 0 && Date.now() > deadline);
    let late: unknown;
    try {
      late = await refusal(payBy(merchant, orderId, deadline));
    } finally {
      pool.restore();
    }
    expect(pool.heldAt()).toBeLessThan(deadline);
    expect(late).toBeInstanceOf(NotDeliveredError);
    expect(await orderRow(merchant, orderId)).toBeUndefined();
    expect(await acquirerCalls('PAY')).toBe(calls);
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
    expect(partial).toMatchObject({ response: { gatewayCode: 'PARTIALLY_APPROVED' }, order: { amount: 5.25, totalAuthorizedAmount: 5.25 } });
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

describe('a capture\'s tax beyond its amount (amount-consistency-rules.md, amendment 2026-11-26)', () => {
  it('is refused on transaction.taxAmount, so captures cannot push a full refund\'s default tax past what the API answers (it was a 500)', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await authorize(merchant, orderId, '11.00');
    // Before: eleven captures of 1.00 each with a tax of 10^12 were accepted, and the full refund's
    // default tax, their sum, overflowed the tax column: 500 SERVER_FAILED.
    await expect(
      operate(merchant, orderId, 'c0', 'CAPTURE', { transaction: { amount: '1.00', currency: 'USD', taxAmount: '1000000000000' } }),
    ).rejects.toMatchObject({ field: 'transaction.taxAmount', validationType: 'INVALID' });
    expect(await transactionsOf(merchant, orderId)).toHaveLength(1);
    await operate(merchant, orderId, 'c1', 'CAPTURE', { transaction: { amount: '11.00', currency: 'USD', taxAmount: '11.00' } });
    const refunded = await operate(merchant, orderId, 'r1', 'REFUND', { transaction: { amount: '11.00', currency: 'USD' } });
    expect(refunded).toMatchObject({ result: 'SUCCESS', transaction: { taxAmount: 11 } });
  });
});

describe('a refund of a named capture (refund-rules.md, amendment 2026-11-26)', () => {
  it('is refused beyond what that capture holds, even when the order\'s other capture covers it: nothing recorded, nothing sent', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await authorize(merchant, orderId, '100.00');
    await capture(merchant, orderId, 'c1', '30.00');
    await capture(merchant, orderId, 'c2', '70.00');
    const refunds = await acquirerCalls('REFUND');
    const refund = (id: string, amount: string, targetTransactionId: string) =>
      operate(merchant, orderId, id, 'REFUND', { transaction: { amount, currency: 'USD', targetTransactionId } });
    await expect(refund('r1', '50.00', 'c1')).rejects.toMatchObject({
      field: 'transaction.amount',
      validationType: 'INVALID',
      explanation: "Value '50.00' is invalid. The amount available for refund of transaction 'c1' is 30.00 USD.",
    });
    expect(await acquirerCalls('REFUND')).toBe(refunds);
    expect(await refund('r1', '20.00', 'c1')).toMatchObject({ result: 'SUCCESS' });
    expect(await acquirerCalls('REFUND')).toBe(refunds + 1);
    await expect(refund('r2', '10.01', 'c1')).rejects.toMatchObject({
      explanation: "Value '10.01' is invalid. The amount available for refund of transaction 'c1' is 10.00 USD.",
    });
    expect(await refund('r2', '70.00', 'c2')).toMatchObject({ result: 'SUCCESS', order: { totalRefundedAmount: 90 } });
    expect((await transactionsOf(merchant, orderId)).map((t) => t.id)).toEqual(['a1', 'c1', 'c2', 'r1', 'r2']);
  });
});

describe('the tax a full refund defaults to (test-acquirer-partial-approvals.md, refund-rules.md: amendments 2026-11-26)', () => {
  it('is none after a partial approval: the request\'s tax is kept with neither the payment nor the refund', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const paid = await operate(merchant, orderId, 'p1', 'PAY', {
      order: { amount: '110.51', currency: 'USD', itemAmount: '100.51', taxAmount: '10.00', acceptPartialAmount: true },
      sourceOfFunds: card,
    });
    expect(paid).toMatchObject({ response: { gatewayCode: 'PARTIALLY_APPROVED' }, transaction: { amount: 55.25, requestedAmount: 110.51 } });
    expect(paid.transaction).not.toHaveProperty('taxAmount');
    const [row] = await app.dataSource.query(
      `SELECT tax_amount FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = 'p1'`,
      [merchant.id, orderId],
    );
    expect(row.tax_amount).toBeNull();
    const refunded = await operate(merchant, orderId, 'r1', 'REFUND', { transaction: { amount: '55.25', currency: 'USD' } });
    expect(refunded).toMatchObject({ result: 'SUCCESS' });
    expect(refunded.transaction).not.toHaveProperty('taxAmount');
  });

  it('is the authorisation\'s tax after one capture of all of it that named no tax', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await operate(merchant, orderId, 'a1', 'AUTHORIZE', { order: { amount: '50.00', currency: 'USD', itemAmount: '46.00', taxAmount: '4.00' }, sourceOfFunds: card });
    await capture(merchant, orderId, 'c1', '50.00');
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

describe('what the ledger keeps of a card operation', () => {
  async function rowsOf(merchant: MerchantContext, orderId: string) {
    return app.dataSource.query(
      `SELECT transaction_id AS id, type, funding_type AS "fundingType", tax_amount::text AS "taxAmount"
         FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2 ORDER BY sequence`,
      [merchant.id, orderId],
    ) as Promise<Record<string, string | null>[]>;
  }

  it('a PAY: sent to the acquirer as a payment, recorded with its card funding, its tax and the notification URL', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const [payments, authorizations] = [await acquirerCalls('PAY'), await acquirerCalls('AUTHORIZE')];
    const body = await operate(merchant, orderId, 'p1', 'PAY', {
      order: { amount: '30.00', currency: 'USD', itemAmount: '27.50', taxAmount: '2.50', notificationUrl: 'https://merchant.example/notify' },
      sourceOfFunds: card,
    });
    // The issuer's approval code and the retrieval reference, as the acquirer answered them.
    expect(body).toMatchObject({ result: 'SUCCESS', transaction: { authorizationCode: expect.stringMatching(/^[0-9]{6}$/), receipt: expect.stringMatching(/^[0-9]{12}$/) } });
    expect([await acquirerCalls('PAY'), await acquirerCalls('AUTHORIZE')]).toEqual([payments + 1, authorizations]);
    expect(await rowsOf(merchant, orderId)).toEqual([{ id: 'p1', type: 'PAYMENT', fundingType: 'CARD', taxAmount: '2.5000' }]);
    const [stored] = await app.dataSource.query(
      'SELECT notification_url AS "notificationUrl" FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2',
      [merchant.id, orderId],
    );
    expect(stored.notificationUrl).toBe('https://merchant.example/notify');
  });

  it('a CAPTURE, a refund of it and a VOID fund the same card as the authorization', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await authorize(merchant, orderId, '50.00');
    await capture(merchant, orderId, 'c1', '50.00');
    await operate(merchant, orderId, 'r1', 'REFUND', { transaction: { amount: '10.00', currency: 'USD', targetTransactionId: 'c1' } });
    expect(await voidOf(merchant, orderId, 'v1', 'r1')).toMatchObject({ result: 'SUCCESS', transaction: { type: 'VOID_REFUND' } });
    expect((await rowsOf(merchant, orderId)).map((t) => [t.id, t.fundingType])).toEqual([
      ['a1', 'CARD'],
      ['c1', 'CARD'],
      ['r1', 'CARD'],
      ['v1', 'CARD'],
    ]);
  });

  it('a replayed PAY is answered from begin\'s read alone: nothing planned, reserved or sent again', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const request = { order: { amount: '15.00', currency: 'USD' }, sourceOfFunds: card };
    const first = await operate(merchant, orderId, 'p1', 'PAY', request);
    const calls = await acquirerCalls('PAY');
    let again: JsonObject = {};
    const sent = await statementsOf(async () => {
      again = await operate(merchant, orderId, 'p1', 'PAY', request);
    });
    expect(again).toEqual(first);
    expect(sent.map((sql) => sql.split(' ')[0])).toEqual(['SELECT']);
    expect(await acquirerCalls('PAY')).toBe(calls);
  });
});

describe('a PAY asking for the full card number (responseControls.sensitiveData UNMASK)', () => {
  it('gets it in its reply only, with the permission and certificate authentication: the ledger keeps it masked', async () => {
    const merchant = testMerchant({ privileges: { excessiveRefund: false, unmask: true, refundRequiresApproval: false } });
    const orderId = newOrderId();
    const pay = () =>
      app.operate({
        envelope: { merchant, apiVersion: 100, requestId: `req-${randomBytes(4).toString('hex')}`, authMethod: 'CERTIFICATE', fencingToken: nextFence() },
        apiOperation: 'PAY',
        orderId,
        transactionId: 'p1',
        body: { apiOperation: 'PAY', order: { amount: '8.00', currency: 'USD' }, sourceOfFunds: card, responseControls: { sensitiveData: 'UNMASK' } },
      });
    expect((await pay()).body).toMatchObject({ result: 'SUCCESS', sourceOfFunds: { provided: { card: { number: TEST_CARD } } } });
    expect((await pay()).body).toMatchObject({ sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } } });
  });

  it('gets it only in the reply of the one copy that paid: copies racing past begin are answered the stored body, masked', async () => {
    const merchant = testMerchant({ privileges: { excessiveRefund: false, unmask: true, refundRequiresApproval: false } });
    const orderId = newOrderId();
    const calls = await acquirerCalls('PAY');
    const fencingToken = nextFence();
    const together = reserveTogether(app, 6);
    const replies = await Promise.all(
      Array.from({ length: 6 }, () =>
        app.operate({
          envelope: { merchant, apiVersion: 100, requestId: `req-${randomBytes(4).toString('hex')}`, authMethod: 'CERTIFICATE', fencingToken },
          apiOperation: 'PAY',
          orderId,
          transactionId: 'p1',
          body: { apiOperation: 'PAY', order: { amount: '8.00', currency: 'USD' }, sourceOfFunds: card, responseControls: { sensitiveData: 'UNMASK' } },
        }),
      ),
    ).finally(() => together.restore());
    const numbers = replies.map(({ body }) => ((body.sourceOfFunds as JsonObject).provided as { card: { number: string } }).card.number);
    expect(numbers.filter((number) => number === TEST_CARD)).toHaveLength(1);
    expect(numbers.filter((number) => number === '512345xxxxxx0008')).toHaveLength(5);
    expect(await acquirerCalls('PAY')).toBe(calls + 1);
  });
});

describe('a completion whose first write fails (a dropped connection)', () => {
  it('is retried: the payment recorded once, as the acquirer answered, after one acquirer call', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const drop = dropFirstCompletionWrite(app);
    try {
      const calls = await acquirerCalls('PAY');
      const body = await operate(merchant, orderId, 'p1', 'PAY', { order: { amount: '12.00', currency: 'USD' }, sourceOfFunds: card });
      expect(body).toMatchObject({ result: 'SUCCESS', order: { status: 'CAPTURED', totalCapturedAmount: 12 } });
      expect(drop.dropped()).toBe(1);
      expect(await acquirerCalls('PAY')).toBe(calls + 1);
      expect(await transactionsOf(merchant, orderId)).toEqual([{ id: 'p1', type: 'PAYMENT', amount: '12.0000', result: 'SUCCESS' }]);
    } finally {
      drop.restore();
    }
  });
});

describe('a capture of an authorization the acquirer does not know', () => {
  /** An authorization another service recorded, its stored response holding `acquirer` (or none). */
  async function seedAuthorization(merchant: MerchantContext, orderId: string, acquirer?: JsonObject): Promise<void> {
    await app.record({
      envelope: { merchant, apiVersion: 100, requestId: 'seed-a1', authMethod: 'PASSWORD', fencingToken: nextFence() },
      orderId,
      transactionId: 'a1',
      apiOperation: 'AUTHORIZE',
      requestHash: testRequestHasher().hash({ apiOperation: 'AUTHORIZE', transactionId: 'a1' }),
      mode: 'CREATE',
      order: { currency: 'USD', amount: '50.00' },
      transaction: { type: 'AUTHORIZATION', amount: '50.00', currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED', fundingType: 'CARD' },
      response: acquirer ? { transaction: { acquirer } } : {},
    });
  }

  it('records the decline as FAILURE: nothing captured, the whole authorization still available', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    // A reference the test acquirer never issues: it answers 25, no such transaction.
    await seedAuthorization(merchant, orderId, { id: 'TEST_ACQUIRER', transactionId: 'LOST-REFERENCE' });
    const declined = await capture(merchant, orderId, 'c1', '50.00');
    expect(declined).toMatchObject({
      result: 'FAILURE',
      response: { gatewayCode: 'DECLINED', acquirerCode: '25' },
      order: { status: 'AUTHORIZED', totalCapturedAmount: 0 },
    });
    const rows = await app.dataSource.query(
      `SELECT transaction_id AS id, result, gateway_code AS "gatewayCode" FROM order_transaction.transactions
        WHERE merchant_id = $1 AND order_id = $2 ORDER BY sequence`,
      [merchant.id, orderId],
    );
    expect(rows).toEqual([
      { id: 'a1', result: 'SUCCESS', gatewayCode: 'APPROVED' },
      { id: 'c1', result: 'FAILURE', gatewayCode: 'DECLINED' },
    ]);
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'AUTHORIZED', captured: '0.0000' });
  });

  it('is refused before anything is recorded when the gateway holds no acquirer reference for it', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await seedAuthorization(merchant, orderId);
    const calls = await acquirerCalls('CAPTURE');
    await expect(capture(merchant, orderId, 'c1', '10.00')).rejects.toMatchObject({
      field: 'transaction.targetTransactionId',
      explanation: expect.stringContaining('holds no acquirer reference for this transaction, so it cannot be captured'),
    });
    expect(await acquirerCalls('CAPTURE')).toBe(calls);
    expect(await transactionsOf(merchant, orderId)).toHaveLength(1);
  });
});

describe('a TIMED_OUT answer (spec: "treat as declined; the gateway tries to reverse")', () => {
  it.each(['AUTHORIZE', 'PAY'] as const)('a %s answered TIMED_OUT is reversed at the acquirer and recorded as the decline', async (apiOperation) => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const voids = await acquirerCalls('VOID', 'APPROVED');
    const body = await operate(merchant, orderId, 't1', apiOperation, {
      order: { amount: '10.00', currency: 'USD' },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.TIMED_OUT } } },
    });
    expect(body).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'TIMED_OUT' }, order: { status: 'FAILED', totalAuthorizedAmount: 0 } });
    expect(await acquirerCalls('VOID', 'APPROVED')).toBe(voids + 1);
    expect(await transactionsOf(merchant, orderId)).toEqual([
      { id: 't1', type: apiOperation === 'PAY' ? 'PAYMENT' : 'AUTHORIZATION', amount: '10.0000', result: 'FAILURE' },
    ]);
  });

  it('reverses nothing else: an approval and another decline send no void', async () => {
    const voids = await acquirerCalls('VOID');
    const pay = (expiry: { month: string; year: string }) =>
      operate(testMerchant(), newOrderId(), 'p1', 'PAY', {
        order: { amount: '10.00', currency: 'USD' },
        sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry } } },
      });
    expect(await pay(TEST_EXPIRY.APPROVED)).toMatchObject({ result: 'SUCCESS' });
    expect(await pay(TEST_EXPIRY.DECLINED)).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'DECLINED' } });
    expect(await acquirerCalls('VOID')).toBe(voids);
  });
});

describe('a payment through the token vault (token-vault.acquirer.call.v1)', () => {
  afterEach(() => standaloneBus.unregister(SUBJECTS.tokenVault.acquirerCall));

  const token = '9999999999999999';
  const byToken = (merchant: MerchantContext, orderId: string, apiOperation: OrderApiOperation = 'PAY', extra: JsonObject = {}) =>
    operate(merchant, orderId, 'p1', apiOperation, { order: { amount: '20.00', currency: 'USD' }, sourceOfFunds: { token }, ...extra });

  /** A stand-in answering as the vault does: the test acquirer's result in wire form, and the card it completed, masked. */
  function vaultAnswering(asked: AcquirerCallMessage[], expiry: { month: string; year: string } = TEST_EXPIRY.APPROVED) {
    standaloneBus.register(SUBJECTS.tokenVault.acquirerCall, async (data) => {
      const message = data as AcquirerCallMessage;
      asked.push(message);
      const wire = ACQUIRER_WIRE.PAY;
      const card = { number: Pan.of(TEST_CARD), expiry: parseCardExpiry(expiry.month, expiry.year) };
      const result = await new TestAcquirer().pay({ ...wire.decodeRequest(message.request), card });
      return { result: wire.encodeResult(result), card: { number: '512345xxxxxx0008', expiry: TEST_EXPIRY.APPROVED, nameOnCard: 'A STORED HOLDER' } };
    });
  }

  it('sends the request\'s own card fields with the token, and answers with the card the vault completed', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const asked: AcquirerCallMessage[] = [];
    vaultAnswering(asked);
    const body = await byToken(merchant, orderId, 'PAY', { sourceOfFunds: { token, provided: { card: { securityCode: '100' } } } });
    expect(asked).toEqual([expect.objectContaining({ operation: 'PAY', source: { token }, explicit: { securityCode: '100' } })]);
    expect(body).toMatchObject({ result: 'SUCCESS', sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008', nameOnCard: 'A STORED HOLDER' } } } });
  });

  it('reverses a payment the vault\'s acquirer call answered TIMED_OUT, by the acquirer\'s reference, before recording the decline', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    vaultAnswering([], TEST_EXPIRY.TIMED_OUT);
    const voids = await acquirerCalls('VOID', 'APPROVED');
    expect(await byToken(merchant, orderId)).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'TIMED_OUT' }, order: { status: 'FAILED' } });
    expect(await acquirerCalls('VOID', 'APPROVED')).toBe(voids + 1);
  });

  it('answers a clear 503 while the vault does not answer, recording nothing', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await expect(byToken(merchant, orderId)).rejects.toMatchObject({
      code: 'SERVER_BUSY',
      explanation: expect.stringContaining('Payments with a stored or session card are not available at the moment (the token vault did not answer). Nothing was charged'),
    });
    expect(await orderRow(merchant, orderId)).toBeUndefined();
  });

  it('records UNKNOWN when the vault fails after the request reached it (a 5xx): the money may have moved', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    standaloneBus.register(SUBJECTS.tokenVault.acquirerCall, async () => {
      throw GatewayError.serverFailed().toWire();
    });
    expect(await byToken(merchant, orderId)).toMatchObject({ result: 'UNKNOWN', response: { gatewayCode: 'UNKNOWN' } });
    expect(await transactionsOf(merchant, orderId)).toEqual([{ id: 'p1', type: 'PAYMENT', amount: '20.0000', result: 'UNKNOWN' }]);
  });

  it('releases an AUTHORIZE whose token the vault refuses, as a PAY: the 400 answered, no order left', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    standaloneBus.register(SUBJECTS.tokenVault.acquirerCall, async () => {
      throw GatewayError.invalidField('sourceOfFunds.token', 'INVALID', `Value '${token}' is invalid. No such token.`).toWire();
    });
    await expect(byToken(merchant, orderId, 'AUTHORIZE')).rejects.toMatchObject({ field: 'sourceOfFunds.token', httpStatus: 400 });
    expect(await orderRow(merchant, orderId)).toBeUndefined();
  });
});

describe('a browser payment\'s authorisation (browser-payment.capture.v1, browser-payment.void.v1)', () => {
  afterEach(() => {
    standaloneBus.unregister(SUBJECTS.browserPayment.capture);
    standaloneBus.unregister(SUBJECTS.browserPayment.void);
  });

  const sourceOfFunds = { type: 'PROVIDER_A', provided: { provider_a: { accountEmail: 'payer@wallet.example' } } };

  /** A provider_a AUTHORIZE as browser-payment records its completion: 50.00 authorised at the provider. */
  async function providerAuthorization(merchant: MerchantContext): Promise<string> {
    const orderId = newOrderId();
    await app.record({
      envelope: { merchant, apiVersion: 100, requestId: 'seed-bp-1', authMethod: 'PAYER', fencingToken: nextFence() },
      orderId,
      transactionId: 'bp-1',
      apiOperation: 'INITIATE_BROWSER_PAYMENT',
      requestHash: testRequestHasher().hash({ apiOperation: 'INITIATE_BROWSER_PAYMENT', transactionId: 'bp-1' }),
      mode: 'CREATE',
      order: { currency: 'USD' },
      transaction: { type: 'AUTHORIZATION', amount: '50.00', currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED', fundingType: 'PROVIDER_A' },
      response: { sourceOfFunds, transaction: { acquirer: { id: 'PROVIDER_A_SIMULATOR', transactionId: 'PA-00000000000000000001' } } },
    });
    return orderId;
  }

  /** A stand-in answering the contract as browser-payment does, keeping what it was asked. */
  function providerAnswering(subject: string, asked: JsonObject[], answer: (message: JsonObject) => unknown = () => ({ result: 'SUCCESS', gatewayCode: 'APPROVED', providerReference: 'PAC-77', sourceOfFunds })) {
    standaloneBus.register(subject, async (data) => {
      asked.push(data as JsonObject);
      return answer(data as JsonObject);
    });
  }

  it('is captured through browser-payment with the capture\'s id as its key, never through the acquirer, and recorded with the provider\'s funding', async () => {
    const merchant = testMerchant();
    const orderId = await providerAuthorization(merchant);
    const asked: JsonObject[] = [];
    providerAnswering(SUBJECTS.browserPayment.capture, asked);
    const captures = await acquirerCalls('CAPTURE');
    const body = await capture(merchant, orderId, 'c1', '20.00');
    expect(asked).toEqual([expect.objectContaining({ orderId, transactionId: 'c1', targetTransactionId: 'bp-1', amount: '20.00', currency: 'USD' })]);
    expect(await acquirerCalls('CAPTURE')).toBe(captures);
    expect(body).toMatchObject({
      result: 'SUCCESS',
      response: { gatewayCode: 'APPROVED' },
      transaction: { id: 'c1', type: 'CAPTURE', targetTransactionId: 'bp-1', receipt: 'PAC-77', acquirer: { id: 'PROVIDER_A_SIMULATOR' } },
      sourceOfFunds,
      order: { status: 'PARTIALLY_CAPTURED', totalAuthorizedAmount: 50, totalCapturedAmount: 20 },
    });
    const rows = await app.dataSource.query(
      `SELECT funding_type AS "fundingType" FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = 'c1'`,
      [merchant.id, orderId],
    );
    expect(rows).toEqual([{ fundingType: 'PROVIDER_A' }]);
  });

  it('is refused beyond what is left before browser-payment is asked: captures racing without the lock take 50.00 at most', async () => {
    const merchant = testMerchant();
    const orderId = await providerAuthorization(merchant);
    const asked: JsonObject[] = [];
    providerAnswering(SUBJECTS.browserPayment.capture, asked);
    // One fencing token for all: no lock serialises them, only the order row does.
    const token = nextFence();
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => outcome(capture(merchant, orderId, `c${i}`, '15.00', token))));
    expect(results.filter((r) => r === 'SUCCESS')).toHaveLength(3);
    expect(results.filter((r) => r === 'INVALID_FIELD:transaction.amount')).toHaveLength(5);
    expect(asked).toHaveLength(3);
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'PARTIALLY_CAPTURED', authorized: '50.0000', captured: '45.0000' });
  });

  it('answers a clear 503 while browser-payment does not answer, and releases a capture browser-payment refused (400): nothing recorded, the id free', async () => {
    const merchant = testMerchant();
    const orderId = await providerAuthorization(merchant);
    await expect(capture(merchant, orderId, 'c1', '20.00')).rejects.toMatchObject({
      code: 'SERVER_BUSY',
      explanation:
        'Captures of browser payment authorizations are not available at the moment (browser-payment did not answer). Nothing was captured; the request may be retried with the same transaction id.',
    });
    standaloneBus.register(SUBJECTS.browserPayment.capture, async () => {
      throw GatewayError.invalidRequest("Capture 'c1' was already made at the provider for 10.00 USD.").toWire();
    });
    await expect(capture(merchant, orderId, 'c1', '20.00')).rejects.toMatchObject({ httpStatus: 400, explanation: expect.stringContaining('for 10.00 USD') });
    expect(await transactionsOf(merchant, orderId)).toEqual([{ id: 'bp-1', type: 'AUTHORIZATION', amount: '50.0000', result: 'SUCCESS' }]);
    standaloneBus.unregister(SUBJECTS.browserPayment.capture);
    providerAnswering(SUBJECTS.browserPayment.capture, []);
    expect(await capture(merchant, orderId, 'c1', '10.00')).toMatchObject({ result: 'SUCCESS' });
  });

  it('records UNKNOWN, the amount kept reserved, when browser-payment fails after the request reached it', async () => {
    const merchant = testMerchant();
    const orderId = await providerAuthorization(merchant);
    standaloneBus.register(SUBJECTS.browserPayment.capture, async () => {
      throw GatewayError.serverFailed().toWire();
    });
    expect(await capture(merchant, orderId, 'c1', '40.00')).toMatchObject({ result: 'UNKNOWN', response: { gatewayCode: 'UNKNOWN' } });
    await expect(capture(merchant, orderId, 'c2', '10.01')).rejects.toMatchObject({ explanation: expect.stringContaining('available for capture on this order is 10.00 USD') });
  });

  it('is voided through browser-payment: VOID_AUTHORIZATION, the order CANCELLED; a declined void voids nothing', async () => {
    const merchant = testMerchant();
    const orderId = await providerAuthorization(merchant);
    const asked: JsonObject[] = [];
    providerAnswering(SUBJECTS.browserPayment.void, asked, () => ({ result: 'FAILURE', gatewayCode: 'DECLINED', sourceOfFunds }));
    expect(await voidOf(merchant, orderId, 'v1', 'bp-1')).toMatchObject({ result: 'FAILURE', order: { status: 'AUTHORIZED' } });
    standaloneBus.unregister(SUBJECTS.browserPayment.void);
    providerAnswering(SUBJECTS.browserPayment.void, asked, () => ({ result: 'SUCCESS', gatewayCode: 'APPROVED', sourceOfFunds }));
    expect(await voidOf(merchant, orderId, 'v2', 'bp-1')).toMatchObject({
      result: 'SUCCESS',
      transaction: { type: 'VOID_AUTHORIZATION', amount: 50, targetTransactionId: 'bp-1', acquirer: { id: 'PROVIDER_A_SIMULATOR' } },
      sourceOfFunds,
      order: { status: 'CANCELLED' },
    });
    expect(asked).toEqual([
      expect.objectContaining({ orderId, transactionId: 'v1', targetTransactionId: 'bp-1' }),
      expect.objectContaining({ orderId, transactionId: 'v2', targetTransactionId: 'bp-1' }),
    ]);
    expect(asked[0]).not.toHaveProperty('amount');
  });
});
