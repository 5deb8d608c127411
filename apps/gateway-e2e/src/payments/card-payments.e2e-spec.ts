import { JsonObject } from '@gateway/contracts';
import { maskCardNumbers } from '@gateway/crypto';
import { TEST_CARD, TEST_CARD_LUHN_FAILURE, TEST_EXPIRY } from '@gateway/testing';
import { ApiResponse, call, createMerchant, TestMerchant } from '../support/gateway-client';
import { acquirerCalls, counterTotal, scrapeMetrics } from '../support/metrics';

type Json = JsonObject & Record<string, any>;
type Expiry = { month: string; year: string };

/**
 * AUTHORIZE, CAPTURE, PAY, VOID (issue 9) over HTTP in both profiles, on the ledger refunds
 * use: every step's status and totals (ARCHITECTURE 4.10), declines per the test acquirer's
 * expiry matrix, partial approvals, token and session cards, and the 400s of the ledger rules.
 */
describe('card payments over HTTP', () => {
  let merchant: TestMerchant;
  let sequence = 0;
  const newOrderId = () => `cp-${Date.now()}-${(sequence += 1)}`;

  beforeAll(async () => {
    merchant = await createMerchant();
  });

  const card = (expiry: Expiry = TEST_EXPIRY.APPROVED) => ({
    type: 'CARD',
    provided: { card: { number: TEST_CARD, expiry, securityCode: '100' } },
  });
  const put = (orderId: string, transactionId: string, body: object): Promise<ApiResponse<Json>> =>
    call<Json>('PUT', `${merchant.base()}/order/${orderId}/transaction/${transactionId}`, { authorization: merchant.authorization, body });
  const authorize = (orderId: string, id: string, amount: string, extra: object = {}) =>
    put(orderId, id, { apiOperation: 'AUTHORIZE', order: { amount, currency: 'USD' }, sourceOfFunds: card(), ...extra });
  const pay = (orderId: string, id: string, amount: string, extra: object = {}) =>
    put(orderId, id, { apiOperation: 'PAY', order: { amount, currency: 'USD' }, sourceOfFunds: card(), ...extra });
  const capture = (orderId: string, id: string, amount: string, extra: object = {}) =>
    put(orderId, id, { apiOperation: 'CAPTURE', transaction: { amount, currency: 'USD', ...extra } });
  const refund = (orderId: string, id: string, amount: string, extra: object = {}) =>
    put(orderId, id, { apiOperation: 'REFUND', transaction: { amount, currency: 'USD', ...extra } });
  const voidOf = (orderId: string, id: string, targetTransactionId: string) =>
    put(orderId, id, { apiOperation: 'VOID', transaction: { targetTransactionId } });

  /** The step's answer: 201, and the order's status and totals [authorized, captured, refunded]. */
  function expectOrder(response: ApiResponse<Json>, status: string, totals: [number, number, number], result = 'SUCCESS') {
    expect(response.status).toBe(201);
    expect(response.text).not.toContain(TEST_CARD);
    expect(response.body).toMatchObject({
      result,
      order: { status, totalAuthorizedAmount: totals[0], totalCapturedAmount: totals[1], totalRefundedAmount: totals[2] },
    });
  }

  it('authorize, capture part, capture rest, refund part, refund rest: every status and total', async () => {
    const orderId = newOrderId();
    const authorized = await authorize(orderId, 'a1', '100.00', { billing: { address: { street: '1 Main Street', postcodeZip: '12345' } } });
    expectOrder(authorized, 'AUTHORIZED', [100, 0, 0]);
    expect(authorized.body).toMatchObject({
      response: { gatewayCode: 'APPROVED', cardSecurityCode: { gatewayCode: 'MATCH' } },
      transaction: { id: 'a1', type: 'AUTHORIZATION', amount: 100, currency: 'USD', acquirer: { id: 'TEST_ACQUIRER' } },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', expiry: { month: '1', year: '39' } } } },
    });
    expect(authorized.body.transaction.authorizationCode).toEqual(expect.any(String));

    const part = await capture(orderId, 'c1', '30.00');
    expectOrder(part, 'PARTIALLY_CAPTURED', [100, 30, 0]);
    expect(part.body).toMatchObject({
      transaction: { type: 'CAPTURE', amount: 30, targetTransactionId: 'a1' },
      sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } },
    });
    // Without a target the ledger picks the one authorisation with something left.
    expectOrder(await capture(orderId, 'c2', '70.00'), 'CAPTURED', [100, 100, 0]);
    expectOrder(await refund(orderId, 'r1', '30.00', { targetTransactionId: 'c1' }), 'PARTIALLY_REFUNDED', [100, 100, 30]);
    expectOrder(await refund(orderId, 'r2', '70.00', { targetTransactionId: 'c2' }), 'REFUNDED', [100, 100, 100]);

    const order = await call<Json>('GET', `${merchant.base()}/order/${orderId}`, { authorization: merchant.authorization });
    expect(order.status).toBe(200);
    expect(order.text).not.toContain(TEST_CARD);
    expect(order.body).toMatchObject({ status: 'REFUNDED', totalAuthorizedAmount: 100, totalCapturedAmount: 100, totalRefundedAmount: 100 });
    expect(order.body.transaction.map((t: Json) => [t.transaction.id, t.transaction.type])).toEqual([
      ['a1', 'AUTHORIZATION'],
      ['c1', 'CAPTURE'],
      ['c2', 'CAPTURE'],
      ['r1', 'REFUND'],
      ['r2', 'REFUND'],
    ]);
    const retrieved = await call<Json>('GET', `${merchant.base()}/order/${orderId}/transaction/c1`, { authorization: merchant.authorization });
    expect(retrieved.body).toMatchObject({ transaction: { id: 'c1', type: 'CAPTURE', amount: 30 }, order: { status: 'REFUNDED' } });
  });

  it('pay then void: CAPTURED then CANCELLED, totals back to zero', async () => {
    const orderId = newOrderId();
    const paid = await pay(orderId, 'p1', '25.50');
    expectOrder(paid, 'CAPTURED', [25.5, 25.5, 0]);
    expect(paid.body).toMatchObject({ transaction: { type: 'PAYMENT', amount: 25.5 }, response: { gatewayCode: 'APPROVED' } });
    const voided = await voidOf(orderId, 'v1', 'p1');
    expectOrder(voided, 'CANCELLED', [0, 0, 0]);
    expect(voided.body).toMatchObject({ transaction: { type: 'VOID_PAYMENT', amount: 25.5, targetTransactionId: 'p1' }, response: { gatewayCode: 'APPROVED' } });
  });

  it('authorize then void: AUTHORIZED then CANCELLED', async () => {
    const orderId = newOrderId();
    expectOrder(await authorize(orderId, 'a1', '40.00'), 'AUTHORIZED', [40, 0, 0]);
    const voided = await voidOf(orderId, 'v1', 'a1');
    expectOrder(voided, 'CANCELLED', [0, 0, 0]);
    expect(voided.body).toMatchObject({ transaction: { type: 'VOID_AUTHORIZATION', targetTransactionId: 'a1' } });
  });

  it('voids a capture (back to AUTHORIZED) and a refund (back to CAPTURED)', async () => {
    const orderId = newOrderId();
    await authorize(orderId, 'a1', '50.00');
    expectOrder(await capture(orderId, 'c1', '50.00'), 'CAPTURED', [50, 50, 0]);
    expectOrder(await refund(orderId, 'r1', '20.00'), 'PARTIALLY_REFUNDED', [50, 50, 20]);
    expectOrder(await voidOf(orderId, 'v1', 'r1'), 'CAPTURED', [50, 50, 0]);
    expectOrder(await voidOf(orderId, 'v2', 'c1'), 'AUTHORIZED', [50, 0, 0]);
  });

  it.each([
    ['DECLINED', TEST_EXPIRY.DECLINED, 'FAILURE'],
    ['EXPIRED_CARD', TEST_EXPIRY.EXPIRED_CARD, 'FAILURE'],
    ['TIMED_OUT', TEST_EXPIRY.TIMED_OUT, 'FAILURE'],
    ['ACQUIRER_SYSTEM_ERROR', TEST_EXPIRY.ACQUIRER_SYSTEM_ERROR, 'FAILURE'],
    ['UNSPECIFIED_FAILURE', TEST_EXPIRY.UNSPECIFIED_FAILURE, 'FAILURE'],
  ])('a %s PAY and AUTHORIZE leave the order FAILED with totals 0', async (gatewayCode, expiry, result) => {
    for (const apiOperation of ['PAY', 'AUTHORIZE']) {
      const response = await put(newOrderId(), 't1', { apiOperation, order: { amount: '10.00', currency: 'USD' }, sourceOfFunds: card(expiry) });
      expectOrder(response, 'FAILED', [0, 0, 0], result);
      expect(response.body.response.gatewayCode).toBe(gatewayCode);
    }
  });

  it('reverses at the acquirer every PAY, AUTHORIZE and card refund it answered TIMED_OUT (spec: "the gateway tries to reverse")', async () => {
    const reversed = async () => counterTotal(await scrapeMetrics('order-transaction'), 'gateway_timed_out_reversals_total', { outcome: 'REVERSED' });
    const voidCalls = () => acquirerCalls('order-transaction', 'VOID');
    const [voidsBefore, reversedBefore] = [await voidCalls(), await reversed()];
    const timedOut = { sourceOfFunds: card(TEST_EXPIRY.TIMED_OUT) };
    const answers = [
      await pay(newOrderId(), 'p1', '10.00', timedOut),
      await authorize(newOrderId(), 'a1', '10.00', timedOut),
      await put(newOrderId(), 'r1', { apiOperation: 'REFUND', transaction: { amount: '10.00', currency: 'USD' }, ...timedOut }),
    ];
    for (const answer of answers) {
      expectOrder(answer, 'FAILED', [0, 0, 0], 'FAILURE');
      expect(answer.body.response.gatewayCode).toBe('TIMED_OUT');
    }
    expect([(await voidCalls()) - voidsBefore, (await reversed()) - reversedBefore]).toEqual([3, 3]);

    // Nothing else is reversed: an approval, another decline.
    await pay(newOrderId(), 'p1', '10.00');
    await pay(newOrderId(), 'p1', '10.00', { sourceOfFunds: card(TEST_EXPIRY.DECLINED) });
    expect((await voidCalls()) - voidsBefore).toBe(3);
  });

  it('an UNKNOWN outcome (expiry 05/37) is recorded UNKNOWN: the order INITIATED, nothing in its totals', async () => {
    const response = await pay(newOrderId(), 'p1', '10.00', { sourceOfFunds: card(TEST_EXPIRY.UNKNOWN) });
    expectOrder(response, 'INITIATED', [0, 0, 0], 'UNKNOWN');
    expect(response.body.response.gatewayCode).toBe('UNKNOWN');
  });

  it('a partial approval: PARTIALLY_APPROVED, requestedAmount, and the totals and captures use the approved amount', async () => {
    const orderId = newOrderId();
    const partial = await authorize(orderId, 'a1', '10.51', { order: { amount: '10.51', currency: 'USD', acceptPartialAmount: true } });
    expectOrder(partial, 'AUTHORIZED', [5.25, 0, 0]);
    expect(partial.body).toMatchObject({
      response: { gatewayCode: 'PARTIALLY_APPROVED' },
      transaction: { amount: 5.25, requestedAmount: 10.51 },
      order: { amount: 5.25, acceptPartialAmount: true },
    });
    const beyond = await capture(orderId, 'c1', '5.26');
    expect(beyond.status).toBe(400);
    expectOrder(await capture(orderId, 'c1', '5.25'), 'CAPTURED', [5.25, 5.25, 0]);

    const refused = await authorize(newOrderId(), 'a1', '10.51');
    expectOrder(refused, 'FAILED', [0, 0, 0], 'FAILURE');
    expect(refused.body.response.gatewayCode).toBe('INSUFFICIENT_FUNDS');
  });

  it('replays a PAY without a second acquirer call, and refuses the same id with another body', async () => {
    const orderId = newOrderId();
    const before = await acquirerCalls('order-transaction', 'PAY');
    const first = await pay(orderId, 'p1', '12.00');
    const replay = await pay(orderId, 'p1', '12.00');
    expect(replay.text).toBe(first.text);
    expect((await acquirerCalls('order-transaction', 'PAY')) - before).toBe(1);
    const changed = await pay(orderId, 'p1', '12.01');
    expect(changed.status).toBe(400);
  });

  it('400: a capture above the authorized amount, naming what is left', async () => {
    const orderId = newOrderId();
    await authorize(orderId, 'a1', '20.00');
    const above = await capture(orderId, 'c1', '20.01', { targetTransactionId: 'a1' });
    expect(above.status).toBe(400);
    expect(above.body).toEqual({
      error: {
        cause: 'INVALID_REQUEST',
        field: 'transaction.amount',
        validationType: 'INVALID',
        explanation: "Value '20.01' is invalid. The amount available for capture on this order is 20.00 USD.",
      },
      result: 'ERROR',
    });
    await capture(orderId, 'c1', '15.00');
    const rest = await capture(orderId, 'c2', '5.01');
    expect(rest.body.error.explanation).toContain('available for capture on this order is 5.00 USD');
    // Nothing was recorded by the refusals: the same ids may be used again.
    expectOrder(await capture(orderId, 'c2', '5.00'), 'CAPTURED', [20, 20, 0]);
  });

  it('400: a refund beyond what its named capture holds, though the order\'s other capture covers it', async () => {
    const orderId = newOrderId();
    await authorize(orderId, 'a1', '100.00');
    await capture(orderId, 'c1', '30.00');
    await capture(orderId, 'c2', '70.00');
    const beyond = await refund(orderId, 'r1', '50.00', { targetTransactionId: 'c1' });
    expect(beyond.status).toBe(400);
    expect(beyond.body).toEqual({
      error: {
        cause: 'INVALID_REQUEST',
        field: 'transaction.amount',
        validationType: 'INVALID',
        explanation: "Value '50.00' is invalid. The amount available for refund of transaction 'c1' is 30.00 USD.",
      },
      result: 'ERROR',
    });
    // Nothing was recorded by the refusal: the same id refunds what c1 holds.
    expectOrder(await refund(orderId, 'r1', '30.00', { targetTransactionId: 'c1' }), 'PARTIALLY_REFUNDED', [100, 100, 30]);
  });

  it('400: a capture or refund whose taxAmount exceeds its amount, on transaction.taxAmount', async () => {
    const orderId = newOrderId();
    await authorize(orderId, 'a1', '10.00');
    const captured = await capture(orderId, 'c1', '1.00', { taxAmount: '1000000000000' });
    expect(captured.status).toBe(400);
    expect(captured.body).toEqual({
      error: {
        cause: 'INVALID_REQUEST',
        field: 'transaction.taxAmount',
        validationType: 'INVALID',
        explanation: "Value '1000000000000' is invalid. taxAmount must be at most transaction.amount (1.00): the tax is part of the amount.",
      },
      result: 'ERROR',
    });
    expectOrder(await capture(orderId, 'c1', '10.00', { taxAmount: '1.00' }), 'CAPTURED', [10, 10, 0]);
    const refunded = await refund(orderId, 'r1', '5.00', { taxAmount: '5.01' });
    expect(refunded.status).toBe(400);
    expect(refunded.body.error).toMatchObject({ field: 'transaction.taxAmount', validationType: 'INVALID' });
    // A full refund's default tax is the tax captured.
    const full = await refund(orderId, 'r1', '10.00');
    expectOrder(full, 'REFUNDED', [10, 10, 10]);
    expect(full.body.transaction).toMatchObject({ taxAmount: 1 });
  });

  it('400: a void of a voided transaction', async () => {
    const orderId = newOrderId();
    await pay(orderId, 'p1', '9.00');
    await voidOf(orderId, 'v1', 'p1');
    const again = await voidOf(orderId, 'v2', 'p1');
    expect(again.status).toBe(400);
    expect(again.body).toEqual({
      error: {
        cause: 'INVALID_REQUEST',
        field: 'transaction.targetTransactionId',
        validationType: 'INVALID',
        explanation: "Value 'p1' is invalid. Transaction 'p1' is already voided by transaction 'v1'.",
      },
      result: 'ERROR',
    });
  });

  it('400: a refund of an authorization that was never captured', async () => {
    const orderId = newOrderId();
    await authorize(orderId, 'a1', '30.00');
    const named = await refund(orderId, 'r1', '10.00', { targetTransactionId: 'a1' });
    expect(named.status).toBe(400);
    expect(named.body.error).toMatchObject({
      field: 'transaction.targetTransactionId',
      validationType: 'INVALID',
      explanation: "Value 'a1' is invalid. Transaction 'a1' is an AUTHORIZATION: only a successful PAYMENT or CAPTURE can be refunded.",
    });
    const unnamed = await refund(orderId, 'r1', '10.00');
    expect(unnamed.status).toBe(400);
    // An id may read as a card number (a millisecond time passes Luhn one time in ten): explanations mask it.
    expect(unnamed.body.error.explanation).toBe(`Order '${maskCardNumbers(orderId, 'keep-length')}' has no captured or paid transaction to refund.`);
  });

  it('400: a void of an authorization that has captures says to void them first', async () => {
    const orderId = newOrderId();
    await authorize(orderId, 'a1', '30.00');
    await capture(orderId, 'c1', '10.00');
    const response = await voidOf(orderId, 'v1', 'a1');
    expect(response.status).toBe(400);
    expect(response.body.error.explanation).toContain("void CAPTURE 'c1' first");
  });

  async function tokenFor(expiry: Expiry): Promise<string> {
    const created = await call<Json>('POST', `${merchant.base()}/token`, {
      authorization: merchant.authorization,
      body: { sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry } } } },
    });
    expect(created.status).toBe(201);
    return created.body.token;
  }

  it('PAY with a stored token: the vault completes the card, then capture-free void works on it', async () => {
    const token = await tokenFor(TEST_EXPIRY.APPROVED);
    const orderId = newOrderId();
    const paid = await put(orderId, 'p1', { apiOperation: 'PAY', order: { amount: '14.00', currency: 'USD' }, sourceOfFunds: { token } });
    expectOrder(paid, 'CAPTURED', [14, 14, 0]);
    expect(paid.body).toMatchObject({ sourceOfFunds: { type: 'CARD', token, provided: { card: { number: '512345xxxxxx0008' } } } });
    expectOrder(await voidOf(orderId, 'v1', 'p1'), 'CANCELLED', [0, 0, 0]);

    const declined = await put(newOrderId(), 'p1', {
      apiOperation: 'PAY',
      order: { amount: '14.00', currency: 'USD' },
      sourceOfFunds: { token: await tokenFor(TEST_EXPIRY.DECLINED) },
    });
    expectOrder(declined, 'FAILED', [0, 0, 0], 'FAILURE');
  });

  it('PAY and AUTHORIZE with a session card, the request\'s own values winning', async () => {
    const created = await call<Json>('POST', `${merchant.base()}/session`, {
      authorization: merchant.authorization,
      body: { sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.DECLINED, securityCode: '102' } } } },
    });
    expect(created.status).toBe(201);
    const session = { id: created.body.session.id };
    const declined = await put(newOrderId(), 'p1', { apiOperation: 'PAY', session, order: { amount: '8.00', currency: 'USD' } });
    expectOrder(declined, 'FAILED', [0, 0, 0], 'FAILURE');
    // The request's expiry and security code over the session's.
    const orderId = newOrderId();
    const paid = await put(orderId, 'p1', {
      apiOperation: 'AUTHORIZE',
      session,
      order: { amount: '8.00', currency: 'USD' },
      sourceOfFunds: { type: 'CARD', provided: { card: { expiry: TEST_EXPIRY.APPROVED, securityCode: '100' } } },
    });
    expectOrder(paid, 'AUTHORIZED', [8, 0, 0]);
    expect(paid.body).toMatchObject({
      response: { cardSecurityCode: { gatewayCode: 'MATCH' } },
      sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008', expiry: { month: '1', year: '39' } } } },
    });
    expectOrder(await capture(orderId, 'c1', '8.00'), 'CAPTURED', [8, 8, 0]);
  });

  it('answers LOCK_FAILURE on a busy order with the order as it stands and the transaction it would have been', async () => {
    // 2 s of acquirer latency holds the order far longer than the edge's 100 ms lock wait.
    const slow = await createMerchant({ 'testAcquirer.latencyMs': 2_000 });
    const orderId = newOrderId();
    const onSlow = (id: string, body: object) =>
      call<Json>('PUT', `${slow.base()}/order/${orderId}/transaction/${id}`, { authorization: slow.authorization, body });
    // The order keeps the payment's billing, customer and shipping beside its own fields.
    const paid = await onSlow('p1', {
      apiOperation: 'PAY',
      order: { amount: '100.00', currency: 'USD', reference: 'cart-7', description: 'Two tickets' },
      sourceOfFunds: card(),
      billing: { address: { street: '1 Main Street', city: 'Springfield', postcodeZip: '12345', country: 'USA' } },
      customer: { email: 'payer@example.com', firstName: 'Ada', lastName: 'Lovelace' },
      shipping: { address: { city: 'Springfield', country: 'USA' }, contact: { firstName: 'Ada' } },
    });
    expectOrder(paid, 'CAPTURED', [100, 100, 0]);

    const [refunded, voided] = await Promise.all([
      onSlow('r1', { apiOperation: 'REFUND', transaction: { amount: '10.00', currency: 'USD' } }),
      onSlow('v1', { apiOperation: 'VOID', transaction: { targetTransactionId: 'p1' } }),
    ]);

    const locked = [refunded, voided].filter((r) => r.body.response?.gatewayCode === 'LOCK_FAILURE');
    expect(locked).toHaveLength(1);
    // The order as the ledger held it while the other operation ran: its totals, not zeros.
    expectOrder(locked[0], 'CAPTURED', [100, 100, 0], 'FAILURE');
    expect(locked[0].body.order).toMatchObject({ id: orderId, amount: 100, currency: 'USD', reference: 'cart-7', description: 'Two tickets' });
    // Only the order's own fields: what the order keeps beside them is not the order group's.
    for (const group of ['billing', 'customer', 'shipping', 'result', 'transaction']) {
      expect(locked[0].body.order).not.toHaveProperty(group);
    }
    expect(locked[0].body.transaction).toEqual(
      locked[0] === refunded
        ? // No target named: the acquirer every transaction on the order names.
          { id: 'r1', type: 'REFUND', amount: 10, currency: 'USD', acquirer: { id: 'TEST_ACQUIRER' } }
        : { id: 'v1', type: 'VOID_PAYMENT', amount: 100, currency: 'USD', targetTransactionId: 'p1', acquirer: { id: 'TEST_ACQUIRER' } },
    );
    // The order still keeps them, for its retrieval.
    const order = await call<Json>('GET', `${slow.base()}/order/${orderId}`, { authorization: slow.authorization });
    expect(order.body).toMatchObject({ reference: 'cart-7', billing: { address: { city: 'Springfield' } }, customer: { firstName: 'Ada' } });
  });

  it('refuses a card number failing Luhn on VERIFY, PAY, AUTHORIZE and a standalone REFUND: 400 on the number, no acquirer call, no order', async () => {
    const luhnFailure = { type: 'CARD', provided: { card: { number: TEST_CARD_LUHN_FAILURE, expiry: TEST_EXPIRY.APPROVED, securityCode: '100' } } };
    const bodies: Record<string, object> = {
      VERIFY: { apiOperation: 'VERIFY', order: { currency: 'USD' }, sourceOfFunds: luhnFailure },
      PAY: { apiOperation: 'PAY', order: { amount: '5.00', currency: 'USD' }, sourceOfFunds: luhnFailure },
      AUTHORIZE: { apiOperation: 'AUTHORIZE', order: { amount: '5.00', currency: 'USD' }, sourceOfFunds: luhnFailure },
      REFUND: { apiOperation: 'REFUND', transaction: { amount: '5.00', currency: 'USD' }, sourceOfFunds: luhnFailure },
    };
    for (const [operation, body] of Object.entries(bodies)) {
      const before = await acquirerCalls('order-transaction', operation);
      const orderId = newOrderId();
      const response = await put(orderId, 't1', body);
      expect([operation, response.status]).toEqual([operation, 400]);
      expect(response.body).toEqual({
        error: { cause: 'INVALID_REQUEST', explanation: expect.any(String), field: 'sourceOfFunds.provided.card.number', validationType: 'INVALID' },
        result: 'ERROR',
      });
      expect(response.text).not.toContain(TEST_CARD_LUHN_FAILURE);
      expect([operation, await acquirerCalls('order-transaction', operation)]).toEqual([operation, before]);
      expect((await call<Json>('GET', `${merchant.base()}/order/${orderId}`, { authorization: merchant.authorization })).status).toBe(404);
    }
  });

  it('refuses a card number in a note or description (400 on that field, the number masked in the answer) and stores nothing', async () => {
    const orderId = newOrderId();
    const response = await pay(orderId, 'p1', '5.00', { order: { amount: '5.00', currency: 'USD', description: `card ${TEST_CARD} exp 01/39` } });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ field: 'order.description', validationType: 'INVALID' });
    expect(response.body.error.explanation).toContain('512345xxxxxx0008');
    expect(response.text).not.toContain(TEST_CARD);
    expect((await call<Json>('GET', `${merchant.base()}/order/${orderId}`, { authorization: merchant.authorization })).status).toBe(404);
    // Dates, times and long digit references are not card numbers: accepted as they are.
    const description = 'invoice 9876543210987654, 2026-11-26, paid 1712345678901';
    const referenced = await pay(newOrderId(), 'p1', '5.00', { order: { amount: '5.00', currency: 'USD', description, reference: '9876543210987654' } });
    expect(referenced.status).toBe(201);
  });

  it('answers a card payment without any card with MISSING on sourceOfFunds', async () => {
    const response = await put(newOrderId(), 'p1', { apiOperation: 'PAY', order: { amount: '8.00', currency: 'USD' } });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ field: 'sourceOfFunds', validationType: 'MISSING' });
  });
});
