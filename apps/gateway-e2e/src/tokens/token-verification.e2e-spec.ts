import { TEST_CARD, TEST_CARD_LUHN_FAILURE, TEST_CARD_UNKNOWN_BIN, TEST_EXPIRY } from '@gateway/testing';
import { call, createMerchant, readState, TestMerchant } from '../support/gateway-client';
import { acquirerCalls } from '../support/metrics';

/**
 * Issue 5, "Must show": the verification strategies of create or update token over HTTP (spec
 * token rule 9): NONE, BASIC (number syntax, Luhn, BIN range) and ACQUIRER (the test acquirer's
 * magic expiries and security codes, docs/test-acquirer.md, mapped to EXTERNAL_VERIFICATION_*
 * codes, docs/decisions/token-vault-acquirer-verification.md). A failed verification answers 201
 * with result FAILURE and stores nothing.
 */

type Body = Record<string, unknown>;
type Expiry = { month: string; year: string };

const card = (number: string, expiry?: Expiry, extra: Body = {}): Body => ({
  sourceOfFunds: { type: 'CARD', provided: { card: { number, ...(expiry ? { expiry } : {}), ...extra } } },
});
const acquirer = { verificationStrategy: 'ACQUIRER', transaction: { currency: 'USD' } };

describe('token verification strategies', () => {
  let merchant: TestMerchant;
  const put = (token: string, body: Body) => call('PUT', `${merchant.base(57)}/token/${token}`, { authorization: merchant.authorization, body });
  const get = (token: string) => call('GET', `${merchant.base(57)}/token/${token}`, { authorization: merchant.authorization });

  beforeAll(async () => {
    // Merchant-supplied tokens: a failed save can be shown to have stored nothing under its id.
    merchant = await createMerchant({ 'tokenRepository.generation': 'MERCHANT_SUPPLIED', 'tokenRepository.management': 'UNIQUE_TOKEN' });
  });

  describe('NONE', () => {
    it('stores the card without verifying it, even one in no known range', async () => {
      const saved = await put('noneUnknownBin', card(TEST_CARD_UNKNOWN_BIN, TEST_EXPIRY.APPROVED));
      expect(saved.status).toBe(201);
      expect(saved.body).toMatchObject({ result: 'SUCCESS', verificationStrategy: 'NONE', response: { gatewayCode: 'NO_VERIFICATION_PERFORMED' } });
      expect((await get('noneUnknownBin')).status).toBe(200);
    });
  });

  describe('a number failing Luhn', () => {
    // Not a card number: refused as the field's value under every strategy, before any of them
    // runs (docs/decisions/card-number-check-digit.md), where BASIC used to answer FAILURE and
    // NONE stored it.
    it.each(['NONE', 'BASIC', 'ACQUIRER'])('is a 400 on the number under %s, nothing stored, no acquirer call', async (strategy) => {
      const token = `luhn${strategy}`;
      const calls = async () => [await acquirerCalls('verification'), await acquirerCalls('token-vault')];
      const before = await calls();
      const saved = await put(token, { ...card(TEST_CARD_LUHN_FAILURE, TEST_EXPIRY.APPROVED), ...acquirer, verificationStrategy: strategy });
      expect(saved.status).toBe(400);
      expect(saved.body).toEqual({
        error: { cause: 'INVALID_REQUEST', explanation: expect.any(String), field: 'sourceOfFunds.provided.card.number', validationType: 'INVALID' },
        result: 'ERROR',
      });
      expect(saved.text).not.toContain(TEST_CARD_LUHN_FAILURE);
      expect((await get(token)).status).toBe(404);
      expect(await calls()).toEqual(before);
    });
  });

  describe('BASIC', () => {
    it('accepts a valid number in a known range', async () => {
      const saved = await put('basicValid', { ...card(TEST_CARD, TEST_EXPIRY.APPROVED), verificationStrategy: 'BASIC' });
      expect(saved.body).toMatchObject({ result: 'SUCCESS', verificationStrategy: 'BASIC', response: { gatewayCode: 'BASIC_VERIFICATION_SUCCESSFUL' } });
    });

    it('blocks an unknown BIN range: result FAILURE, nothing stored', async () => {
      const saved = await put('basicUnknownBin', { ...card(TEST_CARD_UNKNOWN_BIN, TEST_EXPIRY.APPROVED), verificationStrategy: 'BASIC' });
      expect(saved.status).toBe(201);
      expect(saved.body).toMatchObject({
        result: 'FAILURE',
        verificationStrategy: 'BASIC',
        response: { gatewayCode: 'EXTERNAL_VERIFICATION_BLOCKED' },
        sourceOfFunds: { provided: { card: { number: '112345xxxxxx0007' } } },
      });
      expect(saved.text).not.toContain(TEST_CARD_UNKNOWN_BIN);
      expect((await get('basicUnknownBin')).status).toBe(404);
    });

    it('needs the card expiry', async () => {
      const saved = await put('basicNoExpiry', { ...card(TEST_CARD), verificationStrategy: 'BASIC' });
      expect(saved.status).toBe(400);
      expect(saved.body).toMatchObject({ error: { field: 'sourceOfFunds.provided.card.expiry', validationType: 'MISSING' } });
    });
  });

  describe('ACQUIRER', () => {
    it('stores a card the acquirer approves, verified by the verification service', async () => {
      const before = await acquirerCalls('verification');
      const saved = await put('acquirerApproved', { ...card(TEST_CARD, TEST_EXPIRY.APPROVED, { securityCode: '100' }), ...acquirer });
      expect(saved.status).toBe(201);
      expect(saved.body).toMatchObject({
        result: 'SUCCESS',
        token: 'acquirerApproved',
        verificationStrategy: 'ACQUIRER',
        response: { gatewayCode: 'EXTERNAL_VERIFICATION_SUCCESSFUL' },
      });
      expect(await acquirerCalls('verification')).toBe(before + 1);
      expect((await get('acquirerApproved')).body).toMatchObject({ verificationStrategy: 'ACQUIRER', sourceOfFunds: { provided: { card: { expiry: '0139' } } } });
    });

    it.each([
      ['a decline', 'acquirerDeclined', TEST_EXPIRY.DECLINED, undefined, 'EXTERNAL_VERIFICATION_DECLINED'],
      ['an expired card', 'acquirerExpired', TEST_EXPIRY.EXPIRED_CARD, undefined, 'EXTERNAL_VERIFICATION_DECLINED_EXPIRED_CARD'],
      ['an invalid security code', 'acquirerInvalidCsc', TEST_EXPIRY.APPROVED, '102', 'EXTERNAL_VERIFICATION_DECLINED_INVALID_CSC'],
      ['an acquirer system error', 'acquirerError', TEST_EXPIRY.ACQUIRER_SYSTEM_ERROR, undefined, 'EXTERNAL_VERIFICATION_PROCESSING_ERROR'],
      ['a time-out', 'acquirerTimedOut', TEST_EXPIRY.TIMED_OUT, undefined, 'EXTERNAL_VERIFICATION_PROCESSING_ERROR'],
    ])('answers %s with result FAILURE and %s, storing nothing', async (_what, token, expiry, securityCode, gatewayCode) => {
      const saved = await put(token, { ...card(TEST_CARD, expiry, securityCode ? { securityCode } : {}), ...acquirer });
      expect(saved.status).toBe(201);
      expect(saved.body).toMatchObject({
        result: 'FAILURE',
        token,
        verificationStrategy: 'ACQUIRER',
        response: { gatewayCode },
        sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } },
      });
      expect(saved.text).not.toContain(TEST_CARD);
      expect((await get(token)).status).toBe(404);
    });

    it('verifies an update that keeps the stored number inside the vault, and keeps the token as it was on failure', async () => {
      const state = readState();
      expect((await put('custodyUpdate', card(TEST_CARD, TEST_EXPIRY.APPROVED))).body).toMatchObject({ result: 'SUCCESS' });
      const [vaultBefore, verificationBefore] = [await acquirerCalls('token-vault'), await acquirerCalls('verification')];
      const newExpiry = (expiry: Expiry) => ({ sourceOfFunds: { type: 'CARD', provided: { card: { expiry } } }, ...acquirer });
      const saved = await put('custodyUpdate', newExpiry(TEST_EXPIRY.EXPIRED_CARD));
      expect(saved.body).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'EXTERNAL_VERIFICATION_DECLINED_EXPIRED_CARD' } });
      expect((await get('custodyUpdate')).body).toMatchObject({ verificationStrategy: 'NONE', sourceOfFunds: { provided: { card: { expiry: '0139' } } } });
      expect((await put('custodyUpdate', newExpiry({ month: '12', year: '38' }))).body).toMatchObject({
        result: 'SUCCESS',
        verificationStrategy: 'ACQUIRER',
        response: { gatewayCode: 'EXTERNAL_VERIFICATION_SUCCESSFUL' },
        sourceOfFunds: { provided: { card: { expiry: '1238' } } },
      });
      expect(await acquirerCalls('token-vault')).toBe(vaultBefore + 2);
      if (state.profile === 'distributed') {
        // The stored number never reached the verification service: the vault asked the acquirer itself.
        expect(await acquirerCalls('verification')).toBe(verificationBefore);
      }
    });

    it('needs transaction.currency', async () => {
      const saved = await put('acquirerNoCurrency', { ...card(TEST_CARD, TEST_EXPIRY.APPROVED), verificationStrategy: 'ACQUIRER' });
      expect(saved.status).toBe(400);
      expect(saved.body).toMatchObject({ error: { cause: 'INVALID_REQUEST', field: 'transaction.currency', validationType: 'MISSING' } });
      expect((await get('acquirerNoCurrency')).status).toBe(404);
    });

    it("applies the profile's default strategy unless the request names another", async () => {
      const defaultsToAcquirer = await createMerchant({
        'tokenRepository.generation': 'MERCHANT_SUPPLIED',
        'tokenRepository.defaultVerificationStrategy': 'ACQUIRER',
      });
      const save = (body: Body) =>
        call('PUT', `${defaultsToAcquirer.base(57)}/token/byDefault`, { authorization: defaultsToAcquirer.authorization, body });
      expect((await save({ ...card(TEST_CARD, TEST_EXPIRY.DECLINED), verificationStrategy: 'NONE' })).body).toMatchObject({
        result: 'SUCCESS',
        verificationStrategy: 'NONE',
        response: { gatewayCode: 'NO_VERIFICATION_PERFORMED' },
      });
      // No strategy named: the profile's ACQUIRER verifies the stored card with the acquirer, which declines 05/39.
      expect((await save({ sourceOfFunds: { type: 'CARD' }, transaction: { currency: 'USD' } })).body).toMatchObject({
        result: 'FAILURE',
        verificationStrategy: 'ACQUIRER',
        response: { gatewayCode: 'EXTERNAL_VERIFICATION_DECLINED' },
      });
    });
  });
});
