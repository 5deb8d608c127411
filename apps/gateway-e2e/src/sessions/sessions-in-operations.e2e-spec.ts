import { JsonObject } from '@gateway/contracts';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { call, createMerchant, TestMerchant } from '../support/gateway-client';

/**
 * Operations naming a payment session, end to end (spec session rules): VERIFY and REFUND
 * filled from the session with the request's own values winning, and the card completed by the
 * vault explicit > session > token, as the test acquirer's answers show (expiry 05/39 declines,
 * 01/39 approves, 04/27 is EXPIRED_CARD; security code 100 MATCH, 102 NO_MATCH).
 */
describe('operations naming a session', () => {
  let merchant: TestMerchant;
  let sequence = 0;
  const newOrderId = () => `so-${Date.now()}-${(sequence += 1)}`;
  type Json = JsonObject & Record<string, any>;

  beforeAll(async () => {
    merchant = await createMerchant();
  });

  async function session(body: object): Promise<{ id: string; version: string }> {
    const created = await call<Json>('POST', `${merchant.base()}/session`, { authorization: merchant.authorization, body });
    expect(created.status).toBe(201);
    return created.body.session;
  }

  const operation = (body: object, orderId = newOrderId(), transactionId = 't1') =>
    call<Json>('PUT', `${merchant.base()}/order/${orderId}/transaction/${transactionId}`, { authorization: merchant.authorization, body });

  async function tokenWith(expiry: { month: string; year: string }): Promise<string> {
    const created = await call<Json>('POST', `${merchant.base()}/token`, {
      authorization: merchant.authorization,
      body: { sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry } } } },
    });
    expect(created.status).toBe(201);
    return created.body.token;
  }

  it('VERIFY: the session fills the request, the request\'s values win', async () => {
    const { id, version } = await session({
      order: { currency: 'EUR' },
      billing: { address: { street: '1 Main Street', postcodeZip: '12345', country: 'USA' } },
      sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: '102' } } },
    });
    const response = await operation({
      apiOperation: 'VERIFY',
      session: { id, version },
      order: { currency: 'USD' },
      sourceOfFunds: { provided: { card: { securityCode: '100' } } },
    });
    expect(response.status).toBe(201);
    expect(response.text).not.toContain(TEST_CARD);
    expect(response.body).toMatchObject({
      result: 'SUCCESS',
      order: { currency: 'USD', status: 'VERIFIED' },
      response: { gatewayCode: 'APPROVED', cardSecurityCode: { gatewayCode: 'MATCH' } },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', expiry: { month: '1', year: '39' } } } },
    });
  });

  it('completes the card explicit > session > token', async () => {
    const declinedToken = await tokenWith(TEST_EXPIRY.DECLINED);
    const { id } = await session({ sourceOfFunds: { provided: { card: { expiry: TEST_EXPIRY.APPROVED, securityCode: '102' } } } });
    const verify = (card: object) =>
      operation({ apiOperation: 'VERIFY', session: { id }, order: { currency: 'USD' }, sourceOfFunds: { type: 'CARD', token: declinedToken, provided: { card } } });

    // Number from the token, expiry and security code from the session: session over token.
    const sessionOverToken = await verify({});
    expect(sessionOverToken.body).toMatchObject({ response: { gatewayCode: 'APPROVED', cardSecurityCode: { gatewayCode: 'NO_MATCH' } } });
    // The request's own expiry and security code over the session's.
    const explicitOverSession = await verify({ expiry: TEST_EXPIRY.EXPIRED_CARD, securityCode: '100' });
    expect(explicitOverSession.body).toMatchObject({ response: { gatewayCode: 'EXPIRED_CARD', cardSecurityCode: { gatewayCode: 'MATCH' } } });
  });

  it("completes a request's whole card with the session's security code, and keeps a session code the request overrode", async () => {
    const { id } = await session({ sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: '102' } } } });
    const verify = (card: object) =>
      operation({ apiOperation: 'VERIFY', session: { id }, order: { currency: 'USD' }, sourceOfFunds: { type: 'CARD', provided: { card } } });
    const whole = { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED };

    // The request's own code wins, and the session's, unused, stays for the next operation.
    expect((await verify({ ...whole, securityCode: '100' })).body).toMatchObject({ response: { cardSecurityCode: { gatewayCode: 'MATCH' } } });
    // A whole card without a code takes the session's (102: NO_MATCH), which is then used up.
    expect((await verify(whole)).body).toMatchObject({ response: { gatewayCode: 'APPROVED', cardSecurityCode: { gatewayCode: 'NO_MATCH' } } });
    expect((await verify(whole)).body).toMatchObject({ response: { gatewayCode: 'APPROVED', cardSecurityCode: { gatewayCode: 'NOT_PRESENT' } } });
  });

  it("PAY with a whole card in the request takes the session's security code too", async () => {
    const { id } = await session({ sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: '102' } } } });
    const paid = await operation({
      apiOperation: 'PAY',
      session: { id },
      order: { amount: '10.00', currency: 'USD' },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } },
    });
    expect(paid.status).toBe(201);
    expect(paid.body).toMatchObject({ result: 'SUCCESS', response: { cardSecurityCode: { gatewayCode: 'NO_MATCH' } } });
  });

  it('forgets the session\'s security code once an operation used it, keeping the card and the version', async () => {
    // PCI DSS keeps no security code after the authorisation that used it (docs/card-custody.md).
    const { id, version } = await session({
      sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: '100' } } },
    });
    const verify = () => operation({ apiOperation: 'VERIFY', session: { id }, order: { currency: 'USD' }, sourceOfFunds: { type: 'CARD' } });
    expect((await verify()).body).toMatchObject({ response: { gatewayCode: 'APPROVED', cardSecurityCode: { gatewayCode: 'MATCH' } } });
    // The card is still there for the next operation, without the code.
    expect((await verify()).body).toMatchObject({ response: { gatewayCode: 'APPROVED', cardSecurityCode: { gatewayCode: 'NOT_PRESENT' } } });
    // The version the merchant holds is still good: the payer enters a code again.
    const updated = await call<Json>('PUT', `${merchant.base()}/session/${id}`, {
      authorization: merchant.authorization,
      body: { session: { version }, sourceOfFunds: { provided: { card: { securityCode: '102' } } } },
    });
    expect(updated.status).toBe(200);
    expect((await verify()).body).toMatchObject({ response: { gatewayCode: 'APPROVED', cardSecurityCode: { gatewayCode: 'NO_MATCH' } } });
  });

  describe('TOKEN from the session\'s card, and the session\'s security code', () => {
    const saveToken = (body: object) => call<Json>('POST', `${merchant.base(57)}/token`, { authorization: merchant.authorization, body });
    const verify = (id: string) => operation({ apiOperation: 'VERIFY', session: { id }, order: { currency: 'USD' }, sourceOfFunds: { type: 'CARD' } });
    const withCode = (securityCode: string) =>
      session({ sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode } } } });

    it('ACQUIRER verifies the card with the session\'s security code, which is then used up', async () => {
      const { id } = await withCode('102');
      const saved = await saveToken({ session: { id }, sourceOfFunds: { type: 'CARD' }, verificationStrategy: 'ACQUIRER', transaction: { currency: 'USD' } });
      expect(saved.status).toBe(201);
      // 102 is NO_MATCH at the test acquirer: a card whose code the issuer rejected is not stored.
      expect(saved.body).toMatchObject({ result: 'FAILURE', verificationStrategy: 'ACQUIRER', response: { gatewayCode: 'EXTERNAL_VERIFICATION_DECLINED_INVALID_CSC' } });
      expect(saved.text).not.toContain(TEST_CARD);
      expect((await verify(id)).body).toMatchObject({ response: { gatewayCode: 'APPROVED', cardSecurityCode: { gatewayCode: 'NOT_PRESENT' } } });

      const matched = await withCode('100');
      expect((await saveToken({ session: { id: matched.id }, sourceOfFunds: { type: 'CARD' }, verificationStrategy: 'ACQUIRER', transaction: { currency: 'USD' } })).body).toMatchObject({
        result: 'SUCCESS',
        response: { gatewayCode: 'EXTERNAL_VERIFICATION_SUCCESSFUL' },
        sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008', expiry: '0139' } } },
      });
    });

    it('NONE and BASIC use no security code: the session keeps it for the payment, and BASIC takes the session\'s expiry', async () => {
      const { id } = await withCode('102');
      // NONE, the profile's default.
      expect((await saveToken({ session: { id }, sourceOfFunds: { type: 'CARD' } })).body).toMatchObject({
        result: 'SUCCESS',
        response: { gatewayCode: 'NO_VERIFICATION_PERFORMED' },
      });
      // BASIC, requested: the expiry is the session's (token rule 9), as it is with BASIC the profile's default.
      const basic = await saveToken({ session: { id }, sourceOfFunds: { type: 'CARD' }, verificationStrategy: 'BASIC' });
      expect(basic.status).toBe(201);
      expect(basic.body).toMatchObject({
        result: 'SUCCESS',
        verificationStrategy: 'BASIC',
        response: { gatewayCode: 'BASIC_VERIFICATION_SUCCESSFUL' },
        sourceOfFunds: { provided: { card: { expiry: '0139' } } },
      });
      // The code reaches the acquirer with the first operation that presents the card.
      expect((await verify(id)).body).toMatchObject({ response: { gatewayCode: 'APPROVED', cardSecurityCode: { gatewayCode: 'NO_MATCH' } } });
      expect((await verify(id)).body).toMatchObject({ response: { gatewayCode: 'APPROVED', cardSecurityCode: { gatewayCode: 'NOT_PRESENT' } } });
    });

    it('BASIC still needs an expiry from the request or the session', async () => {
      const { id } = await session({ sourceOfFunds: { provided: { card: { number: TEST_CARD } } } });
      const refused = await saveToken({ session: { id }, sourceOfFunds: { type: 'CARD' }, verificationStrategy: 'BASIC' });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: { cause: 'INVALID_REQUEST', field: 'sourceOfFunds.provided.card.expiry', validationType: 'MISSING' } });
    });
  });

  it('refuses a combination that is not a complete card, naming what is missing', async () => {
    const { id } = await session({ sourceOfFunds: { provided: { card: { expiry: TEST_EXPIRY.APPROVED } } } });
    const response = await operation({ apiOperation: 'VERIFY', session: { id }, order: { currency: 'USD' }, sourceOfFunds: { type: 'CARD' } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { cause: 'INVALID_REQUEST', field: 'sourceOfFunds.provided.card.number', validationType: 'MISSING' } });
  });

  it('REFUND: the session fills the request, the request\'s amount wins', async () => {
    const { id } = await session({ transaction: { amount: '9.00', currency: 'USD', reference: 'from-session' } });
    const response = await call<Json>('PUT', `${merchant.base(29)}/order/${newOrderId()}/transaction/r1`, {
      authorization: merchant.authorization,
      body: {
        apiOperation: 'REFUND',
        session: { id },
        transaction: { amount: '4.00' },
        sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } },
      },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      result: 'SUCCESS',
      order: { status: 'REFUNDED', totalRefundedAmount: 4, currency: 'USD' },
      transaction: { type: 'REFUND', amount: 4, currency: 'USD', reference: 'from-session' },
    });
  });

  it('REFUND (standalone, to the session\'s card): the vault completes the card from the session', async () => {
    const { id } = await session({
      transaction: { amount: '9.00', currency: 'USD', reference: 'from-session' },
      sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } },
    });
    const response = await call<Json>('PUT', `${merchant.base(29)}/order/${newOrderId()}/transaction/r1`, {
      authorization: merchant.authorization,
      body: { apiOperation: 'REFUND', session: { id }, transaction: { amount: '4.00' } },
    });
    expect(response.status).toBe(201);
    expect(response.text).not.toContain(TEST_CARD);
    expect(response.body).toMatchObject({
      result: 'SUCCESS',
      order: { status: 'REFUNDED', totalRefundedAmount: 4 },
      transaction: { type: 'REFUND', amount: 4, currency: 'USD' },
      sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } },
    });
  });

  it('TOKEN (create from the session\'s card): the vault stores the session\'s card, the request\'s expiry winning', async () => {
    const { id } = await session({
      sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } },
    });
    const created = await call<Json>('POST', `${merchant.base(57)}/token`, {
      authorization: merchant.authorization,
      body: { session: { id }, sourceOfFunds: { type: 'CARD', provided: { card: { expiry: { month: '12', year: '39' } } } } },
    });
    expect(created.status).toBe(201);
    expect(created.text).not.toContain(TEST_CARD);
    expect(created.body).toMatchObject({
      result: 'SUCCESS',
      sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008', expiry: '1239' } } },
    });
    const stored = await call<Json>('GET', `${merchant.base(57)}/token/${created.body.token}`, { authorization: merchant.authorization });
    expect(stored.body).toMatchObject({ sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008', expiry: '1239' } } } });
  });
});
