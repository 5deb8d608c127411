import { JsonObject } from '@gateway/contracts';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { callAs, GatewayResponse, securityCodeCheck, startSessionGateway, TestGateway, TestGatewayMerchant } from './testing/test-gateway';

/**
 * A replay of an operation that named a payment session (docs/decisions/security-code-used-once.md):
 * the ledger answers it from the stored response and calls no acquirer, so it must not take the
 * session's security code. The edge keeps sessions in the run's Redis, the token vault seals
 * their cards, and order-transaction runs VERIFY and PAY on the test acquirer (security code 100
 * answers MATCH, 102 NO_MATCH, none NOT_PRESENT), driven over HTTP.
 */
let gateway: TestGateway;
let merchant: TestGatewayMerchant;

beforeAll(async () => {
  gateway = await startSessionGateway({ name: 'Session replays', idPrefix: 'INTRP' });
  merchant = await gateway.newMerchant();
}, 60_000);

afterAll(async () => {
  await gateway?.running.shutdown('tests done');
});

function call(method: string, path: string, body?: JsonObject): Promise<GatewayResponse> {
  return callAs(gateway, merchant, method, path, body);
}

describe('a replay of an operation naming a session', () => {
  it('leaves a security code the payer entered since in the session, for the next operation to send', async () => {
    const created = await call('POST', '/session', {
      sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED }, securityCode: '100' } } },
    });
    expect(created.status).toBe(201);
    const sessionId = String((created.body.session as JsonObject).id);
    const verify = { apiOperation: 'VERIFY', order: { currency: 'USD' }, session: { id: sessionId }, sourceOfFunds: { type: 'CARD' } };
    const orderId = `rp-${Date.now()}`;

    const first = await call('PUT', `/order/${orderId}/transaction/t1`, verify);
    expect(first.status).toBe(201);
    expect(securityCodeCheck(first)).toBe('MATCH');

    // The payer enters a new code for the next payment.
    const updated = await call('PUT', `/session/${sessionId}`, { sourceOfFunds: { provided: { card: { securityCode: '102' } } } });
    expect(updated.status).toBe(200);

    // The merchant replays the VERIFY: the stored answer, and no acquirer call.
    const replayed = await call('PUT', `/order/${orderId}/transaction/t1`, verify);
    expect(replayed.status).toBe(201);
    expect(securityCodeCheck(replayed)).toBe('MATCH');
    expect((replayed.body.transaction as JsonObject).id).toBe('t1');

    // The payer's next real payment goes with the new code (NO_MATCH at the test acquirer), not without it.
    const paid = await call('PUT', `/order/${orderId}-pay/transaction/p1`, {
      apiOperation: 'PAY',
      order: { amount: '10.00', currency: 'USD' },
      session: { id: sessionId },
      sourceOfFunds: { type: 'CARD' },
    });
    expect(paid.status).toBe(201);
    expect(securityCodeCheck(paid)).toBe('NO_MATCH');

    // That payment used it: the one after goes without.
    const after = await call('PUT', `/order/${orderId}-next/transaction/t1`, verify);
    expect(securityCodeCheck(after)).toBe('NOT_PRESENT');
  });
});
