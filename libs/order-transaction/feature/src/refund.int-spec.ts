import { randomBytes } from 'node:crypto';
import { Pan, parseCardExpiry, REFUND_WIRE, TestAcquirer } from '@gateway/acquirer';
import {
  AcquirerCallMessage,
  GatewayError,
  JsonObject,
  MerchantContext,
  MerchantPrivileges,
  OperationReply,
  OrderOperationMessage,
  ProviderRefundMessage,
  RecordOperationMessage,
  SUBJECTS,
} from '@gateway/contracts';
import { APP_LOGGER, AppLogger, NotDeliveredError, standaloneBus } from '@gateway/platform';
import { RecordOperation } from '@gateway/order-transaction/domain';
import { TEST_CARD, TEST_EXPIRY, testRequestHasher, waitFor } from '@gateway/testing';
import {
  dropFirstCompletionWrite,
  holdPoolAtRecord,
  LedgerTestApp,
  newOrderId,
  reserveTogether,
  startLedgerTestApp,
  statementsOf,
  testMerchant,
} from './testing/ledger-test-app';

/**
 * REFUND in order-transaction: the real handler on the in-process bus (payloads copied through
 * JSON as on the wire), the real ledger and Postgres, the built-in test acquirer. No HTTP edge
 * here, so no Redis lock: what holds is the database's own rules. Orders with captured funds are
 * seeded through the ledger's record subject, as card PAY (issue 9) and browser-payment record
 * them; no operation creates them over HTTP yet.
 */
let app: LedgerTestApp;

beforeAll(async () => {
  // Short, so a provider that never answers is a quick test.
  app = await startLedgerTestApp({ REFUND_CALL_TIMEOUT_MS: '300' });
});

afterAll(async () => {
  await app?.running.shutdown('tests done');
});

let fence = 1_000_000n;
/** Each operation gets a newer fencing token, as the edge's order lock hands them out. */
const nextFence = () => (fence += 1n).toString();

const privileged = (privileges: Partial<MerchantPrivileges>, extra: Partial<MerchantContext['settings']> = {}) =>
  testMerchant({ privileges: { excessiveRefund: false, unmask: false, refundRequiresApproval: false, ...privileges }, ...extra });

interface RefundOptions {
  fencingToken?: string;
  authMethod?: 'PASSWORD' | 'CERTIFICATE';
  /** The edge's deadline (OrderOperationMessage.deadline); none: a message of an older edge. */
  deadline?: number;
}

function refundMessage(
  merchant: MerchantContext,
  orderId: string,
  transactionId: string,
  body: JsonObject,
  options: RefundOptions = {},
): OrderOperationMessage {
  return {
    envelope: {
      merchant,
      apiVersion: 29,
      requestId: `req-${randomBytes(4).toString('hex')}`,
      authMethod: options.authMethod ?? 'PASSWORD',
      fencingToken: options.fencingToken ?? nextFence(),
    },
    apiOperation: 'REFUND',
    orderId,
    transactionId,
    body: { apiOperation: 'REFUND', ...body },
    ...(options.deadline !== undefined ? { deadline: options.deadline } : {}),
  };
}

async function refund(
  merchant: MerchantContext,
  orderId: string,
  transactionId: string,
  transaction: JsonObject,
  extra: JsonObject = {},
  options: RefundOptions = {},
): Promise<JsonObject> {
  const reply: OperationReply = await app.refund(refundMessage(merchant, orderId, transactionId, { transaction, ...extra }, options));
  return reply.body;
}

const usd = (amount: string, extra: JsonObject = {}): JsonObject => ({ amount, currency: 'USD', ...extra });

async function rejection(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    return err as GatewayError;
  }
  throw new Error('expected the refund to be refused');
}

type Seeded = RecordOperationMessage['transaction'];

/** A transaction another service recorded (card PAY/CAPTURE of issue 9, a browser payment...). */
async function seed(
  merchant: MerchantContext,
  orderId: string,
  transactionId: string,
  apiOperation: string,
  transaction: Partial<Seeded> & Pick<Seeded, 'type' | 'amount'>,
  response: JsonObject = {},
): Promise<void> {
  await app.record({
    envelope: { merchant, apiVersion: 100, requestId: `seed-${transactionId}`, authMethod: 'PASSWORD', fencingToken: nextFence() },
    orderId,
    transactionId,
    apiOperation,
    requestHash: testRequestHasher().hash({ apiOperation, transactionId }),
    mode: 'CREATE',
    order: { currency: transaction.currency ?? 'USD' },
    transaction: { currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED', ...transaction },
    response,
  });
}

/** A card payment as issue 9's PAY will record it: the acquirer's reference, the card (the ledger masks it), 3-D Secure. */
function seedCardPayment(merchant: MerchantContext, orderId: string, transactionId: string, amount: string, extra: Partial<Seeded> = {}) {
  return seed(
    merchant,
    orderId,
    transactionId,
    'PAY',
    { type: 'PAYMENT', amount, fundingType: 'CARD', ...extra },
    {
      '3DSecure': { acsEci: '02', authenticationStatus: 'AUTHENTICATION_SUCCESSFUL', enrollmentStatus: 'ENROLLED' },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT', expiry: { month: '1', year: '39' } } } },
      transaction: {
        acquirer: { id: 'TEST_ACQUIRER', merchantId: merchant.id, transactionId: `MCC${randomBytes(3).toString('hex')}0101`, date: '0101', time: '120000' },
        authorizationCode: '123456',
        receipt: '0001120000',
      },
    },
  );
}

/** Calls of `operation` the test acquirer answered in this process (gateway_acquirer_requests_total), of one outcome or all. */
async function acquirerCalls(operation: string, outcome?: string): Promise<number> {
  const metric = await app.metrics.registry.getSingleMetric('gateway_acquirer_requests_total')?.get();
  return (metric?.values ?? [])
    .filter((v) => v.labels.operation === operation && (outcome === undefined || v.labels.outcome === outcome))
    .reduce((sum, v) => sum + v.value, 0);
}

const acquirerRefunds = () => acquirerCalls('REFUND');

async function orderRow(merchant: MerchantContext, orderId: string) {
  const rows = await app.dataSource.query(
    `SELECT status, total_captured_amount::text AS captured, total_refunded_amount::text AS refunded,
            last_fencing_token::text AS "lastFencingToken", details
       FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2`,
    [merchant.id, orderId],
  );
  return rows[0];
}

async function transactionsOf(merchant: MerchantContext, orderId: string) {
  return app.dataSource.query(
    `SELECT transaction_id AS id, type, amount::text AS amount, result, gateway_code AS "gatewayCode",
            target_transaction_id AS target, funding_type AS "fundingType", tax_amount::text AS "taxAmount"
       FROM order_transaction.transactions WHERE merchant_id = $1 AND order_id = $2 ORDER BY sequence`,
    [merchant.id, orderId],
  ) as Promise<Record<string, string | null>[]>;
}

/**
 * Refund 'r-old' of 30.00 sent with `fencingToken`, handed back once its reservation is
 * recorded while its (slow) acquirer call is still out: `completion` is its answer.
 */
async function reservedRefund(merchant: MerchantContext, orderId: string, fencingToken: string): Promise<{ completion: Promise<JsonObject> }> {
  const completion = refund(merchant, orderId, 'r-old', usd('30.00'), {}, { fencingToken });
  await waitFor(async () => (await transactionsOf(merchant, orderId)).some((t) => t.id === 'r-old' && t.result === 'PENDING'), {
    timeoutMs: 10_000,
    what: 'refund r-old to be reserved',
  });
  return { completion };
}

const order = (body: JsonObject) => body.order as JsonObject;
const transaction = (body: JsonObject) => body.transaction as JsonObject;

describe('linked refunds of a card payment (seeded through the ledger: card PAY is issue 9)', () => {
  it('refunds in parts until REFUNDED, with the status and totals of each step, then refuses more', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '100.00');
    const calls = await acquirerRefunds();

    const steps = [];
    for (const [id, amount] of [['r1', '30.00'], ['r2', '50.00'], ['r3', '20.00']]) {
      const body = await refund(merchant, orderId, id, usd(amount));
      steps.push([order(body).status, order(body).totalRefundedAmount, order(body).totalCapturedAmount]);
      expect(body).toMatchObject({
        result: 'SUCCESS',
        response: { gatewayCode: 'APPROVED', acquirerCode: '00' },
        transaction: { id, type: 'REFUND', amount: Number(amount), currency: 'USD', targetTransactionId: 'pay-1', acquirer: { id: 'TEST_ACQUIRER' }, receipt: expect.stringMatching(/^[0-9]{12}$/) },
        authorizationResponse: { processingCode: '200000' },
        // Where the money goes back to: the payment's card, as its response showed it (masked).
        sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', brand: 'MASTERCARD' } } },
        '3DSecure': { authenticationStatus: 'AUTHENTICATION_SUCCESSFUL' },
      });
    }
    expect(steps).toEqual([
      ['PARTIALLY_REFUNDED', 30, 100],
      ['PARTIALLY_REFUNDED', 80, 100],
      ['REFUNDED', 100, 100],
    ]);

    for (const beyond of [usd('0.01', { targetTransactionId: 'pay-1' }), usd('0.01')]) {
      const over = await rejection(refund(merchant, orderId, 'r4', beyond));
      expect(over.toResponseBody().error).toEqual({
        cause: 'INVALID_REQUEST',
        explanation: "Value '0.01' is invalid. The amount available for refund on this order is 0.00 USD.",
        field: 'transaction.amount',
        validationType: 'INVALID',
      });
    }
    expect(await acquirerRefunds()).toBe(calls + 3);
    expect((await transactionsOf(merchant, orderId)).map((t) => [t.id, t.result, t.target, t.fundingType])).toEqual([
      ['pay-1', 'SUCCESS', null, 'CARD'],
      ['r1', 'SUCCESS', 'pay-1', 'CARD'],
      ['r2', 'SUCCESS', 'pay-1', 'CARD'],
      ['r3', 'SUCCESS', 'pay-1', 'CARD'],
    ]);
  });

  it('reserves on the order as begin read it and completes on the order as the reservation wrote it: three statements, no lock', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '100.00');
    const sent = await statementsOf(() => refund(merchant, orderId, 'r1', usd('30.00')));
    // begin's read, with the target's stored response; the reservation, written on begin's view if
    // the order is still that version; the completion, written on the reservation's if still that one.
    expect(sent.map((sql) => sql.split(' ')[0])).toEqual(['SELECT', 'WITH', 'WITH']);
    expect(sent.filter((sql) => /FOR UPDATE|START TRANSACTION/.test(sql))).toEqual([]);
  });

  it("sends a linked card refund to the acquirer by the payment's reference, without a card", async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '100.00');
    const [stored] = await app.dataSource.query(
      `SELECT body->'transaction'->'acquirer'->>'transactionId' AS reference FROM order_transaction.operation_responses
        WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = 'pay-1'`,
      [merchant.id, orderId],
    );
    const sent = jest.spyOn(TestAcquirer.prototype, 'refund');
    try {
      await refund(merchant, orderId, 'r1', usd('30.00'));
      expect(sent).toHaveBeenCalledTimes(1);
      const [request] = sent.mock.calls[0];
      expect(request.original).toEqual({ acquirerTransactionId: stored.reference, authorizationCode: '123456', receipt: '0001120000' });
      expect(request.card).toBeUndefined();
    } finally {
      sent.mockRestore();
    }
  });

  it('refuses a refund beyond the captured amount without the Excessive Refund privilege, and makes the order EXCESSIVELY_REFUNDED with it', async () => {
    const plain = testMerchant();
    const orderId = newOrderId();
    await seedCardPayment(plain, orderId, 'pay-1', '100.00');
    const calls = await acquirerRefunds();
    const err = await rejection(refund(plain, orderId, 'r1', usd('100.01')));
    expect(err).toMatchObject({ code: 'INVALID_FIELD', field: 'transaction.amount', httpStatus: 400 });
    expect(await acquirerRefunds()).toBe(calls);
    expect(await transactionsOf(plain, orderId)).toHaveLength(1);
    // The refused id created nothing: it may be used again.
    expect(order(await refund(plain, orderId, 'r1', usd('100.00'))).status).toBe('REFUNDED');

    const excessive = privileged({ excessiveRefund: true });
    const other = newOrderId();
    await seedCardPayment(excessive, other, 'pay-1', '100.00');
    const body = await refund(excessive, other, 'r1', usd('100.01'));
    expect(body).toMatchObject({ result: 'SUCCESS', order: { status: 'EXCESSIVELY_REFUNDED', totalCapturedAmount: 100, totalRefundedAmount: 100.01 } });
    // Nothing is left of the payment, yet it is still the refund's target under the privilege.
    const more = await refund(excessive, other, 'r2', usd('5.00'));
    expect(more).toMatchObject({ transaction: { targetTransactionId: 'pay-1' }, order: { status: 'EXCESSIVELY_REFUNDED', totalRefundedAmount: 105.01 } });
    expect(await orderRow(excessive, other)).toMatchObject({ status: 'EXCESSIVELY_REFUNDED', refunded: '105.0100' });
  });

  it('identifies the target: none is a 400, one is refunded, two are a 400 naming them', async () => {
    const merchant = testMerchant();
    const verified = newOrderId();
    await seed(merchant, verified, 'v1', 'VERIFY', { type: 'VERIFICATION', amount: '0' });
    const none = await rejection(refund(merchant, verified, 'r1', usd('1.00')));
    expect(none.toResponseBody()).toEqual({
      error: { cause: 'INVALID_REQUEST', explanation: `Order '${verified}' has no captured or paid transaction to refund.` },
      result: 'ERROR',
    });

    const captured = newOrderId();
    await seed(merchant, captured, 'a1', 'AUTHORIZE', { type: 'AUTHORIZATION', amount: '100.00', fundingType: 'CARD' });
    await seedCardPayment(merchant, captured, 'c1', '40.00', { type: 'CAPTURE' });
    await seedCardPayment(merchant, captured, 'c2', '60.00', { type: 'CAPTURE' });
    const two = await rejection(refund(merchant, captured, 'r1', usd('10.00')));
    expect(two).toMatchObject({ field: 'transaction.targetTransactionId', validationType: 'MISSING' });
    expect(two.explanation).toContain('has 2 transactions that can be refunded (c1, c2)');

    // c1 refunded in full: c2 is the one left, and is found without being named.
    await refund(merchant, captured, 'r1', usd('40.00', { targetTransactionId: 'c1' }));
    const one = await refund(merchant, captured, 'r2', usd('10.00'));
    expect(transaction(one).targetTransactionId).toBe('c2');
    expect(order(one)).toMatchObject({ status: 'PARTIALLY_REFUNDED', totalRefundedAmount: 50 });
  });

  it("refuses a currency other than the order's, and sourceOfFunds on a linked refund, writing nothing", async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '10.00');
    const currency = await rejection(refund(merchant, orderId, 'r1', { amount: '1.00', currency: 'EUR' }));
    expect(currency.toResponseBody().error).toEqual({
      cause: 'INVALID_REQUEST',
      explanation: "Value 'EUR' is invalid. The order's currency is USD.",
      field: 'transaction.currency',
      validationType: 'INVALID',
    });
    const withCard = await rejection(
      refund(merchant, orderId, 'r1', usd('1.00'), { sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } } }),
    );
    expect(withCard).toMatchObject({ field: 'sourceOfFunds', validationType: 'UNSUPPORTED' });
    expect(withCard.explanation).not.toContain(TEST_CARD);
    expect(await transactionsOf(merchant, orderId)).toHaveLength(1);
  });

  it('replays a resubmitted refund with the identical stored body and moves no money; another amount is a 400', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '100.00');
    const first = await refund(merchant, orderId, 'r1', usd('25.00'), { correlationId: 'first try' });
    const calls = await acquirerRefunds();
    const before = await orderRow(merchant, orderId);

    // Same ids and body (a retry may carry another correlationId: it is not part of the request).
    const again = await refund(merchant, orderId, 'r1', usd('25.00'), { correlationId: 'second try' });
    expect(again).toEqual(first);
    expect(await acquirerRefunds()).toBe(calls);
    expect(await orderRow(merchant, orderId)).toEqual(before);

    const changed = await rejection(refund(merchant, orderId, 'r1', usd('26.00')));
    expect(changed).toMatchObject({ code: 'INVALID_REQUEST', httpStatus: 400 });
    expect(changed.explanation).toMatch(/already processed with different values/);
    expect(await acquirerRefunds()).toBe(calls);
    expect(await transactionsOf(merchant, orderId)).toHaveLength(2);
  });

  it('sums refunds of 0.1 and 0.2 to exactly 0.3, in the totals and the responses', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '0.30');
    await refund(merchant, orderId, 'r1', usd('0.1'));
    const body = await refund(merchant, orderId, 'r2', usd('0.2'));
    expect(JSON.stringify(body.order)).toMatch(/"totalRefundedAmount":0\.3[,}]/);
    expect(transaction(body).amount).toBe(0.2);
    expect(order(body).status).toBe('REFUNDED');
    expect((await orderRow(merchant, orderId)).refunded).toBe('0.3000');
  });

  it('defaults the taxAmount of a full refund to the tax captured on the order, and records it', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '100.00', { taxAmount: '8.25' });
    const partialOrder = newOrderId();
    await seedCardPayment(merchant, partialOrder, 'pay-1', '100.00', { taxAmount: '8.25' });

    expect(transaction(await refund(merchant, orderId, 'r1', usd('100.00'))).taxAmount).toBe(8.25);
    expect(transaction(await refund(merchant, partialOrder, 'r1', usd('50.00'))).taxAmount).toBeUndefined();
    expect(transaction(await refund(merchant, partialOrder, 'r2', usd('10.00', { taxAmount: '0.80' }))).taxAmount).toBe(0.8);
    expect((await transactionsOf(merchant, orderId))[1].taxAmount).toBe('8.2500');
    expect((await transactionsOf(merchant, partialOrder)).map((t) => t.taxAmount)).toEqual(['8.2500', null, '0.8000']);
  });

  it('records a REFUND_REQUEST for a merchant whose refunds need approval: no money moves, and it holds its amount', async () => {
    const merchant = privileged({ refundRequiresApproval: true });
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '100.00');
    const calls = await acquirerRefunds();
    const body = await refund(merchant, orderId, 'r1', usd('60.00'));
    expect(body).toMatchObject({
      result: 'PENDING',
      response: { gatewayCode: 'PENDING' },
      // Nothing was sent yet: transaction.acquirer (always provided) names the payment's acquirer.
      transaction: { type: 'REFUND_REQUEST', amount: 60, targetTransactionId: 'pay-1', acquirer: { id: 'TEST_ACQUIRER' } },
      order: { status: 'REFUND_REQUESTED', totalRefundedAmount: 0 },
    });
    expect(await acquirerRefunds()).toBe(calls);
    const beyond = await rejection(refund(merchant, orderId, 'r2', usd('40.01')));
    expect(beyond.explanation).toContain('The amount available for refund on this order is 40.00 USD');
  });

  it('keeps the request fields on the order and the transaction, and retrieval returns them, card masked', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '40.00');
    const body = await refund(merchant, orderId, 'r1', usd('15.00', { reference: 'rf-1', merchantNote: 'goodwill', item: [{ name: 'Mug', quantity: '3', unitPrice: '5.00' }] }), {
      order: { reference: 'ORD-7', custom: { colour: 'red' }, customerNote: 'cracked' },
      shipping: { address: { street: 'Dock Road', street2: 'Unit 9', country: 'IRL' }, method: 'GROUND' },
      currencyConversion: { requestId: 'quote-1', uptake: 'ACCEPTED' },
      posTerminal: { name: 'T1', location: 'ON_CARD_ACCEPTOR_PREMISES' },
      userId: 'clerk-7',
    });
    expect(body).toMatchObject({
      order: { reference: 'ORD-7', custom: { colour: 'red' }, customerNote: 'cracked' },
      shipping: { address: { street: 'Dock Road Unit 9', country: 'IRL' }, method: 'GROUND' },
      posTerminal: { name: 'T1', location: 'ON_CARD_ACCEPTOR_PREMISES' },
      transaction: { reference: 'rf-1', merchantNote: 'goodwill', item: [{ name: 'Mug', quantity: 3, unitPrice: 5 }] },
      userId: 'clerk-7',
    });
    // DCC is honoured only on an order's first transaction.
    expect(body.currencyConversion).toBeUndefined();

    const envelope = { merchant, apiVersion: 100, requestId: 'retrieve-1', authMethod: 'PASSWORD' as const };
    const retrieved: OperationReply = await app.bus.request(SUBJECTS.orderTransaction.retrieveOrder, { envelope, orderId });
    expect(retrieved.body).toMatchObject({
      reference: 'ORD-7',
      custom: { colour: 'red' },
      shipping: { method: 'GROUND' },
      status: 'PARTIALLY_REFUNDED',
      totalRefundedAmount: 15,
      transaction: [
        { transaction: { id: 'pay-1' }, sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } } },
        { transaction: { id: 'r1', type: 'REFUND', reference: 'rf-1' }, sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } } },
      ],
    });
    expect(retrieved.body.currencyConversion).toBeUndefined();
    expect(JSON.stringify(retrieved.body)).not.toContain(TEST_CARD);
  });

  it('refunds a payment the test acquirer processed at the test acquirer, though the merchant is LIVE now (a test-era order)', async () => {
    const live: MerchantContext = { ...testMerchant(), mode: 'LIVE' };
    const orderId = newOrderId();
    await seedCardPayment(live, orderId, 'pay-1', '10.00');
    const calls = await acquirerRefunds();
    const body = await refund(live, orderId, 'r1', usd('1.00'));
    expect(body).toMatchObject({ result: 'SUCCESS', transaction: { type: 'REFUND', acquirer: { id: 'TEST_ACQUIRER' } } });
    expect(await acquirerRefunds()).toBe(calls + 1);
  });

  it('refuses a refund of a payment recorded at an acquirer the gateway has no connector for (ACQUIRER_NOT_CONFIGURED), recording nothing', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await seed(merchant, orderId, 'pay-1', 'PAY', { type: 'PAYMENT', amount: '10.00', fundingType: 'CARD' }, {
      transaction: { acquirer: { id: 'ANOTHER_ACQUIRER', merchantId: merchant.id, transactionId: 'REF0101', date: '0101', time: '120000' } },
    });
    const calls = await acquirerRefunds();
    const err = await rejection(refund(merchant, orderId, 'r1', usd('1.00')));
    expect(err).toMatchObject({ code: 'ACQUIRER_NOT_CONFIGURED', httpStatus: 400 });
    expect(await transactionsOf(merchant, orderId)).toHaveLength(1);
    expect(await acquirerRefunds()).toBe(calls);
  });
});

describe('standalone refunds (a new order, sourceOfFunds required)', () => {
  const card = (expiry: { month: string; year: string } = TEST_EXPIRY.APPROVED) => ({
    sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry, securityCode: '100' } } },
  });

  it('refunds to the card the request gives: a REFUNDED order of its own, the card masked everywhere', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const calls = await acquirerRefunds();
    const body = await refund(merchant, orderId, 'r1', usd('12.50'), { ...card(), currencyConversion: { requestId: 'quote-1' } });
    expect(body).toMatchObject({
      result: 'SUCCESS',
      response: { gatewayCode: 'APPROVED' },
      order: { id: orderId, status: 'REFUNDED', amount: 12.5, totalRefundedAmount: 12.5, totalCapturedAmount: 0 },
      transaction: { id: 'r1', type: 'REFUND', amount: 12.5, acquirer: { id: 'TEST_ACQUIRER' } },
      sourceOfFunds: {
        type: 'CARD',
        provided: { card: { number: '512345xxxxxx0008', brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT', expiry: { month: '1', year: '39' } } },
      },
      // The order's first transaction: its DCC request is honoured.
      currencyConversion: { uptake: 'NOT_REQUIRED' },
    });
    expect(transaction(body).targetTransactionId).toBeUndefined();
    expect(await acquirerRefunds()).toBe(calls + 1);
    expect(await transactionsOf(merchant, orderId)).toEqual([
      { id: 'r1', type: 'REFUND', amount: '12.5000', result: 'SUCCESS', gatewayCode: 'APPROVED', target: null, fundingType: 'CARD', taxAmount: null },
    ]);
    const stored = await app.dataSource.query(
      `SELECT (SELECT count(*)::int FROM order_transaction.operation_responses WHERE merchant_id = $1 AND (body::text LIKE $2 OR body::text LIKE '%securityCode%'))
            + (SELECT count(*)::int FROM order_transaction.orders WHERE merchant_id = $1 AND details::text LIKE $2) AS leaks`,
      [merchant.id, `%${TEST_CARD}%`],
    );
    expect(stored[0].leaks).toBe(0);
    expect((await orderRow(merchant, orderId)).details).toMatchObject({ currencyConversion: { requestId: 'quote-1' } });
  });

  it('reserves its new order in one statement (the ledger\'s newOrder hint)', async () => {
    const sent = await statementsOf(() => refund(testMerchant(), newOrderId(), 'r1', usd('3.00'), card()));
    expect(sent[1]).toMatch(/^WITH new_order AS/);
    // begin's read, the reservation alone, the completion written on the order as the reservation wrote it.
    expect(sent.map((sql) => sql.split(' ')[0])).toEqual(['SELECT', 'WITH', 'WITH']);
  });

  it('records a declined card refund as FAILURE: the order FAILED, nothing refunded', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const body = await refund(merchant, orderId, 'r1', usd('5.00'), card(TEST_EXPIRY.DECLINED));
    expect(body).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'DECLINED', acquirerCode: '05' }, order: { status: 'FAILED', totalRefundedAmount: 0 } });
  });

  it('reverses a card refund the acquirer answered TIMED_OUT before recording the decline (spec: "the gateway tries to reverse")', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    const [refunds, voids] = [await acquirerRefunds(), await acquirerCalls('VOID')];
    const body = await refund(merchant, orderId, 'r1', usd('5.00'), card(TEST_EXPIRY.TIMED_OUT));
    expect(body).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'TIMED_OUT' }, order: { status: 'FAILED', totalRefundedAmount: 0 } });
    // The void names the refund as the acquirer answered it, and the acquirer took it back.
    expect([await acquirerRefunds(), await acquirerCalls('VOID', 'APPROVED')]).toEqual([refunds + 1, voids + 1]);
    await refund(merchant, newOrderId(), 'r1', usd('5.00'), card(TEST_EXPIRY.DECLINED));
    expect(await acquirerCalls('VOID')).toBe(voids + 1);
  });

  it('keeps its order to itself: a payment on it is refused, so no linked refund can escape the refund limit', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await refund(merchant, orderId, 'r0', usd('10.00'), card());
    const pay = {
      envelope: { merchant, apiVersion: 100, requestId: 'req-pay', authMethod: 'PASSWORD' as const, fencingToken: nextFence() },
      apiOperation: 'PAY' as const,
      orderId,
      transactionId: 'p1',
      body: { apiOperation: 'PAY', order: { amount: '100.00', currency: 'USD' }, ...card() },
    };
    const refused = await rejection(app.operate(pay));
    expect(refused.toResponseBody()).toMatchObject({
      error: { cause: 'INVALID_REQUEST', explanation: expect.stringContaining('opened by a standalone refund') },
    });
    // Recorded by another service (a browser payment), the ledger refuses it itself.
    const recorded = await rejection(seed(merchant, orderId, 'p2', 'PAY', { type: 'PAYMENT', amount: '100.00' }));
    expect(recorded.explanation).toMatch(/opened by a standalone refund and takes no PAYMENT/);
    // So there is nothing a linked refund could take money back from.
    const linked = await rejection(refund(merchant, orderId, 'r1', usd('5000.00')));
    expect(linked.explanation).toBe(`Order '${orderId}' has no captured or paid transaction to refund.`);
    expect((await transactionsOf(merchant, orderId)).map((t) => [t.id, t.result])).toEqual([['r0', 'SUCCESS']]);
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'REFUNDED' });
  });

  it('keeps the notification URL the request gives on the order it opens', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await refund(merchant, orderId, 'r1', usd('2.00'), { ...card(), order: { notificationUrl: 'https://merchant.example/refunds' } });
    const [stored] = await app.dataSource.query(
      'SELECT notification_url AS "notificationUrl" FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2',
      [merchant.id, orderId],
    );
    expect(stored.notificationUrl).toBe('https://merchant.example/refunds');
  });

  it('needs sourceOfFunds on a new order', async () => {
    const err = await rejection(refund(testMerchant(), newOrderId(), 'r1', usd('5.00')));
    expect(err).toMatchObject({ field: 'sourceOfFunds', validationType: 'MISSING' });
  });

  it('returns the full number only with UNMASK, the permission and certificate authentication, and stores it masked', async () => {
    const merchant = privileged({ unmask: true });
    const orderId = newOrderId();
    const extra = { ...card(), responseControls: { sensitiveData: 'UNMASK' } };
    const body = await refund(merchant, orderId, 'r1', usd('1.00'), extra, { authMethod: 'CERTIFICATE' });
    expect(body).toMatchObject({ sourceOfFunds: { provided: { card: { number: TEST_CARD } } } });
    const replay = await refund(merchant, orderId, 'r1', usd('1.00'), extra, { authMethod: 'CERTIFICATE' });
    expect(replay).toMatchObject({ sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } } });

    const refused = await rejection(refund(merchant, newOrderId(), 'r1', usd('1.00'), extra, { authMethod: 'PASSWORD' }));
    expect(refused).toMatchObject({ field: 'responseControls.sensitiveData', validationType: 'INVALID' });
  });

  it('shows the full number to the one request that refunded: copies of it racing past begin are answered the stored body, masked', async () => {
    const merchant = privileged({ unmask: true });
    const orderId = newOrderId();
    const extra = { ...card(), responseControls: { sensitiveData: 'UNMASK' } };
    const calls = await acquirerRefunds();
    const token = nextFence();
    const together = reserveTogether(app, 6);
    const bodies = await Promise.all(
      Array.from({ length: 6 }, () => refund(merchant, orderId, 'r1', usd('1.00'), extra, { authMethod: 'CERTIFICATE', fencingToken: token })),
    ).finally(() => together.restore());
    const numbers = bodies.map((body) => ((body.sourceOfFunds as JsonObject).provided as { card: { number: string } }).card.number);
    expect(numbers.filter((number) => number === TEST_CARD)).toHaveLength(1);
    expect(numbers.filter((number) => number === '512345xxxxxx0008')).toHaveLength(5);
    expect(await acquirerRefunds()).toBe(calls + 1);
  });
});

describe('reserve, call, complete (docs/decisions/refund-reservation.md)', () => {
  it('holds the refund limit in the database alone: 20 concurrent refunds of 10.00 on 100.00 captured, exactly 10 refunded, 10 acquirer calls', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '100.00');
    const calls = await acquirerRefunds();
    // One fencing token for all: no lock serialises them, only the order row does.
    const token = nextFence();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        refund(merchant, orderId, `r${i}`, usd('10.00'), {}, { fencingToken: token }).then(
          (body) => body.result as string,
          (err: GatewayError) => `${err.code}:${err.field}`,
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'SUCCESS')).toHaveLength(10);
    expect(outcomes.filter((o) => o === 'INVALID_FIELD:transaction.amount')).toHaveLength(10);
    expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'REFUNDED', refunded: '100.0000' });
    expect(await acquirerRefunds()).toBe(calls + 10);
    expect(await transactionsOf(merchant, orderId)).toHaveLength(11);
  });

  it('records a refund whose money moved even when a newer fencing token reached the order meanwhile', async () => {
    const merchant = testMerchant({ testAcquirer: { latencyMs: 1_500 } });
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '100.00');
    const older = nextFence();
    const { completion: slow } = await reservedRefund(merchant, orderId, older);
    // Another operation (its lease newer, the first one's lapsed) takes the order meanwhile.
    const newer = nextFence();
    const fast = await refund(merchant, orderId, 'r-new', usd('20.00'), {}, { fencingToken: newer });
    expect(fast.result).toBe('SUCCESS');
    const completed = await slow;
    expect(completed).toMatchObject({ result: 'SUCCESS', transaction: { id: 'r-old' } });
    expect(await orderRow(merchant, orderId)).toMatchObject({ refunded: '50.0000', lastFencingToken: newer });
    // A new operation with the lapsed token is still refused before it reserves anything.
    const stale = await rejection(refund(merchant, orderId, 'r-stale', usd('1.00'), {}, { fencingToken: older }));
    expect(stale.code).toBe('ORDER_LOCK_LOST');
    expect(await transactionsOf(merchant, orderId)).toHaveLength(3);
  });

  it('keeps the newest fencing token on the order when a completion carrying an older one lands after it', async () => {
    const merchant = testMerchant({ testAcquirer: { latencyMs: 1_000 } });
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '100.00');
    const older = nextFence();
    const { completion: slow } = await reservedRefund(merchant, orderId, older);
    // A writer with a newer lease records on the order, and is done, while the refund's call is out.
    await seedCardPayment(merchant, orderId, 'pay-2', '10.00');
    const newer = (await orderRow(merchant, orderId)).lastFencingToken;
    expect(BigInt(newer)).toBeGreaterThan(BigInt(older));
    expect(await slow).toMatchObject({ result: 'SUCCESS', transaction: { id: 'r-old' } });
    expect(await orderRow(merchant, orderId)).toMatchObject({ refunded: '30.0000', lastFencingToken: newer });
    const stale = await rejection(refund(merchant, orderId, 'r-stale', usd('1.00'), {}, { fencingToken: older }));
    expect(stale.code).toBe('ORDER_LOCK_LOST');
  });

  it('calls the acquirer once for the same refund sent several times at once without the lock', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '100.00');
    const calls = await acquirerRefunds();
    const token = nextFence();
    const bodies = await Promise.all(Array.from({ length: 5 }, () => refund(merchant, orderId, 'r1', usd('10.00'), {}, { fencingToken: token })));
    // Those that raced past begin get the reservation's stored body: only one reaches the acquirer.
    expect(bodies.map((body) => transaction(body).id)).toEqual(['r1', 'r1', 'r1', 'r1', 'r1']);
    expect(await acquirerRefunds()).toBe(calls + 1);
    expect(await orderRow(merchant, orderId)).toMatchObject({ refunded: '10.0000' });
    expect(await transactionsOf(merchant, orderId)).toHaveLength(2);
  });

  it('retries a completion whose first write fails (a dropped connection): the refund recorded once, one acquirer call', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '100.00');
    const drop = dropFirstCompletionWrite(app);
    try {
      const calls = await acquirerRefunds();
      expect(await refund(merchant, orderId, 'r1', usd('30.00'))).toMatchObject({ result: 'SUCCESS', order: { totalRefundedAmount: 30 } });
      expect(drop.dropped()).toBe(1);
      expect(await acquirerRefunds()).toBe(calls + 1);
      expect((await transactionsOf(merchant, orderId)).map((t) => [t.id, t.result])).toEqual([['pay-1', 'SUCCESS'], ['r1', 'SUCCESS']]);
    } finally {
      drop.restore();
    }
  });

  describe('provider-funded orders (browser-payment.refund.v1)', () => {
    afterEach(() => standaloneBus.unregister(SUBJECTS.browserPayment.refund));

    async function providerOrder(merchant: MerchantContext): Promise<string> {
      const orderId = newOrderId();
      await seed(merchant, orderId, 'bp-1', 'INITIATE_BROWSER_PAYMENT', { type: 'PAYMENT', amount: '50.00', fundingType: 'PROVIDER_A' }, {
        sourceOfFunds: { type: 'PROVIDER_A', provided: { provider_a: { accountEmail: 'payer@example.com' } } },
      });
      return orderId;
    }

    it('answers a clear 503 while browser-payment does not answer, recording nothing, and the same id works once it does', async () => {
      const merchant = testMerchant();
      const orderId = await providerOrder(merchant);
      const unavailable = await rejection(refund(merchant, orderId, 'r1', usd('20.00')));
      expect(unavailable.toResponseBody()).toEqual({
        error: {
          cause: 'SERVER_BUSY',
          explanation:
            'Refunds of orders paid through a browser payment provider are not available at the moment (browser-payment did not answer). Nothing was refunded; the request may be retried with the same transaction id.',
        },
        result: 'ERROR',
      });
      expect(await transactionsOf(merchant, orderId)).toHaveLength(1);
      expect(await orderRow(merchant, orderId)).toMatchObject({ status: 'CAPTURED', refunded: '0.0000' });

      // A stand-in answering the contract as browser-payment will (wip/browser builds the real one).
      const asked: ProviderRefundMessage[] = [];
      standaloneBus.register(SUBJECTS.browserPayment.refund, async (data) => {
        asked.push(data as ProviderRefundMessage);
        return { result: 'SUCCESS', gatewayCode: 'APPROVED', providerReference: 'PR-77', sourceOfFunds: { type: 'PROVIDER_A', provided: { provider_a: { accountEmail: 'payer@example.com' } } } };
      });
      const body = await refund(merchant, orderId, 'r1', usd('20.00'));
      expect(asked).toEqual([expect.objectContaining({ orderId, transactionId: 'r1', targetTransactionId: 'bp-1', amount: '20.00', currency: 'USD' })]);
      expect(body).toMatchObject({
        result: 'SUCCESS',
        response: { gatewayCode: 'APPROVED' },
        transaction: { id: 'r1', receipt: 'PR-77', targetTransactionId: 'bp-1' },
        sourceOfFunds: { type: 'PROVIDER_A' },
        order: { status: 'PARTIALLY_REFUNDED', totalRefundedAmount: 20 },
      });
      expect((await transactionsOf(merchant, orderId))[1]).toMatchObject({ id: 'r1', result: 'SUCCESS', fundingType: 'PROVIDER_A' });
    });

    it('records UNKNOWN when the provider does not answer in time, and keeps the amount reserved', async () => {
      const merchant = testMerchant();
      const orderId = await providerOrder(merchant);
      let answer: (value: unknown) => void = () => undefined;
      standaloneBus.register(SUBJECTS.browserPayment.refund, () => new Promise((resolve) => (answer = resolve)));
      const warn = jest.spyOn(app.running.app.get<AppLogger>(APP_LOGGER), 'warn');
      try {
        const body = await refund(merchant, orderId, 'r1', usd('20.00'));
        answer({ result: 'SUCCESS', gatewayCode: 'APPROVED' });
        expect(body).toMatchObject({ result: 'UNKNOWN', response: { gatewayCode: 'UNKNOWN' }, order: { status: 'CAPTURED', totalRefundedAmount: 0 } });
        // The line an operator reconciles it from names it a refund, and the route it took.
        expect(warn).toHaveBeenCalledWith(
          expect.objectContaining({ orderId, transactionId: 'r1', apiOperation: 'REFUND', route: 'PROVIDER' }),
          'refund outcome unknown: recorded as UNKNOWN, amount kept reserved',
        );
      } finally {
        warn.mockRestore();
      }
      const beyond = await rejection(refund(merchant, orderId, 'r2', usd('30.01')));
      expect(beyond.explanation).toContain('The amount available for refund on this order is 30.00 USD');
    });

    it('records UNKNOWN when the answer does not say what happened', async () => {
      const merchant = testMerchant();
      const orderId = await providerOrder(merchant);
      standaloneBus.register(SUBJECTS.browserPayment.refund, async () => ({ result: 'MAYBE' }));
      expect(await refund(merchant, orderId, 'r1', usd('5.00'))).toMatchObject({ result: 'UNKNOWN', response: { gatewayCode: 'UNKNOWN' } });
    });

    it("shows the provider's own sourceOfFunds group for the refund, over the payment's", async () => {
      const merchant = testMerchant();
      const orderId = await providerOrder(merchant);
      const refundedTo = { type: 'PROVIDER_A', provided: { provider_a: { accountEmail: 'payer@example.com', refundedTo: 'WALLET_BALANCE' } } };
      standaloneBus.register(SUBJECTS.browserPayment.refund, async () => ({ result: 'SUCCESS', gatewayCode: 'APPROVED', sourceOfFunds: refundedTo }));
      expect(await refund(merchant, orderId, 'r1', usd('5.00'))).toMatchObject({ result: 'SUCCESS', sourceOfFunds: refundedTo });
    });
  });

  describe('a token refused by the vault (token-vault.acquirer.call.v1)', () => {
    afterEach(() => standaloneBus.unregister(SUBJECTS.tokenVault.acquirerCall));

    it('is released: the 400 is answered and the standalone order it opened does not exist', async () => {
      const merchant = testMerchant();
      const orderId = newOrderId();
      // A stand-in refusing as the vault refuses a token it does not hold (card-custody.messages.ts).
      standaloneBus.register(SUBJECTS.tokenVault.acquirerCall, async () => {
        throw GatewayError.invalidField('sourceOfFunds.token', 'INVALID', "Value '9999999999999999' is invalid. No such token.").toWire();
      });
      const err = await rejection(refund(merchant, orderId, 'r1', usd('5.00'), { sourceOfFunds: { token: '9999999999999999' } }));
      expect(err).toMatchObject({ field: 'sourceOfFunds.token', httpStatus: 400 });
      expect(await orderRow(merchant, orderId)).toBeUndefined();
      expect(await transactionsOf(merchant, orderId)).toHaveLength(0);
    });
  });

  describe('a refund to a token the vault holds (token-vault.acquirer.call.v1)', () => {
    afterEach(() => standaloneBus.unregister(SUBJECTS.tokenVault.acquirerCall));

    it("sends the request's own card fields with the token, and answers with the card the vault completed", async () => {
      const merchant = testMerchant();
      const orderId = newOrderId();
      const asked: AcquirerCallMessage[] = [];
      // A stand-in answering as the vault does: the test acquirer's result in wire form, and the card it completed, masked.
      standaloneBus.register(SUBJECTS.tokenVault.acquirerCall, async (data) => {
        const message = data as AcquirerCallMessage;
        asked.push(message);
        const card = { number: Pan.of(TEST_CARD), expiry: parseCardExpiry(TEST_EXPIRY.APPROVED.month, TEST_EXPIRY.APPROVED.year) };
        const result = await new TestAcquirer().refund({ ...REFUND_WIRE.decodeRequest(message.request), card });
        return { result: REFUND_WIRE.encodeResult(result), card: { number: '512345xxxxxx0008', expiry: TEST_EXPIRY.APPROVED, nameOnCard: 'A STORED HOLDER' } };
      });
      const body = await refund(merchant, orderId, 'r1', usd('5.00'), { sourceOfFunds: { token: '9999999999999999', provided: { card: { securityCode: '100' } } } });
      expect(asked).toEqual([expect.objectContaining({ operation: 'REFUND', source: { token: '9999999999999999' }, explicit: { securityCode: '100' } })]);
      expect(body).toMatchObject({
        result: 'SUCCESS',
        sourceOfFunds: { type: 'CARD', token: '9999999999999999', provided: { card: { number: '512345xxxxxx0008', nameOnCard: 'A STORED HOLDER' } } },
      });
    });
  });
});

describe("a refund's deadline (docs/decisions/operation-deadline.md)", () => {
  async function refusedPastDeadline(): Promise<number> {
    const metric = await app.metrics.messagesPastDeadline.get();
    return metric.values.filter((v) => v.labels.subject === SUBJECTS.orderTransaction.refund).reduce((sum, v) => sum + v.value, 0);
  }

  it('refuses, unprocessed, a refund that could begin only after the edge stopped waiting: nothing reserved, no acquirer call; the retry is processed as new', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '100.00');
    const calls = await acquirerRefunds();
    const refused = await refusedPastDeadline();

    const late = await rejection(refund(merchant, orderId, 'r1', usd('10.00'), {}, { deadline: Date.now() - 1 }));
    // Answered as the in-flight cap's refusal: never delivered, so a caller may release what it holds.
    expect(late).toBeInstanceOf(NotDeliveredError);
    expect(late).toMatchObject({ code: 'SERVER_BUSY', retryAfterSeconds: 1 });
    expect((await transactionsOf(merchant, orderId)).map((t) => t.id)).toEqual(['pay-1']);
    expect(await orderRow(merchant, orderId)).toMatchObject({ refunded: '0.0000' });
    expect(await acquirerRefunds()).toBe(calls);
    expect(await refusedPastDeadline()).toBe(refused + 1);

    // The merchant's retry (same transaction id), in time, is processed once.
    const retried = await refund(merchant, orderId, 'r1', usd('10.00'), {}, { deadline: Date.now() + 60_000 });
    expect(retried).toMatchObject({ result: 'SUCCESS', transaction: { id: 'r1', amount: 10 }, order: { totalRefundedAmount: 10 } });
    expect(await acquirerRefunds()).toBe(calls + 1);
  });

  it('refuses, unprocessed, a refund awaiting approval past its deadline: no REFUND_REQUEST recorded', async () => {
    const merchant = privileged({ refundRequiresApproval: true });
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '100.00');
    const late = await rejection(refund(merchant, orderId, 'r1', usd('60.00'), {}, { deadline: Date.now() - 1 }));
    expect(late).toBeInstanceOf(NotDeliveredError);
    expect((await transactionsOf(merchant, orderId)).map((t) => t.id)).toEqual(['pay-1']);
    expect(await refund(merchant, orderId, 'r1', usd('60.00'), {}, { deadline: Date.now() + 60_000 })).toMatchObject({ result: 'PENDING' });
  });

  it("refuses, unprocessed, a refund whose reservation gets its database connection only after the deadline: nothing written, no acquirer call", async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '100.00');
    const calls = await acquirerRefunds();
    // In time at begin and at the reservation's start; the pool is then busy until past the deadline.
    const deadline = Date.now() + 3_000;
    const pool = holdPoolAtRecord(app, 'RESERVE', ({ waiting }) => waiting > 0 && Date.now() > deadline);
    let late: GatewayError;
    try {
      late = await rejection(refund(merchant, orderId, 'r1', usd('10.00'), {}, { deadline }));
    } finally {
      pool.restore();
    }
    expect(pool.heldAt()).toBeLessThan(deadline);
    expect(late).toBeInstanceOf(NotDeliveredError);
    expect((await transactionsOf(merchant, orderId)).map((t) => t.id)).toEqual(['pay-1']);
    expect(await orderRow(merchant, orderId)).toMatchObject({ refunded: '0.0000' });
    expect(await acquirerRefunds()).toBe(calls);
  });

  it('reserves and refunds when the reservation gets its connection after a wait, still in time', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '100.00');
    const pool = holdPoolAtRecord(app, 'RESERVE', ({ waiting }) => waiting > 0);
    try {
      const body = await refund(merchant, orderId, 'r1', usd('10.00'), {}, { deadline: Date.now() + 60_000 });
      expect(body).toMatchObject({ result: 'SUCCESS', order: { totalRefundedAmount: 10 } });
    } finally {
      pool.restore();
    }
    expect(pool.heldAt()).toBeDefined();
  });

  it('refuses, unprocessed, a standalone refund to a token awaiting approval past its deadline before it asks the vault about the token', async () => {
    const merchant = privileged({ refundRequiresApproval: true });
    const orderId = newOrderId();
    let asked = 0;
    // A stand-in for the vault's token read: the approval route's only call before its record.
    standaloneBus.register(SUBJECTS.tokenVault.retrieveToken, async () => {
      asked += 1;
      throw GatewayError.serverBusy().toWire();
    });
    let late: GatewayError;
    try {
      late = await rejection(refund(merchant, orderId, 'r1', usd('60.00'), { sourceOfFunds: { token: '9999999999999999' } }, { deadline: Date.now() - 1 }));
    } finally {
      standaloneBus.unregister(SUBJECTS.tokenVault.retrieveToken);
    }
    expect(late).toBeInstanceOf(NotDeliveredError);
    expect(asked).toBe(0);
    expect(await orderRow(merchant, orderId)).toBeUndefined();
  });

  it('refuses, unprocessed, a refund awaiting approval whose record gets its connection only after the deadline', async () => {
    const merchant = privileged({ refundRequiresApproval: true });
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '100.00');
    const deadline = Date.now() + 3_000;
    const pool = holdPoolAtRecord(app, 'RECORD', ({ waiting }) => waiting > 0 && Date.now() > deadline);
    let late: GatewayError;
    try {
      late = await rejection(refund(merchant, orderId, 'r1', usd('60.00'), {}, { deadline }));
    } finally {
      pool.restore();
    }
    expect(pool.heldAt()).toBeLessThan(deadline);
    expect(late).toBeInstanceOf(NotDeliveredError);
    expect((await transactionsOf(merchant, orderId)).map((t) => t.id)).toEqual(['pay-1']);
  });

  it('never gives a completion a deadline: what was begun is recorded whatever the time', async () => {
    const records = app.running.app.get(RecordOperation);
    await expect(records.execute({} as RecordOperationMessage, 'COMPLETE', undefined, Date.now() + 60_000)).rejects.toThrow(
      'a completion is never refused for time',
    );
  });

  it('processes a message without a deadline (an edge of the release before) whenever it comes', async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '100.00');
    expect(await refund(merchant, orderId, 'r1', usd('10.00'))).toMatchObject({ result: 'SUCCESS' });
  });

  it("records the acquirer's approval of a refund that began in time though the deadline passed during the call", async () => {
    const merchant = testMerchant();
    const orderId = newOrderId();
    await seedCardPayment(merchant, orderId, 'pay-1', '100.00');
    // Time enough for begin and the reservation; the acquirer answers only once it has passed.
    const deadline = Date.now() + 3_000;
    const answer = TestAcquirer.prototype.refund;
    const sent = jest.spyOn(TestAcquirer.prototype, 'refund').mockImplementation(async function (this: TestAcquirer, ...args) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now()) + 10));
      return answer.apply(this, args);
    });
    let body: JsonObject;
    let acquirerCalled: number;
    try {
      body = await refund(merchant, orderId, 'r1', usd('10.00'), {}, { deadline });
      acquirerCalled = sent.mock.calls.length;
    } finally {
      sent.mockRestore();
    }
    expect(Date.now()).toBeGreaterThan(deadline);
    expect(acquirerCalled).toBe(1);
    expect(body).toMatchObject({ result: 'SUCCESS', response: { gatewayCode: 'APPROVED' }, order: { totalRefundedAmount: 10 } });
    expect((await transactionsOf(merchant, orderId)).map((t) => [t.id, t.result])).toEqual([
      ['pay-1', 'SUCCESS'],
      ['r1', 'SUCCESS'],
    ]);
  });
});
