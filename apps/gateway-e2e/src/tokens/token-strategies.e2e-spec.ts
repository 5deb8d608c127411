import { TEST_CARD, TEST_CARD_SECOND, TEST_CARD_UNKNOWN_BIN, TEST_EXPIRY } from '@gateway/testing';
import { ApiResponse, call, createMerchant, TestMerchant } from '../support/gateway-client';

/**
 * Issue 5, "Must show": create or update token over HTTP under every generation x management
 * combination of the merchant's repository (spec token rules 1-4, ARCHITECTURE 5,
 * docs/decisions/token-vault-rules.md). Each combination gets a merchant, hence a repository, of
 * its own; its tests run in order on that repository, each step building on the previous one.
 */

const GENERATIONS = ['MERCHANT_SUPPLIED', 'RANDOM', 'PRESERVE_6_4'] as const;
const MANAGEMENTS = ['UNIQUE_CARD', 'UNIQUE_TOKEN', 'UNIQUE_ACCOUNT_IDENTIFIER'] as const;
const COMBINATIONS = GENERATIONS.flatMap((generation) => MANAGEMENTS.map((management) => [generation, management] as const));

type Body = Record<string, unknown>;

const cardBody = (number: string, expiry: { month: string; year: string } = TEST_EXPIRY.APPROVED, sourceOfFunds: Body = {}): Body => ({
  sourceOfFunds: { type: 'CARD', provided: { card: { number, expiry } }, ...sourceOfFunds },
});

function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) {
        digit -= 9;
      }
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

function expectFieldError(response: ApiResponse, field: string, validationType: string): void {
  expect(response.status).toBe(400);
  expect(response.body).toMatchObject({ error: { cause: 'INVALID_REQUEST', field, validationType }, result: 'ERROR' });
}

describe.each(COMBINATIONS)('token repository %s / %s', (generation, management) => {
  const merchantSupplied = generation === 'MERCHANT_SUPPLIED';
  const unique = management !== 'UNIQUE_TOKEN';
  let merchant: TestMerchant;
  /** The token holding TEST_CARD. */
  let first: string;
  /** The token holding TEST_CARD_SECOND. */
  let second: string;

  const post = (body: Body) => call('POST', `${merchant.base(57)}/token`, { authorization: merchant.authorization, body });
  const put = (token: string, body: Body) => call('PUT', `${merchant.base(57)}/token/${token}`, { authorization: merchant.authorization, body });
  const get = (token: string) => call('GET', `${merchant.base(57)}/token/${token}`, { authorization: merchant.authorization });

  beforeAll(async () => {
    merchant = await createMerchant({ 'tokenRepository.generation': generation, 'tokenRepository.management': management });
  });

  it(
    merchantSupplied
      ? 'takes sourceOfFunds.token on creation, requires it on POST, and creates with PUT'
      : 'refuses sourceOfFunds.token on creation and generates the token in its format',
    async () => {
      if (merchantSupplied) {
        expectFieldError(await post(cardBody(TEST_CARD)), 'sourceOfFunds.token', 'MISSING');
        const created = await put('merchantToken1', cardBody(TEST_CARD));
        expect(created.status).toBe(201);
        expect(created.body).toMatchObject({ result: 'SUCCESS', token: 'merchantToken1', response: { gatewayCode: 'NO_VERIFICATION_PERFORMED' } });
        first = 'merchantToken1';
        return;
      }
      expectFieldError(await post(cardBody(TEST_CARD, TEST_EXPIRY.APPROVED, { token: 'chosenByMerchant' })), 'sourceOfFunds.token', 'UNSUPPORTED');
      const created = await post(cardBody(TEST_CARD));
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        result: 'SUCCESS',
        repositoryId: expect.stringMatching(/^Test[0-9]{12}$/),
        status: 'VALID',
        sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', expiry: '0139', brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT' } } },
      });
      first = created.body.token as string;
      if (generation === 'RANDOM') {
        expect(first).toMatch(/^9[0-9]{15}$/);
        expect(passesLuhn(first)).toBe(true);
      } else {
        // Preserve 6.4: first six and last four of the card, never the card itself (it fails Luhn on purpose).
        expect(first).toMatch(/^512345[0-9]{6}0008$/);
        expect(first).not.toBe(TEST_CARD);
        expect(passesLuhn(first)).toBe(false);
      }
      expect(created.text).not.toContain(TEST_CARD);
    },
  );

  it('updates the token with PUT', async () => {
    const updated = await put(first, cardBody(TEST_CARD, TEST_EXPIRY.DECLINED));
    expect(updated.status).toBe(201);
    expect(updated.body).toMatchObject({ result: 'SUCCESS', token: first, sourceOfFunds: { provided: { card: { expiry: '0539' } } } });
    expect((await get(first)).body).toMatchObject({ token: first, sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008', expiry: '0539' } } } });
  });

  const storedAgain = !unique
    ? 'stores the same card again under a new token'
    : merchantSupplied
      ? 'refuses the same card under another token it names (400 on the card number)'
      : 'returns the existing token when the same card is stored again';
  it(storedAgain, async () => {
    const again = merchantSupplied ? await put('merchantToken2', cardBody(TEST_CARD)) : await post(cardBody(TEST_CARD));
    if (unique && merchantSupplied) {
      expectFieldError(again, 'sourceOfFunds.provided.card.number', 'INVALID');
      expect((await get('merchantToken2')).status).toBe(404);
      expect((await get(first)).body).toMatchObject({ token: first, sourceOfFunds: { provided: { card: { expiry: '0539' } } } });
      return;
    }
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ result: 'SUCCESS', sourceOfFunds: { provided: { card: { expiry: '0139' } } } });
    if (unique) {
      expect(again.body.token).toBe(first);
    } else {
      expect(again.body.token).not.toBe(first);
      expect((await get(first)).body).toMatchObject({ sourceOfFunds: { provided: { card: { expiry: '0539' } } } });
    }
  });

  it(merchantSupplied ? 'creates a token with PUT to an unknown token' : 'rejects PUT to an unknown token with 400', async () => {
    if (merchantSupplied) {
      const created = await put('merchantToken3', cardBody(TEST_CARD_SECOND));
      expect(created.body).toMatchObject({ result: 'SUCCESS', token: 'merchantToken3' });
      second = 'merchantToken3';
      return;
    }
    const unknown = await put('9000000000000001', cardBody(TEST_CARD_SECOND));
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: { cause: 'INVALID_REQUEST', explanation: expect.stringContaining('does not exist') }, result: 'ERROR' });
    const created = await post(cardBody(TEST_CARD_SECOND));
    expect(created.body).toMatchObject({ result: 'SUCCESS' });
    second = created.body.token as string;
    if (generation === 'PRESERVE_6_4') {
      expect(second).toMatch(/^512345[0-9]{6}0016$/);
    }
  });

  if (generation === 'PRESERVE_6_4') {
    it('rejects changing the card number of a token (token rule 3a)', async () => {
      const changed = await put(second, cardBody(TEST_CARD_UNKNOWN_BIN));
      expectFieldError(changed, 'sourceOfFunds.provided.card.number', 'INVALID');
      expect(changed.body).toMatchObject({ error: { explanation: expect.stringContaining('cannot change') } });
      expect((await get(second)).body).toMatchObject({ sourceOfFunds: { provided: { card: { number: '512345xxxxxx0016' } } } });
    });
  }

  if (unique) {
    it('rejects updating a token to a card another token holds (token rule 3b), naming neither', async () => {
      const moved = await put(second, cardBody(TEST_CARD));
      expectFieldError(moved, 'sourceOfFunds.provided.card.number', 'INVALID');
      expect(moved.body).toMatchObject({ error: { explanation: expect.stringContaining('already stored against another token') } });
      expect(moved.text).not.toContain(first);
      expect(moved.text).not.toContain(TEST_CARD);
      expect((await get(second)).body).toMatchObject({ sourceOfFunds: { provided: { card: { number: '512345xxxxxx0016' } } } });
    });
  } else if (generation !== 'PRESERVE_6_4') {
    it('lets a token move to a card another token holds', async () => {
      const moved = await put(second, cardBody(TEST_CARD));
      expect(moved.body).toMatchObject({ result: 'SUCCESS', token: second, sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } } });
    });
  }
});

describe('token repositories of different merchants', () => {
  it("keeps each merchant's tokens to itself: another merchant neither sees nor reuses them", async () => {
    const settings = { 'tokenRepository.generation': 'RANDOM', 'tokenRepository.management': 'UNIQUE_CARD' };
    const [owner, other] = await Promise.all([createMerchant(settings), createMerchant(settings)]);
    const auth = (m: TestMerchant) => ({ authorization: m.authorization });
    const owned = await call('POST', `${owner.base(57)}/token`, { ...auth(owner), body: cardBody(TEST_CARD) });
    const token = owned.body.token as string;

    // Unique Card is per repository: the same card stored by another merchant is another token.
    const others = await call('POST', `${other.base(57)}/token`, { ...auth(other), body: cardBody(TEST_CARD) });
    expect(others.body.token).not.toBe(token);
    expect(others.body.repositoryId).not.toBe(owned.body.repositoryId);

    expect((await call('GET', `${other.base(57)}/token/${token}`, auth(other))).status).toBe(404);
    expect((await call('PUT', `${other.base(57)}/token/${token}`, { ...auth(other), body: cardBody(TEST_CARD) })).status).toBe(400);
    expect((await call('DELETE', `${other.base(57)}/token/${token}`, auth(other))).status).toBe(404);
    expect((await call('GET', `${owner.base(57)}/token/${token}`, auth(owner))).status).toBe(200);
  });
});
