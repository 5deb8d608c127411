import { randomBytes } from 'node:crypto';
import {
  JsonObject,
  MerchantContext,
  RecordOperationMessage,
  RecordOperationReply,
  SUBJECTS,
} from '@gateway/contracts';
import { OrderTransactionConfig, OrderTransactionModule } from '@gateway/order-transaction/feature';
import { canonicalJson, loadConfig, MessageBus, PreparedStatement, RunningApp } from '@gateway/platform';
import { TEST_CARD, testInfra, testRequestHasher } from '@gateway/testing';
import type { EntityManager } from 'typeorm';
import { startTestGateway, TestGateway } from './testing/test-gateway';

/**
 * Retrieval through the edge's HTTP surface, answered by the real ledger: the edge and
 * order-transaction in one Nest app on the in-process bus (the standalone profile's wiring),
 * the run's Postgres, orders seeded through the ledger's record subject as services do.
 */
let gateway: TestGateway;
let bus: MessageBus;
let running: RunningApp;

beforeAll(async () => {
  gateway = await startTestGateway({
    services: (config) => [OrderTransactionModule.forRoot(loadConfig(OrderTransactionConfig, config))],
    merchantDefaults: { name: 'Retrieval test', idPrefix: 'INTR' },
  });
  ({ bus, running } = gateway);
});

afterAll(async () => {
  await running?.shutdown('tests done');
});

interface Merchant {
  context: MerchantContext;
  authorization: string;
  base: string;
  baseAt(version: number): string;
}

async function newMerchant(): Promise<Merchant> {
  const merchant = await gateway.newMerchant();
  return {
    context: merchant.context,
    authorization: merchant.authorization,
    base: merchant.base(),
    baseAt: (version) => merchant.base(version),
  };
}

let fence = 1_000n;

/** What a service does after its side effect: record the operation in the ledger. */
function record(
  merchant: Merchant,
  orderId: string,
  transactionId: string,
  apiOperation: string,
  recorded: Pick<RecordOperationMessage, 'transaction' | 'response'> & Partial<Pick<RecordOperationMessage, 'mode' | 'order'>>,
  on: MessageBus = bus,
): Promise<RecordOperationReply> {
  fence += 1n;
  const message: RecordOperationMessage = {
    envelope: {
      merchant: merchant.context,
      apiVersion: 100,
      requestId: `seed-${fence}`,
      authMethod: 'PASSWORD',
      fencingToken: fence.toString(),
    },
    orderId,
    transactionId,
    apiOperation,
    requestHash: testRequestHasher().hash({ apiOperation, transactionId }),
    mode: recorded.mode ?? 'CREATE',
    order: recorded.order ?? { currency: recorded.transaction.currency },
    transaction: recorded.transaction,
    response: recorded.response,
  };
  return on.request(SUBJECTS.orderTransaction.ledgerRecord, message);
}

async function get(path: string, authorization: string, method = 'GET', on: RunningApp = running) {
  const response = await fetch(`${on.url}${path}`, { method, headers: { authorization } });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) as JsonObject };
}

const card = { type: 'CARD', provided: { card: { number: TEST_CARD, brand: 'MASTERCARD', expiry: { month: '1', year: '39' } } } };

async function authorizedAndPartlyCaptured(merchant: Merchant, orderId: string) {
  await record(merchant, orderId, 'auth-1', 'AUTHORIZE', {
    transaction: { type: 'AUTHORIZATION', amount: '100.00', currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED', fundingType: 'CARD' },
    order: { currency: 'USD', amount: '100.00', details: { description: 'Blue widgets', reference: 'cart-42' } },
    response: { sourceOfFunds: card, transaction: { authorizationCode: '123456' } },
  });
  await record(merchant, orderId, 'capture-1', 'CAPTURE', {
    transaction: { type: 'CAPTURE', amount: '30.10', currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED', targetTransactionId: 'auth-1' },
    response: {},
  });
}

describe('GET .../order/{orderid}', () => {
  it('returns the order with its transactions, totals and status, keys sorted, card numbers masked (200)', async () => {
    const merchant = await newMerchant();
    const orderId = `ord-${randomBytes(4).toString('hex')}`;
    await authorizedAndPartlyCaptured(merchant, orderId);

    const { status, text, body, headers } = await get(`${merchant.base}/order/${orderId}`, merchant.authorization);

    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(text).toBe(canonicalJson(body));
    expect(text).not.toContain(TEST_CARD);
    expect(body).toMatchObject({
      merchant: merchant.context.id,
      version: '100',
      result: 'SUCCESS',
      id: orderId,
      amount: 100,
      currency: 'USD',
      status: 'PARTIALLY_CAPTURED',
      totalAuthorizedAmount: 100,
      totalCapturedAmount: 30.1,
      totalRefundedAmount: 0,
      description: 'Blue widgets',
      reference: 'cart-42',
    });
    const transactions = body.transaction as JsonObject[];
    expect(transactions.map((t) => (t.transaction as JsonObject).id)).toEqual(['auth-1', 'capture-1']);
    expect(transactions[0]).toMatchObject({
      result: 'SUCCESS',
      sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } },
      transaction: { type: 'AUTHORIZATION', amount: 100, authorizationCode: '123456' },
      // Every transaction shows the order as it is now, not as it was when it was recorded.
      order: { status: 'PARTIALLY_CAPTURED', totalCapturedAmount: 30.1 },
    });
    expect(transactions[1]).toMatchObject({ transaction: { type: 'CAPTURE', amount: 30.1, targetTransactionId: 'auth-1' } });
    expect(body.creationTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('answers with the version of the path it was asked on', async () => {
    const merchant = await newMerchant();
    const orderId = `ord-${randomBytes(4).toString('hex')}`;
    await authorizedAndPartlyCaptured(merchant, orderId);
    const order = await get(`${merchant.baseAt(57)}/order/${orderId}`, merchant.authorization);
    expect(order).toMatchObject({ status: 200, body: { version: '57', id: orderId } });
    const transaction = await get(`${merchant.baseAt(57)}/order/${orderId}/transaction/auth-1`, merchant.authorization);
    expect(transaction).toMatchObject({ status: 200, body: { version: '57', transaction: { id: 'auth-1' } } });
  });

  it('answers 404 in the API\'s error shape for an order the merchant does not have, even one another merchant has', async () => {
    const owner = await newMerchant();
    const stranger = await newMerchant();
    const orderId = `ord-${randomBytes(4).toString('hex')}`;
    await authorizedAndPartlyCaptured(owner, orderId);

    const { status, text } = await get(`${stranger.base}/order/${orderId}`, stranger.authorization);
    expect(status).toBe(404);
    expect(text).toBe(
      `{"error":{"cause":"INVALID_REQUEST","explanation":"No order '${orderId}' was found for this merchant."},"result":"ERROR"}`,
    );
  });
});

describe('GET .../order/{orderid}, read while an operation is recorded', () => {
  it('shows totals and status that account for exactly the transactions it lists', async () => {
    const merchant = await newMerchant();
    const orderId = `ord-${randomBytes(4).toString('hex')}`;
    await record(merchant, orderId, 'auth-1', 'AUTHORIZE', {
      transaction: { type: 'AUTHORIZATION', amount: '100.00', currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED', fundingType: 'CARD' },
      order: { currency: 'USD', amount: '100.00' },
      response: { sourceOfFunds: card },
    });
    // A capture commits right after the GET's first read of the order (reads take no order
    // lock, so any write may land there); the answer must still be one state of the order.
    let armed = true;
    let injected = false;
    const rows = PreparedStatement.prototype.rows;
    const spy = jest.spyOn(PreparedStatement.prototype, 'rows').mockImplementation(async function <R>(this: PreparedStatement, manager: EntityManager, values: unknown[]) {
      const result = await rows.call<PreparedStatement, [EntityManager, unknown[]], Promise<R[]>>(this, manager, values);
      if (armed && values[1] === orderId && this.text.includes('FROM order_transaction.orders o')) {
        armed = false;
        await record(merchant, orderId, 'capture-1', 'CAPTURE', {
          transaction: { type: 'CAPTURE', amount: '100.00', currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED', targetTransactionId: 'auth-1' },
          response: {},
        });
        injected = true;
      }
      return result;
    });
    try {
      const { status, body } = await get(`${merchant.base}/order/${orderId}`, merchant.authorization);
      expect(injected).toBe(true);
      expect(status).toBe(200);
      const transactions = body.transaction as JsonObject[];
      const captured = transactions.some((t) => (t.transaction as JsonObject).id === 'capture-1');
      expect(body).toMatchObject({ status: captured ? 'CAPTURED' : 'AUTHORIZED', totalCapturedAmount: captured ? 100 : 0 });
      for (const t of transactions) {
        expect(t.order).toMatchObject({ status: body.status, totalCapturedAmount: body.totalCapturedAmount });
      }
    } finally {
      spy.mockRestore();
    }
    // The capture did commit: the next GET shows it.
    const after = await get(`${merchant.base}/order/${orderId}`, merchant.authorization);
    expect(after.body).toMatchObject({ status: 'CAPTURED', totalCapturedAmount: 100 });
    expect((after.body.transaction as JsonObject[]).map((t) => (t.transaction as JsonObject).id)).toEqual(['auth-1', 'capture-1']);
  });
});

describe('GET with percent-encoded ids', () => {
  it('finds the order and the transaction by their decoded ids', async () => {
    const merchant = await newMerchant();
    const orderId = `o ${randomBytes(4).toString('hex')}?#%é`;
    await record(merchant, orderId, 'a b?#', 'AUTHORIZE', {
      transaction: { type: 'AUTHORIZATION', amount: '5.00', currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED', fundingType: 'CARD' },
      order: { currency: 'USD', amount: '5.00' },
      response: { sourceOfFunds: card },
    });
    const order = await get(`${merchant.base}/order/${encodeURIComponent(orderId)}`, merchant.authorization);
    expect(order).toMatchObject({ status: 200, body: { id: orderId, transaction: [{ transaction: { id: 'a b?#' } }] } });
    const tx = await get(`${merchant.base}/order/${encodeURIComponent(orderId)}/transaction/${encodeURIComponent('a b?#')}`, merchant.authorization);
    expect(tx).toMatchObject({ status: 200, body: { order: { id: orderId }, transaction: { id: 'a b?#' } } });
  });
});

describe('GET .../order/{orderid}/transaction/{transactionid}', () => {
  it('returns the transaction\'s stored response with the order\'s current totals (200)', async () => {
    const merchant = await newMerchant();
    const orderId = `ord-${randomBytes(4).toString('hex')}`;
    await authorizedAndPartlyCaptured(merchant, orderId);

    const { status, body, text } = await get(`${merchant.base}/order/${orderId}/transaction/auth-1`, merchant.authorization);
    expect(status).toBe(200);
    expect(text).toBe(canonicalJson(body));
    expect(body).toMatchObject({
      merchant: merchant.context.id,
      version: '100',
      result: 'SUCCESS',
      response: { gatewayCode: 'APPROVED' },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', brand: 'MASTERCARD' } } },
      transaction: { id: 'auth-1', type: 'AUTHORIZATION', amount: 100, currency: 'USD', authorizationCode: '123456' },
      order: { id: orderId, status: 'PARTIALLY_CAPTURED', totalAuthorizedAmount: 100, totalCapturedAmount: 30.1 },
    });
    const whole = await get(`${merchant.base}/order/${orderId}`, merchant.authorization);
    const { merchant: _m, version: _v, ...transactionAlone } = body;
    expect((whole.body.transaction as JsonObject[])[0]).toEqual(transactionAlone);
  });

  it('reads a confirmed browser payment as its latest operation (the confirm)', async () => {
    const merchant = await newMerchant();
    const orderId = `ord-${randomBytes(4).toString('hex')}`;
    const payment = { type: 'PAYMENT' as const, currency: 'EUR', fundingType: 'PROVIDER_A' };
    await record(merchant, orderId, 'bp', 'INITIATE_BROWSER_PAYMENT', {
      transaction: { ...payment, amount: '12.00', result: 'PENDING', gatewayCode: 'SUBMITTED' },
      response: { browserPayment: { interaction: { status: 'INITIATED' } } },
    });
    const pending = await get(`${merchant.base}/order/${orderId}/transaction/bp`, merchant.authorization);
    expect(pending.body).toMatchObject({ result: 'PENDING', order: { status: 'INITIATED' }, response: { gatewayCode: 'SUBMITTED' } });

    await record(merchant, orderId, 'bp', 'CONFIRM_BROWSER_PAYMENT', {
      mode: 'UPDATE',
      transaction: { ...payment, amount: '11.50', result: 'SUCCESS', gatewayCode: 'APPROVED' },
      order: { currency: 'EUR', amount: '11.50' },
      response: { browserPayment: { interaction: { status: 'COMPLETED' } } },
    });
    const done = await get(`${merchant.base}/order/${orderId}/transaction/bp`, merchant.authorization);
    expect(done.body).toMatchObject({
      result: 'SUCCESS',
      browserPayment: { interaction: { status: 'COMPLETED' } },
      transaction: { amount: 11.5, currency: 'EUR' },
      order: { status: 'CAPTURED', amount: 11.5, totalCapturedAmount: 11.5 },
    });
  });

  it('answers 404 for a transaction the order does not have', async () => {
    const merchant = await newMerchant();
    const orderId = `ord-${randomBytes(4).toString('hex')}`;
    await authorizedAndPartlyCaptured(merchant, orderId);
    const { status, body } = await get(`${merchant.base}/order/${orderId}/transaction/refund-9`, merchant.authorization);
    expect(status).toBe(404);
    expect(body).toEqual({
      error: { cause: 'INVALID_REQUEST', explanation: `No transaction 'refund-9' was found on order '${orderId}'.` },
      result: 'ERROR',
    });
  });
});

describe('retrieval requests the edge refuses', () => {
  it('checks credentials first (401), then path identifiers (400 on orderid)', async () => {
    const merchant = await newMerchant();
    const unauthenticated = await get(`${merchant.base}/order/o1`, 'Basic bm9ib2R5OndoYXRldmVy');
    expect(unauthenticated.status).toBe(401);
    const tooLong = await get(`${merchant.base}/order/${'x'.repeat(41)}`, merchant.authorization);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toMatchObject({ error: { cause: 'INVALID_REQUEST', field: 'orderid', validationType: 'INVALID' } });
  });

  it('answers other methods with 405 and the methods the path allows', async () => {
    const merchant = await newMerchant();
    const onOrder = await get(`${merchant.base}/order/o1`, merchant.authorization, 'POST');
    expect(onOrder.status).toBe(405);
    expect(onOrder.headers.get('allow')).toBe('GET');
    const onTransaction = await get(`${merchant.base}/order/o1/transaction/t1`, merchant.authorization, 'DELETE');
    expect(onTransaction.status).toBe(405);
    expect(onTransaction.headers.get('allow')).toBe('GET, PUT');
  });
});

/**
 * An order whose GET answer is over NATS's max_payload (1 MiB): its ledger reply goes in parts
 * over NATS and whole on the in-process bus, up to NATS_MAX_REPLY_BYTES (docs/decisions/
 * subject-prefix-and-in-process-bus.md and order-retrieval.md, amendments on replies in parts).
 * Before, the ledger could not send it and the merchant got SERVER_FAILED for that order, always.
 */
describe('GET .../order/{orderid} of an order whose answer is over 1 MiB', () => {
  /** Transactions, each with about 40 KB of order.custom fields: about 1.4 MiB in all. */
  const TRANSACTIONS = 36;
  const customFields = (n: number) => ({ custom: { notes: `${n}:${'n'.repeat(40_000)}` } });

  async function largeOrder(merchant: Merchant, on: MessageBus): Promise<string> {
    const orderId = `ord-${randomBytes(5).toString('hex')}`;
    await record(
      merchant,
      orderId,
      'auth-0',
      'AUTHORIZE',
      {
        transaction: { type: 'AUTHORIZATION', amount: '1000.00', currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED', fundingType: 'CARD' },
        order: { currency: 'USD', amount: '1000.00' },
        response: { sourceOfFunds: card, order: customFields(0) },
      },
      on,
    );
    for (let n = 1; n < TRANSACTIONS; n++) {
      await record(
        merchant,
        orderId,
        `capture-${n}`,
        'CAPTURE',
        {
          transaction: { type: 'CAPTURE', amount: '1.00', currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED', targetTransactionId: 'auth-0' },
          response: { order: customFields(n) },
        },
        on,
      );
    }
    return orderId;
  }

  async function expectWhole(merchant: Merchant, orderId: string, on: RunningApp): Promise<void> {
    const { status, text, body } = await get(`${merchant.base}/order/${orderId}`, merchant.authorization, 'GET', on);
    expect(status).toBe(200);
    expect(Buffer.byteLength(text)).toBeGreaterThan(1024 * 1024);
    const transactions = body.transaction as JsonObject[];
    expect(transactions.map((t) => (t.transaction as JsonObject).id)).toEqual(['auth-0', ...Array.from({ length: TRANSACTIONS - 1 }, (_, i) => `capture-${i + 1}`)]);
    transactions.forEach((t, n) => expect((t.order as JsonObject).custom).toEqual(customFields(n).custom));
    expect(body).toMatchObject({ id: orderId, status: 'PARTIALLY_CAPTURED', totalCapturedAmount: TRANSACTIONS - 1 });
  }

  it('answers 200 with every transaction on the in-process bus (standalone)', async () => {
    const merchant = await newMerchant();
    await expectWhole(merchant, await largeOrder(merchant, bus), running);
  });

  describe('over NATS (distributed)', () => {
    let distributed: TestGateway;

    beforeAll(async () => {
      distributed = await startTestGateway({
        services: (config) => [OrderTransactionModule.forRoot(loadConfig(OrderTransactionConfig, config))],
        env: {
          GATEWAY_PROFILE: 'distributed',
          NATS_URL: testInfra.natsUrl,
          NATS_SUBJECT_PREFIX: `t${randomBytes(5).toString('hex')}.`,
          REDIS_URL: testInfra.redisUrl,
          REDIS_KEY_PREFIX: process.env.TEST_REDIS_PREFIX ?? '',
        },
        merchantDefaults: { name: 'Retrieval test', idPrefix: 'INTR' },
      });
    });

    afterAll(async () => {
      await distributed?.running.shutdown('tests done');
    });

    it('answers 200 with every transaction, the ledger\'s reply sent in parts', async () => {
      const merchant = await distributed.newMerchant();
      const m: Merchant = { context: merchant.context, authorization: merchant.authorization, base: merchant.base(), baseAt: (version) => merchant.base(version) };
      await expectWhole(m, await largeOrder(m, distributed.bus), distributed.running);
    });
  });
});
