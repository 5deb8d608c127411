import { TEST_CARD, TEST_CARD_NUMBERS, TEST_EXPIRY } from '@gateway/testing';
import { call, createMerchant, TestMerchant } from '../support/gateway-client';

/**
 * Payment sessions over HTTP in the running gateway (docs/sessions.md), card details sealed by
 * the real token vault: create, update twice (a new version each time), retrieve with the card
 * masked, and the refusals that happen before any operation runs.
 */
describe('payment sessions', () => {
  let merchant: TestMerchant;
  let other: TestMerchant;

  beforeAll(async () => {
    merchant = await createMerchant();
    other = await createMerchant();
  });

  type SessionBody = { session: { id: string; version: string; updateStatus: string } } & Record<string, unknown>;
  const create = async (who: TestMerchant = merchant) => {
    const response = await call<SessionBody>('POST', `${who.base()}/session`, { authorization: who.authorization });
    expect(response.status).toBe(201);
    return response.body.session;
  };
  const update = (id: string, body: object, who: TestMerchant = merchant) =>
    call<SessionBody>('PUT', `${who.base()}/session/${id}`, { authorization: who.authorization, body });
  const retrieve = (id: string, who: TestMerchant = merchant) => call<SessionBody>('GET', `${who.base()}/session/${id}`, { authorization: who.authorization });

  it('is created empty, updated twice with a new version each time, and retrieved with its card masked', async () => {
    const created = await create();
    expect(created).toEqual({ id: expect.stringMatching(/^[\x21-\x7e]{31,35}$/), updateStatus: 'NO_UPDATE', version: expect.stringMatching(/^[0-9a-f]{10}$/) });

    const first = await update(created.id, {
      order: { amount: '25.00', currency: 'USD' },
      sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } },
    });
    const second = await update(created.id, { customer: { email: 'payer@example.com' }, sourceOfFunds: { provided: { card: { securityCode: '100' } } } });
    expect([first.status, second.status]).toEqual([200, 200]);
    const versions = [created.version, first.body.session.version, second.body.session.version];
    expect(new Set(versions).size).toBe(3);

    const retrieved = await retrieve(created.id);
    expect(retrieved.status).toBe(200);
    expect(retrieved.body).toMatchObject({
      customer: { email: 'payer@example.com' },
      order: { amount: 25, currency: 'USD' },
      session: { id: created.id, updateStatus: 'SUCCESS', version: versions[2] },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', expiry: { month: '1', year: '39' } } } },
    });
    for (const pan of TEST_CARD_NUMBERS) {
      expect(retrieved.text).not.toContain(pan);
    }
    expect(retrieved.text).not.toContain('securityCode');
  });

  it('refuses an update from a stale version (400 on session.version)', async () => {
    const created = await create();
    const stale = await update(created.id, { session: { version: 'ffffffffff' }, order: { currency: 'EUR' } });
    expect(stale.status).toBe(400);
    expect(stale.body).toMatchObject({ error: { cause: 'INVALID_REQUEST', field: 'session.version', validationType: 'INVALID' }, result: 'ERROR' });
    expect((await update(created.id, { session: { version: created.version }, order: { currency: 'EUR' } })).status).toBe(200);
  });

  it("does not exist for another merchant", async () => {
    const created = await create();
    await update(created.id, { sourceOfFunds: { provided: { card: { number: TEST_CARD } } } });
    expect((await retrieve(created.id, other)).status).toBe(404);
    expect((await update(created.id, { order: { currency: 'EUR' } }, other)).status).toBe(404);
  });

  it.each([
    ['a stale session.version', 'session.version'],
    ["another merchant's session", 'session.id'],
    ['an unknown session', 'session.id'],
  ])('refuses an operation naming %s (400 INVALID_REQUEST on %s)', async (what, field) => {
    const mine = await create();
    const reference =
      what === 'a stale session.version'
        ? { id: mine.id, version: 'ffffffffff' }
        : what === "another merchant's session"
          ? { id: (await create(other)).id }
          : { id: `SESSION0002${'Q'.repeat(21)}` };
    const response = await call('PUT', `${merchant.base()}/order/s-${Date.now()}/transaction/v1`, {
      authorization: merchant.authorization,
      body: { apiOperation: 'VERIFY', session: reference, order: { currency: 'USD' }, sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } } },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: { cause: 'INVALID_REQUEST', explanation: expect.any(String), field, validationType: 'INVALID' }, result: 'ERROR' });
  });
});
