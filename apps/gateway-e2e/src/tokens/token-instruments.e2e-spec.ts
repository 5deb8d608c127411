import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { call, createMerchant, TestMerchant } from '../support/gateway-client';

/**
 * Issue 5, "Must show": the instruments beyond a plain card, end to end over HTTP against the
 * built-in simulators: provider_a billing agreements (token rule 5), push provisioning (rule 8)
 * and scheme tokenization (rule 6) with the token service provider simulator
 * (docs/token-service-provider-simulator.md).
 */

type Body = Record<string, unknown>;

const agreement = (id: string, cardinality: 'SINGLE' | 'MULTIPLE', extra: Body = {}): Body => ({
  sourceOfFunds: {
    type: 'PROVIDER_A',
    provided: { provider_a: { accountEmail: 'payer@example.com', accountHolder: 'A Payer', billingAgreement: { id, cardinality, name: 'Monthly box' } } },
  },
  ...extra,
});
const shipping = { address: { street: '7 Shipwright Row', city: 'Dover', postcodeZip: 'CT16 1AA', country: 'GBR' }, contact: { firstName: 'Ada', lastName: 'Payer' } };
const card = (extra: Body = {}): Body => ({ sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, ...extra } } } });

function client(merchant: TestMerchant) {
  const auth = { authorization: merchant.authorization };
  return {
    post: (body: Body) => call('POST', `${merchant.base(57)}/token`, { ...auth, body }),
    put: (token: string, body: Body) => call('PUT', `${merchant.base(57)}/token/${token}`, { ...auth, body }),
    get: (token: string) => call('GET', `${merchant.base(57)}/token/${token}`, auth),
  };
}

describe('provider_a billing agreement tokens', () => {
  it('stores the agreement with its shipping details, and returns them', async () => {
    const api = client(await createMerchant({ 'tokenRepository.generation': 'RANDOM' }));
    const saved = await api.post(agreement('BA-E2E-1', 'MULTIPLE', { shipping }));
    expect(saved.status).toBe(201);
    expect(saved.body).toMatchObject({
      result: 'SUCCESS',
      verificationStrategy: 'NONE',
      sourceOfFunds: { type: 'PROVIDER_A', provided: { provider_a: { accountEmail: 'payer@example.com', billingAgreement: { id: 'BA-E2E-1', cardinality: 'MULTIPLE' } } } },
      shipping,
    });
    const token = saved.body.token as string;
    expect(token).toMatch(/^9[0-9]{15}$/);
    expect((await api.get(token)).body).toMatchObject({ shipping, sourceOfFunds: { provided: { provider_a: { billingAgreement: { id: 'BA-E2E-1', name: 'Monthly box' } } } } });
  });

  it('ignores shipping details on a card token', async () => {
    const api = client(await createMerchant());
    const saved = await api.post({ ...card(), shipping });
    expect(saved.body).toMatchObject({ result: 'SUCCESS' });
    expect(saved.body.shipping).toBeUndefined();
    expect((await api.get(saved.body.token as string)).body.shipping).toBeUndefined();
  });

  it('refuses provider_a details without a billing agreement', async () => {
    const api = client(await createMerchant());
    const saved = await api.post({ sourceOfFunds: { type: 'PROVIDER_A', provided: { provider_a: { accountEmail: 'payer@example.com' } } } });
    expect(saved.status).toBe(400);
    expect(saved.body).toMatchObject({ error: { field: 'sourceOfFunds.provided.provider_a.billingAgreement', validationType: 'MISSING' } });
  });

  it('replaces a MULTIPLE agreement id on update and keeps a SINGLE one', async () => {
    const api = client(await createMerchant({ 'tokenRepository.generation': 'MERCHANT_SUPPLIED' }));
    await api.put('multiple', agreement('BA-M-1', 'MULTIPLE'));
    expect((await api.put('multiple', agreement('BA-M-2', 'MULTIPLE'))).body).toMatchObject({
      result: 'SUCCESS',
      sourceOfFunds: { provided: { provider_a: { billingAgreement: { id: 'BA-M-2' } } } },
    });
    await api.put('single', agreement('BA-S-1', 'SINGLE'));
    const changed = await api.put('single', agreement('BA-S-2', 'SINGLE'));
    expect(changed.status).toBe(400);
    expect(changed.body).toMatchObject({ error: { field: 'sourceOfFunds.provided.provider_a.billingAgreement.id', validationType: 'INVALID' } });
  });

  it('lets the agreement id change under Preserve 6.4, where a card number may not', async () => {
    const api = client(await createMerchant({ 'tokenRepository.generation': 'PRESERVE_6_4' }));
    const token = (await api.post(agreement('BA-P-1', 'MULTIPLE'))).body.token as string;
    expect(token).toMatch(/^9[0-9]{15}$/);
    expect((await api.put(token, agreement('BA-P-2', 'MULTIPLE'))).body).toMatchObject({ result: 'SUCCESS' });
  });

  it('keeps one token per agreement id under Unique Account Identifier', async () => {
    const api = client(await createMerchant({ 'tokenRepository.generation': 'RANDOM', 'tokenRepository.management': 'UNIQUE_ACCOUNT_IDENTIFIER' }));
    const first = (await api.post(agreement('BA-U-1', 'MULTIPLE'))).body.token as string;
    expect((await api.post(agreement('BA-U-1', 'MULTIPLE', { shipping }))).body).toMatchObject({ token: first, shipping });
    const other = (await api.post(agreement('BA-U-2', 'MULTIPLE'))).body.token as string;
    const moved = await api.put(other, agreement('BA-U-1', 'MULTIPLE'));
    expect(moved.status).toBe(400);
    expect(moved.body).toMatchObject({ error: { field: 'sourceOfFunds.provided.provider_a.billingAgreement.id', validationType: 'INVALID' } });
  });
});

describe('push provisioning (token service provider simulator)', () => {
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    api = client(await createMerchant({ 'tokenRepository.generation': 'RANDOM' }));
  });

  it('stores the card and scheme token the provider returns for a provisioning identifier', async () => {
    const saved = await api.post({ sourceOfFunds: { type: 'CARD', schemeTokenProvisioningIdentifier: 'ISSUER-REF-E2E' } });
    expect(saved.status).toBe(201);
    expect(saved.body).toMatchObject({
      result: 'SUCCESS',
      response: { gatewayCode: 'SCHEME_TOKENIZATION_SUCCESSFUL' },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', expiry: '0139', brand: 'MASTERCARD' } } },
    });
    expect((await api.get(saved.body.token as string)).status).toBe(200);
  });

  it.each([
    ['SUCCESSFUL_ADDITIONAL_AUTHENTICATION_REQUIRED', 'SUCCESS', 'SCHEME_TOKENIZATION_SUCCESSFUL_ADDITIONAL_AUTHENTICATION_REQUIRED'],
    ['DECLINED', 'FAILURE', 'SCHEME_TOKENIZATION_DECLINED'],
    ['ERROR', 'FAILURE', 'SCHEME_TOKENIZATION_ERROR'],
  ])('answers the provider outcome %s as result %s with %s', async (identifier, result, gatewayCode) => {
    const saved = await api.post({ sourceOfFunds: { type: 'CARD', schemeTokenProvisioningIdentifier: identifier } });
    expect(saved.status).toBe(201);
    expect(saved.body).toMatchObject({ result, response: { gatewayCode } });
    expect(saved.body.token === undefined).toBe(result === 'FAILURE');
  });

  it('refuses card details beside a provisioning identifier', async () => {
    const saved = await api.post({ sourceOfFunds: { type: 'CARD', schemeTokenProvisioningIdentifier: 'ISSUER-REF-E2E', provided: { card: { number: TEST_CARD } } } });
    expect(saved.status).toBe(400);
    expect(saved.body).toMatchObject({ error: { field: 'sourceOfFunds.provided.card', validationType: 'UNSUPPORTED' } });
    expect(saved.text).not.toContain(TEST_CARD);
  });
});

describe('scheme tokenization (repository configured for it)', () => {
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    api = client(await createMerchant({ 'tokenRepository.generation': 'MERCHANT_SUPPLIED', 'tokenRepository.schemeTokenization': true }));
  });

  it.each([
    ['no name on card', 'schemeOk', undefined, 'SCHEME_TOKENIZATION_SUCCESSFUL'],
    ['SUCCESSFUL_ADDITIONAL_AUTHENTICATION_REQUIRED', 'schemeAuth', 'SUCCESSFUL_ADDITIONAL_AUTHENTICATION_REQUIRED', 'SCHEME_TOKENIZATION_SUCCESSFUL_ADDITIONAL_AUTHENTICATION_REQUIRED'],
    ['DECLINED', 'schemeDeclined', 'DECLINED', 'SCHEME_TOKENIZATION_DECLINED'],
    ['ERROR', 'schemeError', 'ERROR', 'SCHEME_TOKENIZATION_ERROR'],
  ])('stores the gateway token whatever the provider answers (%s): %s', async (_what, token, nameOnCard, gatewayCode) => {
    const saved = await api.put(token, card(nameOnCard ? { nameOnCard } : {}));
    expect(saved.status).toBe(201);
    expect(saved.body).toMatchObject({ result: 'SUCCESS', token, response: { gatewayCode } });
    // Name on card goes to the token service provider only (token rule 7).
    const stored = await api.get(token);
    expect(stored.status).toBe(200);
    expect(stored.text).not.toContain('nameOnCard');
  });

  it('keeps the scheme token of an unchanged card on update, and tokenizes again after a failure', async () => {
    // No tokenization this time: the response reports the verification instead.
    expect((await api.put('schemeOk', card())).body).toMatchObject({ response: { gatewayCode: 'NO_VERIFICATION_PERFORMED' } });
    expect((await api.put('schemeDeclined', card())).body).toMatchObject({ response: { gatewayCode: 'SCHEME_TOKENIZATION_SUCCESSFUL' } });
  });
});
