import { randomBytes } from 'node:crypto';
import { JsonObject } from '@gateway/contracts';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import {
  callAs,
  GatewayResponse,
  startSessionGateway,
  TestGateway,
  TestGatewayMerchant,
} from './testing/test-gateway';

/**
 * A refund of a payment naming the payment session the payment was made with. The session's card
 * details gave it `sourceOfFunds.type` CARD (docs/sessions.md), which fills the refund as any
 * session value does; a linked refund goes to the source of the refunded payment and takes no
 * sourceOfFunds, so that value alone must not refuse it (docs/decisions/payment-sessions.md,
 * amendment of 2026-11-27). The edge keeps sessions in the run's Redis, the token vault seals
 * their cards, and order-transaction runs PAY and REFUND on the test acquirer, driven over HTTP.
 */
let gateway: TestGateway;
let merchant: TestGatewayMerchant;

beforeAll(async () => {
  gateway = await startSessionGateway({ name: 'Session linked refunds', idPrefix: 'INTLR' });
  merchant = await gateway.newMerchant();
}, 60_000);

afterAll(async () => {
  await gateway?.running.shutdown('tests done');
});

function call(method: string, path: string, body?: JsonObject): Promise<GatewayResponse> {
  return callAs(gateway, merchant, method, path, body);
}

async function paidWithSession(): Promise<{ sessionId: string; orderId: string }> {
  const created = await call('POST', '/session', {
    order: { amount: '10.00', currency: 'USD' },
    sourceOfFunds: {
      provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED }, securityCode: '100' } },
    },
  });
  expect(created.status).toBe(201);
  const sessionId = String((created.body.session as JsonObject).id);
  const orderId = `lr-${randomBytes(5).toString('hex')}`;
  const paid = await call('PUT', `/order/${orderId}/transaction/p1`, {
    apiOperation: 'PAY',
    session: { id: sessionId },
    sourceOfFunds: { type: 'CARD' },
  });
  expect(paid.status).toBe(201);
  expect(paid.body.result).toBe('SUCCESS');
  return { sessionId, orderId };
}

describe('a refund of a payment, naming the session that paid it', () => {
  it("refunds the payment: the CARD type the session's card gave it does not make it a refund to another card", async () => {
    const { sessionId, orderId } = await paidWithSession();
    const refund = await call('PUT', `/order/${orderId}/transaction/r1`, {
      apiOperation: 'REFUND',
      session: { id: sessionId },
      transaction: { amount: '4.00', currency: 'USD' },
    });
    expect(refund.status).toBe(201);
    expect(refund.body).toMatchObject({
      result: 'SUCCESS',
      order: { id: orderId, totalRefundedAmount: 4, totalCapturedAmount: 10 },
      transaction: { id: 'r1', type: 'REFUND', amount: 4, currency: 'USD' },
    });
  });

  it('is still refused when the request itself names a card to refund to (UNSUPPORTED sourceOfFunds)', async () => {
    const { sessionId, orderId } = await paidWithSession();
    const refund = await call('PUT', `/order/${orderId}/transaction/r1`, {
      apiOperation: 'REFUND',
      session: { id: sessionId },
      transaction: { amount: '4.00', currency: 'USD' },
      sourceOfFunds: {
        type: 'CARD',
        provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED } } },
      },
    });
    expect(refund.status).toBe(400);
    expect(refund.body.error).toMatchObject({
      cause: 'INVALID_REQUEST',
      field: 'sourceOfFunds',
      validationType: 'UNSUPPORTED',
    });
  });
});
