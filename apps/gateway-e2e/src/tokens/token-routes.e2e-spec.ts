import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { call, createMerchant, TestMerchant } from '../support/gateway-client';

/**
 * The token routes through the edge to the vault and back (issue 5 phase 1: wiring). The
 * strategy-by-strategy HTTP tests come with request validation in phase 2.
 */
describe('token routes', () => {
  let merchant: TestMerchant;
  const card = (expiry: { month: string; year: string }) => ({
    sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry } } },
  });

  beforeAll(async () => {
    merchant = await createMerchant({ 'tokenRepository.generation': 'RANDOM', 'tokenRepository.management': 'UNIQUE_CARD' });
  });

  it('creates with POST, retrieves with GET, updates with PUT and deletes with DELETE', async () => {
    const auth = { authorization: merchant.authorization };
    const created = await call('POST', `${merchant.base(57)}/token`, { ...auth, body: { ...card(TEST_EXPIRY.APPROVED), correlationId: 'c-1' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      merchant: merchant.id,
      version: '57',
      correlationId: 'c-1',
      result: 'SUCCESS',
      // Each merchant gets a repository of its own: `Test` + 12 digits.
      repositoryId: expect.stringMatching(/^Test[0-9]{12}$/),
      status: 'VALID',
      sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008', expiry: '0139', brand: 'MASTERCARD', fundingMethod: 'CREDIT' } } },
      response: { gatewayCode: 'NO_VERIFICATION_PERFORMED' },
    });
    expect(created.text).not.toContain(TEST_CARD);
    const token = created.body.token as string;
    expect(token).toMatch(/^9[0-9]{15}$/);

    const again = await call('POST', `${merchant.base(57)}/token`, { ...auth, body: card(TEST_EXPIRY.DECLINED) });
    expect(again.body).toMatchObject({ token, sourceOfFunds: { provided: { card: { expiry: '0539' } } } });

    const updated = await call('PUT', `${merchant.base(57)}/token/${token}`, { ...auth, body: card(TEST_EXPIRY.APPROVED) });
    expect(updated.status).toBe(201);
    expect(updated.body).toMatchObject({ token, sourceOfFunds: { provided: { card: { expiry: '0139' } } } });

    const retrieved = await call('GET', `${merchant.base(57)}/token/${token}`, auth);
    expect(retrieved.status).toBe(200);
    expect(retrieved.body).toMatchObject({ token, result: 'SUCCESS', merchant: merchant.id });

    const deleted = await call('DELETE', `${merchant.base(57)}/token/${token}`, auth);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ merchant: merchant.id, result: 'SUCCESS', version: '57' });

    const gone = await call('GET', `${merchant.base(57)}/token/${token}`, auth);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ error: { cause: 'INVALID_REQUEST' }, result: 'ERROR' });
  });

  it('answers PUT to an unknown token of a Random repository with 400', async () => {
    const response = await call('PUT', `${merchant.base(57)}/token/9000000000000001`, { authorization: merchant.authorization, body: card(TEST_EXPIRY.APPROVED) });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { cause: 'INVALID_REQUEST' }, result: 'ERROR' });
  });

  it('masks a card number given as the token id in the errors that quote it (GET, DELETE, PUT)', async () => {
    const auth = { authorization: merchant.authorization };
    const answers = [
      await call('GET', `${merchant.base(57)}/token/${TEST_CARD}`, auth),
      await call('DELETE', `${merchant.base(57)}/token/${TEST_CARD}`, auth),
      await call('PUT', `${merchant.base(57)}/token/${TEST_CARD}`, { ...auth, body: card(TEST_EXPIRY.APPROVED) }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 400]);
    for (const answer of answers) {
      expect(answer.body).toMatchObject({ error: { cause: 'INVALID_REQUEST', explanation: expect.stringContaining("Token '512345xxxxxx0008' does not exist") } });
      expect(answer.text).not.toContain(TEST_CARD);
    }
  });

  it('answers other methods on the token paths with 405 and an Allow header', async () => {
    const response = await call('PATCH', `${merchant.base(57)}/token/abc`, { authorization: merchant.authorization, body: {} });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('PUT, GET, DELETE');
    const collection = await call('GET', `${merchant.base(57)}/token`, { authorization: merchant.authorization });
    expect(collection.status).toBe(405);
    expect(collection.headers.get('allow')).toBe('POST');
  });
});
