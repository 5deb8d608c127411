import { randomBytes } from 'node:crypto';
import { JsonObject } from '@gateway/contracts';
import { Metrics } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { CARD_SERVICES, GatewayResponse, startTestGateway, TestGateway, TestGatewayMerchant } from './testing/test-gateway';

/**
 * A card order keeps the acquirer it was opened at (live-merchants-without-acquirer.md, amendment
 * "a card order's operations follow its acquirer"): a TEST merchant's authorisation is captured,
 * refunded and voided at the test acquirer after `admin mode <id> LIVE` (ManageMerchants.setMode),
 * through the edge over HTTP and the real ledger; a new order after the switch is still refused.
 */

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ ...CARD_SERVICES, merchantDefaults: { name: 'Mode switch shop', idPrefix: 'INTMS' } });
}, 60_000);

afterAll(async () => {
  await gateway?.running.shutdown('tests done');
});

const card = { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: '100' } } };
const newOrderId = () => `ord-${randomBytes(4).toString('hex')}`;

function put(merchant: TestGatewayMerchant, orderId: string, transactionId: string, body: JsonObject): Promise<GatewayResponse> {
  return gateway.fetch(`${merchant.base()}/order/${orderId}/transaction/${transactionId}`, {
    method: 'PUT',
    headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const authorize = (merchant: TestGatewayMerchant, orderId: string) =>
  put(merchant, orderId, 'auth-1', { apiOperation: 'AUTHORIZE', order: { amount: '20.00', currency: 'USD' }, sourceOfFunds: card });

/** Calls the test acquirer answered in this process, of one operation. */
async function acquirerCalls(operation: string): Promise<number> {
  const metric = await gateway.running.app.get(Metrics).registry.getSingleMetric('gateway_acquirer_requests_total')?.get();
  return (metric?.values ?? [])
    .filter((v) => v.labels.acquirer === 'TEST_ACQUIRER' && v.labels.operation === operation)
    .reduce((sum, v) => sum + v.value, 0);
}

describe('a TEST merchant switched to LIVE', () => {
  it('captures and refunds its test-era authorisation at the test acquirer; a new order is refused', async () => {
    const merchant = await gateway.newMerchant();
    const orderId = newOrderId();
    const authorized = await authorize(merchant, orderId);
    expect(authorized.body).toMatchObject({ result: 'SUCCESS', transaction: { acquirer: { id: 'TEST_ACQUIRER' } } });
    await gateway.manage.setMode(merchant.id, 'LIVE');

    const captures = await acquirerCalls('CAPTURE');
    const captured = await put(merchant, orderId, 'capture-1', { apiOperation: 'CAPTURE', transaction: { amount: '20.00', currency: 'USD' } });
    expect([captured.status, captured.body]).toEqual([
      201,
      expect.objectContaining({ result: 'SUCCESS', order: expect.objectContaining({ status: 'CAPTURED' }) }),
    ]);
    expect(captured.body).toMatchObject({ transaction: { type: 'CAPTURE', acquirer: { id: 'TEST_ACQUIRER' } } });
    expect(await acquirerCalls('CAPTURE')).toBe(captures + 1);

    const refunded = await put(merchant, orderId, 'refund-1', {
      apiOperation: 'REFUND',
      transaction: { amount: '5.00', currency: 'USD', targetTransactionId: 'capture-1' },
    });
    expect([refunded.status, refunded.body]).toEqual([
      201,
      expect.objectContaining({ result: 'SUCCESS', order: expect.objectContaining({ status: 'PARTIALLY_REFUNDED', totalRefundedAmount: 5 }) }),
    ]);
    expect(refunded.body).toMatchObject({ transaction: { type: 'REFUND', acquirer: { id: 'TEST_ACQUIRER' } } });

    // A new order follows the merchant's mode now: no acquirer, nothing recorded.
    const another = newOrderId();
    const authorizations = await acquirerCalls('AUTHORIZE');
    const refused = await authorize(merchant, another);
    expect([refused.status, refused.body]).toEqual([
      400,
      { result: 'ERROR', error: expect.objectContaining({ cause: 'INVALID_REQUEST', explanation: expect.stringContaining('no acquirer is configured') }) },
    ]);
    const retrieved = await gateway.fetch(`${merchant.base()}/order/${another}`, { headers: { authorization: merchant.authorization } });
    expect(retrieved.status).toBe(404);
    expect(await acquirerCalls('AUTHORIZE')).toBe(authorizations);
  });

  it('voids its test-era authorisation at the test acquirer, releasing the hold there', async () => {
    const merchant = await gateway.newMerchant();
    const orderId = newOrderId();
    expect((await authorize(merchant, orderId)).body).toMatchObject({ result: 'SUCCESS' });
    await gateway.manage.setMode(merchant.id, 'LIVE');

    const voids = await acquirerCalls('VOID');
    const voided = await put(merchant, orderId, 'void-1', { apiOperation: 'VOID', transaction: { targetTransactionId: 'auth-1' } });
    expect([voided.status, voided.body]).toEqual([
      201,
      expect.objectContaining({ result: 'SUCCESS', order: expect.objectContaining({ status: 'CANCELLED' }) }),
    ]);
    expect(await acquirerCalls('VOID')).toBe(voids + 1);
  });
});
