import { JsonObject, SUBJECTS } from '@gateway/contracts';
import { standaloneBus } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { callAs, GatewayResponse, securityCodeCheck, startSessionGateway, TestGateway, TestGatewayMerchant } from './testing/test-gateway';

/**
 * An operation naming a payment session that the owning service refused unprocessed (here nobody
 * serves its subject: NoResponders) used no security code, so the edge gives back the code it
 * took for it (docs/decisions/security-code-used-once.md): the merchant's retry, which the 503
 * invites, carries it to the acquirer. The edge keeps sessions in the run's Redis, the token vault
 * seals their cards, and order-transaction runs VERIFY on the test acquirer (security code 100
 * answers MATCH, none NOT_PRESENT), driven over HTTP.
 */
let gateway: TestGateway;
let merchant: TestGatewayMerchant;

beforeAll(async () => {
  gateway = await startSessionGateway({ name: 'Session codes given back', idPrefix: 'INTGB' });
  merchant = await gateway.newMerchant();
}, 60_000);

afterAll(async () => {
  await gateway?.running.shutdown('tests done');
});

function call(method: string, path: string, body?: JsonObject): Promise<GatewayResponse> {
  return callAs(gateway, merchant, method, path, body);
}

/**
 * Takes the subject's service away (its requests answered NoResponders, as on NATS when no
 * instance subscribes) and gives back the function that brings it back. The in-process bus keeps
 * its routes private: read here, in a test, to put the very same handler back.
 */
function withoutService(subject: string): () => void {
  const handler = standaloneBus['routes'].get(subject);
  if (!handler) {
    throw new Error(`nobody serves ${subject}`);
  }
  standaloneBus.unregister(subject);
  return () => standaloneBus.register(subject, handler);
}

describe('an operation naming a session, refused unprocessed', () => {
  it('leaves the security code in the session: the retry once the service is back sends it to the acquirer, and uses it', async () => {
    const created = await call('POST', '/session', {
      sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED }, securityCode: '100' } } },
    });
    expect(created.status).toBe(201);
    const sessionId = String((created.body.session as JsonObject).id);
    const verify = { apiOperation: 'VERIFY', order: { currency: 'USD' }, session: { id: sessionId }, sourceOfFunds: { type: 'CARD' } };
    const orderId = `gb-${Date.now()}`;

    const bringBack = withoutService(SUBJECTS.orderTransaction.verify);
    let refused: GatewayResponse;
    try {
      refused = await call('PUT', `/order/${orderId}/transaction/t1`, verify);
    } finally {
      bringBack();
    }
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ error: { cause: 'SERVER_BUSY' }, result: 'ERROR' });

    // The merchant retries, as the 503 invites: the payer's code reaches the acquirer.
    const retried = await call('PUT', `/order/${orderId}/transaction/t1`, verify);
    expect(retried.status).toBe(201);
    expect(securityCodeCheck(retried)).toBe('MATCH');

    // That operation used it: the next goes without.
    const next = await call('PUT', `/order/${orderId}-next/transaction/t1`, verify);
    expect(next.status).toBe(201);
    expect(securityCodeCheck(next)).toBe('NOT_PRESENT');
  });
});
