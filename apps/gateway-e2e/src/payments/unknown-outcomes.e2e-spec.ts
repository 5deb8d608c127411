import { JsonObject } from '@gateway/contracts';
import { TEST_CARD, TEST_EXPIRY, waitFor } from '@gateway/testing';
import { ApiResponse, call, createMerchant, TestMerchant } from '../support/gateway-client';
import { counterTotal, scrapeMetrics } from '../support/metrics';

type Json = JsonObject & Record<string, any>;

/**
 * Spec, `response.gatewayCode` UNKNOWN: "submitted to acquirer, outcome unknown; code updated if
 * later learned". Over HTTP in both profiles: the ledger asks the test acquirer about the
 * transactions it answered UNKNOWN (expiry 05/37), which finds them APPROVED (the issuer approved,
 * the answer was lost: docs/test-acquirer.md), and records it (docs/decisions/unknown-resolution.md).
 * The e2e setup asks after 1.5 s, every 0.5 s.
 */
describe('an UNKNOWN outcome learned later', () => {
  let merchant: TestMerchant;
  let sequence = 0;
  const newOrderId = () => `uk-${Date.now()}-${(sequence += 1)}`;

  beforeAll(async () => {
    merchant = await createMerchant();
  });

  const get = (path: string) => call<Json>('GET', `${merchant.base()}${path}`, { authorization: merchant.authorization });
  const put = (orderId: string, transactionId: string, body: object): Promise<ApiResponse<Json>> =>
    call<Json>('PUT', `${merchant.base()}/order/${orderId}/transaction/${transactionId}`, { authorization: merchant.authorization, body });
  const resolutions = async () => counterTotal(await scrapeMetrics('order-transaction'), 'gateway_unknown_resolutions_total', { source: 'INQUIRY', outcome: 'APPROVED' });

  it('a PAY answered UNKNOWN is retrieved as SUCCESS once the acquirer was asked: captured, and its retry answers it', async () => {
    const orderId = newOrderId();
    const before = await resolutions();
    const request = {
      apiOperation: 'PAY',
      order: { amount: '25.00', currency: 'USD' },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.UNKNOWN, securityCode: '100' } } },
    };
    const paid = await put(orderId, 'p1', request);
    expect(paid.status).toBe(201);
    expect(paid.body).toMatchObject({ result: 'UNKNOWN', response: { gatewayCode: 'UNKNOWN' }, order: { status: 'INITIATED', totalCapturedAmount: 0 } });

    const learned = await waitFor(
      async () => {
        const retrieved = await get(`/order/${orderId}/transaction/p1`);
        return retrieved.body.result === 'SUCCESS' ? retrieved : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 250, what: 'the UNKNOWN payment to be learned' },
    );
    expect(learned.status).toBe(200);
    expect(learned.text).not.toContain(TEST_CARD);
    expect(learned.body).toMatchObject({
      result: 'SUCCESS',
      response: { gatewayCode: 'APPROVED', acquirerCode: '00' },
      order: { status: 'CAPTURED', totalAuthorizedAmount: 25, totalCapturedAmount: 25 },
      transaction: {
        id: 'p1',
        type: 'PAYMENT',
        amount: 25,
        authorizationCode: expect.stringMatching(/^[0-9]{6}$/),
        acquirer: { id: 'TEST_ACQUIRER', transactionId: paid.body.transaction.acquirer.transactionId },
      },
      timeOfRecord: paid.body.timeOfRecord,
    });
    expect((await get(`/order/${orderId}`)).body).toMatchObject({ status: 'CAPTURED', totalCapturedAmount: 25 });
    expect(await resolutions()).toBeGreaterThan(before);

    // The merchant's retry of its PUT learns the outcome too; the payment is refundable.
    const retried = await put(orderId, 'p1', request);
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({ result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } });
    const refunded = await put(orderId, 'r1', { apiOperation: 'REFUND', transaction: { amount: '25.00', currency: 'USD' } });
    expect(refunded.body).toMatchObject({ result: 'SUCCESS', order: { status: 'REFUNDED', totalRefundedAmount: 25 } });
  });
});
