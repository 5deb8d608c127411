import { JsonObject } from '@gateway/contracts';
import { maskCardNumbers } from '@gateway/crypto';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { ApiResponse, call, createMerchant, TestMerchant } from '../support/gateway-client';
import { acquirerRefundCalls } from '../support/metrics';

/**
 * REFUND over HTTP in both profiles, with what needs no captured order: standalone refunds to a
 * card given in the request and to a stored token, and the refusals of the refund rules.
 * (Linked refunds need a captured order, which only the ledger can seed until card PAY exists:
 * refund.infra.e2e-spec.ts.)
 */
describe('REFUND over HTTP', () => {
  let merchant: TestMerchant;
  let sequence = 0;
  const newOrderId = () => `sr-${Date.now()}-${(sequence += 1)}`;

  beforeAll(async () => {
    merchant = await createMerchant();
  });

  const card = (expiry: { month: string; year: string } = TEST_EXPIRY.APPROVED) => ({
    type: 'CARD',
    provided: { card: { number: TEST_CARD, expiry, securityCode: '100' } },
  });
  const refundBody = (amount: string, extra: JsonObject = {}) => ({ apiOperation: 'REFUND', transaction: { amount, currency: 'USD' }, ...extra });

  function putRefund(by: TestMerchant, orderId: string, transactionId: string, body: unknown): Promise<ApiResponse<JsonObject>> {
    return call<JsonObject>('PUT', `${by.base(29)}/order/${orderId}/transaction/${transactionId}`, { authorization: by.authorization, body });
  }

  it('refunds to a card given in the request: a new REFUNDED order, card masked, and a replay moves no money', async () => {
    const orderId = newOrderId();
    const calls = await acquirerRefundCalls();
    const body = refundBody('12.34', { sourceOfFunds: card(), correlationId: 'c-1' });
    const refunded = await putRefund(merchant, orderId, 'r1', body);
    expect(refunded.status).toBe(201);
    expect(refunded.text).not.toContain(TEST_CARD);
    expect(refunded.body).toMatchObject({
      merchant: merchant.id,
      version: '29',
      correlationId: 'c-1',
      result: 'SUCCESS',
      response: { gatewayCode: 'APPROVED', acquirerCode: '00' },
      order: { id: orderId, status: 'REFUNDED', totalRefundedAmount: 12.34, totalCapturedAmount: 0, totalAuthorizedAmount: 0 },
      transaction: { id: 'r1', type: 'REFUND', amount: 12.34, currency: 'USD', acquirer: { id: 'TEST_ACQUIRER' } },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', brand: 'MASTERCARD', expiry: { month: '1', year: '39' } } } },
    });
    expect((await acquirerRefundCalls()) - calls).toBe(1);

    const replay = await putRefund(merchant, orderId, 'r1', body);
    expect(replay.text).toBe(refunded.text);
    expect((await acquirerRefundCalls()) - calls).toBe(1);
    const changed = await putRefund(merchant, orderId, 'r1', refundBody('12.35', { sourceOfFunds: card() }));
    expect(changed.status).toBe(400);

    const order = await call<JsonObject>('GET', `${merchant.base()}/order/${orderId}`, { authorization: merchant.authorization });
    expect(order.status).toBe(200);
    expect(order.text).not.toContain(TEST_CARD);
    expect(order.body).toMatchObject({ status: 'REFUNDED', totalRefundedAmount: 12.34, transaction: [{ transaction: { id: 'r1' } }] });
  });

  it('answers a declined card refund 201 with result FAILURE, the order FAILED', async () => {
    const declined = await putRefund(merchant, newOrderId(), 'r1', refundBody('5.00', { sourceOfFunds: card(TEST_EXPIRY.DECLINED) }));
    expect(declined.status).toBe(201);
    expect(declined.body).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'DECLINED' }, order: { status: 'FAILED', totalRefundedAmount: 0 } });
  });

  it('takes the retry of a declined standalone refund on its order with a new transaction id, and no third one once money moved', async () => {
    const orderId = newOrderId();
    const declined = await putRefund(merchant, orderId, 'r1', refundBody('5.00', { sourceOfFunds: card(TEST_EXPIRY.DECLINED) }));
    expect(declined.body).toMatchObject({ result: 'FAILURE', order: { status: 'FAILED' } });
    const retried = await putRefund(merchant, orderId, 'r2', refundBody('5.00', { sourceOfFunds: card() }));
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({
      result: 'SUCCESS',
      order: { id: orderId, status: 'REFUNDED', totalRefundedAmount: 5 },
      transaction: { id: 'r2', type: 'REFUND', amount: 5 },
    });
    const again = await putRefund(merchant, orderId, 'r3', refundBody('5.00', { sourceOfFunds: card() }));
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ error: { cause: 'INVALID_REQUEST', field: 'sourceOfFunds', validationType: 'UNSUPPORTED' } });
  });

  it('refunds to a stored token: the vault completes the card, the response shows it masked', async () => {
    const created = await call<JsonObject>('POST', `${merchant.base()}/token`, {
      authorization: merchant.authorization,
      body: { sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } } },
    });
    expect(created.status).toBe(201);
    const token = created.body.token as string;
    const refunded = await putRefund(merchant, newOrderId(), 'r1', refundBody('3.00', { sourceOfFunds: { token } }));
    expect(refunded.status).toBe(201);
    expect(refunded.text).not.toContain(TEST_CARD);
    expect(refunded.body).toMatchObject({
      result: 'SUCCESS',
      order: { status: 'REFUNDED' },
      sourceOfFunds: { type: 'CARD', token, provided: { card: { number: '512345xxxxxx0008' } } },
    });
  });

  it('records a REFUND_REQUEST for a merchant whose refunds need approval', async () => {
    const approving = await createMerchant({ 'privileges.refundRequiresApproval': true });
    const created = await call<JsonObject>('POST', `${approving.base()}/token`, {
      authorization: approving.authorization,
      body: { sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } } },
    });
    // The name on the card alone is no card to show: the vault is not asked until the refund is approved.
    const requested = await putRefund(
      approving,
      newOrderId(),
      'r1',
      refundBody('9.00', { sourceOfFunds: { token: created.body.token, provided: { card: { nameOnCard: 'Ada Lovelace' } } } }),
    );
    expect(requested.status).toBe(201);
    expect(requested.body.sourceOfFunds).toEqual({ type: 'CARD', token: created.body.token });
    expect(requested.body).toMatchObject({
      result: 'PENDING',
      response: { gatewayCode: 'PENDING' },
      // Not sent yet: transaction.acquirer (always provided) names the acquirer a standalone refund goes to, the merchant's.
      transaction: { type: 'REFUND_REQUEST', amount: 9, acquirer: { id: 'TEST_ACQUIRER' } },
      order: { status: 'REFUND_REQUESTED', totalRefundedAmount: 0 },
    });
  });

  it('refuses a REFUND_REQUEST to a token the repository does not hold, or that holds no card, as a refund sent at once is', async () => {
    const approving = await createMerchant({ 'privileges.refundRequiresApproval': true });
    const agreement = await call<JsonObject>('POST', `${approving.base()}/token`, {
      authorization: approving.authorization,
      body: { sourceOfFunds: { type: 'PROVIDER_A', provided: { provider_a: { billingAgreement: { id: 'BA-REFUND-1', cardinality: 'MULTIPLE' } } } } },
    });
    expect(agreement.status).toBe(201);
    for (const token of ['9999999999999995', agreement.body.token as string]) {
      const orderId = newOrderId();
      const refused = await putRefund(approving, orderId, 'r1', refundBody('9.00', { sourceOfFunds: { token } }));
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ result: 'ERROR', error: { cause: 'INVALID_REQUEST', field: 'sourceOfFunds.token', validationType: 'INVALID' } });
      // Nothing recorded: the order does not exist.
      const order = await call<JsonObject>('GET', `${approving.base()}/order/${orderId}`, { authorization: approving.authorization });
      expect(order.status).toBe(404);
    }
  });

  it('refuses what the refund rules forbid, in the API error shape, without echoing the card', async () => {
    const orderId = newOrderId();
    const missing = await putRefund(merchant, orderId, 'r1', refundBody('1.00'));
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ result: 'ERROR', error: { cause: 'INVALID_REQUEST', field: 'sourceOfFunds', validationType: 'MISSING' } });

    expect((await putRefund(merchant, orderId, 'r1', refundBody('1.00', { sourceOfFunds: card() }))).status).toBe(201);
    // The order exists now: a refund on it is linked, and may not name a card.
    const linkedWithCard = await putRefund(merchant, orderId, 'r2', refundBody('1.00', { sourceOfFunds: card() }));
    expect(linkedWithCard.status).toBe(400);
    expect(linkedWithCard.text).not.toContain(TEST_CARD);
    expect(linkedWithCard.body).toMatchObject({ error: { field: 'sourceOfFunds', validationType: 'UNSUPPORTED' } });
    // Nor can it refund a refund: nothing on the order was captured or paid.
    const nothingToRefund = await putRefund(merchant, orderId, 'r2', refundBody('1.00'));
    expect(nothingToRefund.status).toBe(400);
    expect(nothingToRefund.body).toEqual({
      // An id may read as a card number (a millisecond time passes Luhn one time in ten): explanations mask it.
      error: { cause: 'INVALID_REQUEST', explanation: `Order '${maskCardNumbers(orderId, 'keep-length')}' has no captured or paid transaction to refund.` },
      result: 'ERROR',
    });
    const otherCurrency = await putRefund(merchant, orderId, 'r2', { apiOperation: 'REFUND', transaction: { amount: '1.00', currency: 'EUR' } });
    expect(otherCurrency.body).toMatchObject({ error: { field: 'transaction.currency', validationType: 'INVALID' } });
  });
});
