import { createHash } from 'node:crypto';
import { AuthMethod, GatewayError, MerchantContext, TOKEN_GENERATION_STRATEGIES, TOKEN_MANAGEMENT_STRATEGIES, validateTokenRequest } from '@gateway/contracts';
import { Pan, passesLuhn } from '@gateway/crypto';
import { TEST_CARD, TEST_CARD_LUHN_FAILURE, TEST_CARD_SECOND, TEST_CARD_SHORT, TEST_CARD_UNKNOWN_BIN, TEST_EXPIRY } from '@gateway/testing';
import { SimulatedTokenServiceProvider, simulatedSchemeTokenNumber } from '../token-service-provider/simulated-token-service-provider';
import { testEnvelope, testMerchant, TestRepository, vaultTestBed } from '../testing/vault-test-bed';
import { GENERATED_TOKEN_ATTEMPTS } from './save-token.use-case';
import type { AcquirerVerificationRequest, VerificationOutcome } from '../verification/card-verification';

type Bed = Awaited<ReturnType<typeof vaultTestBed>>;
type Body = Record<string, unknown>;

const cardBody = (number: string = TEST_CARD, expiry: { month: string; year: string } | null = TEST_EXPIRY.APPROVED, extra: Body = {}): Body => ({
  sourceOfFunds: { type: 'CARD', provided: { card: { number, ...(expiry ? { expiry } : {}), ...extra } } },
});

const agreementBody = (id: string, cardinality = 'MULTIPLE', extra: Body = {}): Body => ({
  sourceOfFunds: {
    type: 'PROVIDER_A',
    provided: { provider_a: { accountEmail: 'payer@example.com', accountHolder: 'A Payer', billingAgreement: { id, cardinality, name: 'Monthly' } } },
  },
  ...extra,
});

function saver(bed: Bed, merchant: MerchantContext) {
  return {
    // The vault's handlers validate with the edge's request class before the use case runs.
    put: async (token: string, body: Body, authMethod: AuthMethod = 'PASSWORD') =>
      bed.save.execute({ envelope: testEnvelope(merchant, authMethod), tokenId: token, fields: validateTokenRequest(body) }),
    post: async (body: Body) => bed.save.execute({ envelope: testEnvelope(merchant), fields: validateTokenRequest(body) }),
  };
}

async function rejected(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof GatewayError) {
      return err;
    }
    throw err;
  }
  throw new Error('expected the save to be rejected');
}

async function setUp(repository: TestRepository = {}, bedOptions: Parameters<typeof vaultTestBed>[0] = {}) {
  const bed = await vaultTestBed(bedOptions);
  const merchant = testMerchant(repository);
  return { bed, merchant, ...saver(bed, merchant) };
}

/** Creates a token the way the repository creates them: PUT under Merchant-Supplied, POST otherwise. */
async function create(ctx: Awaited<ReturnType<typeof setUp>>, body: Body, suppliedToken = 'merchantToken1') {
  return ctx.merchant.settings.tokenRepository.generation === 'MERCHANT_SUPPLIED' ? ctx.put(suppliedToken, body) : ctx.post(body);
}

const combinations = TOKEN_GENERATION_STRATEGIES.flatMap((generation) =>
  TOKEN_MANAGEMENT_STRATEGIES.map((management) => [generation, management] as const),
);

describe('SaveToken: every generation x management combination', () => {
  describe.each(combinations)('%s / %s', (generation, management) => {
    it('creates a token in the generation strategy\'s format', async () => {
      const ctx = await setUp({ generation, management });
      const body = await create(ctx, cardBody());
      expect(body.result).toBe('SUCCESS');
      const token = body.token as string;
      if (generation === 'MERCHANT_SUPPLIED') {
        expect(token).toBe('merchantToken1');
      } else if (generation === 'RANDOM') {
        expect(token).toMatch(/^9[0-9]{15}$/);
        expect(passesLuhn(token)).toBe(true);
      } else {
        expect(token).toMatch(/^512345[0-9]{6}0008$/);
        expect(token).not.toBe(TEST_CARD);
        expect(passesLuhn(token)).toBe(false);
      }
      expect(ctx.bed.store.rows.size).toBe(1);
    });

    it('updates the token with PUT', async () => {
      const ctx = await setUp({ generation, management });
      const token = (await create(ctx, cardBody())).token as string;
      const updated = await ctx.put(token, cardBody(TEST_CARD, TEST_EXPIRY.DECLINED));
      expect(updated).toMatchObject({ result: 'SUCCESS', token, sourceOfFunds: { provided: { card: { expiry: '0539' } } } });
      expect(ctx.bed.store.rows.size).toBe(1);
      expect([...ctx.bed.store.rows.values()][0].version).toBe(2);
    });

    it(generation === 'MERCHANT_SUPPLIED' ? 'creates with PUT to an unknown token' : 'rejects PUT to an unknown token', async () => {
      const ctx = await setUp({ generation, management });
      if (generation === 'MERCHANT_SUPPLIED') {
        expect(await ctx.put('newToken', cardBody())).toMatchObject({ result: 'SUCCESS', token: 'newToken' });
      } else {
        const error = await rejected(ctx.put('9123450000000005', cardBody()));
        expect(error).toMatchObject({ code: 'INVALID_REQUEST', httpStatus: 400 });
        expect(error.explanation).toContain('does not exist');
        expect(ctx.bed.store.rows.size).toBe(0);
      }
    });

    it(
      management === 'UNIQUE_TOKEN'
        ? 'stores the same card again under a new token'
        : generation === 'MERCHANT_SUPPLIED'
          ? 'refuses to create the named token for a card another token holds'
          : 'returns the existing token for a card already stored',
      async () => {
        const ctx = await setUp({ generation, management });
        const first = (await create(ctx, cardBody(), 'firstToken')).token;
        const second = create(ctx, cardBody(TEST_CARD, TEST_EXPIRY.DECLINED), 'secondToken');
        if (management === 'UNIQUE_TOKEN') {
          expect((await second).token).not.toBe(first);
          expect(ctx.bed.store.rows.size).toBe(2);
        } else if (generation === 'MERCHANT_SUPPLIED') {
          // The request names its token: answering another one would leave the merchant holding
          // an id that does not exist (token rule 3b; the real gateway refuses it too).
          expect(await rejected(second)).toMatchObject({ code: 'INVALID_FIELD', field: 'sourceOfFunds.provided.card.number' });
          expect([...ctx.bed.store.rows.values()].map((row) => row.token)).toEqual([first]);
        } else {
          expect(await second).toMatchObject({ result: 'SUCCESS', token: first, sourceOfFunds: { provided: { card: { expiry: '0539' } } } });
          expect(ctx.bed.store.rows.size).toBe(1);
        }
      },
    );

    it(
      management === 'UNIQUE_TOKEN'
        ? 'lets a token move to a card another token holds'
        : 'rejects updating a token to a card another token holds',
      async () => {
        const ctx = await setUp({ generation, management });
        const a = (await create(ctx, cardBody(TEST_CARD), 'tokenA')).token as string;
        const b = (await create(ctx, cardBody(TEST_CARD_SECOND), 'tokenB')).token as string;
        const move = ctx.put(b, cardBody(TEST_CARD));
        if (management === 'UNIQUE_TOKEN' && generation !== 'PRESERVE_6_4') {
          expect(await move).toMatchObject({ result: 'SUCCESS', token: b });
        } else if (management === 'UNIQUE_TOKEN') {
          // Preserve 6.4 forbids the change before uniqueness is even considered.
          expect(await rejected(move)).toMatchObject({ field: 'sourceOfFunds.provided.card.number' });
        } else {
          const error = await rejected(move);
          expect(error).toMatchObject({ code: 'INVALID_FIELD', field: 'sourceOfFunds.provided.card.number', validationType: 'INVALID' });
          expect(error.explanation).toContain('already stored against another token');
          expect(error.explanation).not.toContain(TEST_CARD);
          expect(error.explanation).not.toContain(a);
        }
      },
    );

    it(
      generation === 'MERCHANT_SUPPLIED'
        ? 'takes sourceOfFunds.token on creation (POST) and requires it'
        : 'refuses sourceOfFunds.token on creation',
      async () => {
        const ctx = await setUp({ generation, management });
        const withToken = { ...cardBody(), sourceOfFunds: { ...(cardBody().sourceOfFunds as Body), token: 'chosenByMerchant' } };
        if (generation === 'MERCHANT_SUPPLIED') {
          expect(await ctx.post(withToken)).toMatchObject({ result: 'SUCCESS', token: 'chosenByMerchant' });
          expect(await rejected(ctx.post(cardBody()))).toMatchObject({ field: 'sourceOfFunds.token', validationType: 'MISSING' });
        } else {
          expect(await rejected(ctx.post(withToken))).toMatchObject({ field: 'sourceOfFunds.token', validationType: 'UNSUPPORTED' });
          expect(ctx.bed.store.rows.size).toBe(0);
        }
      },
    );
  });
});

describe('SaveToken: Preserve 6.4 rejection (token rule 3a)', () => {
  it('rejects changing the card number of a token', async () => {
    const ctx = await setUp({ generation: 'PRESERVE_6_4' });
    const token = (await ctx.post(cardBody(TEST_CARD))).token as string;
    const error = await rejected(ctx.put(token, cardBody(TEST_CARD_SECOND)));
    expect(error).toMatchObject({ code: 'INVALID_FIELD', field: 'sourceOfFunds.provided.card.number', validationType: 'INVALID' });
    expect((await ctx.bed.retrieve.execute({ merchant: ctx.merchant, authMethod: 'PASSWORD', tokenId: token })).sourceOfFunds).toMatchObject({
      provided: { card: { number: '512345xxxxxx0008' } },
    });
  });

  it('allows updates that keep the number', async () => {
    const ctx = await setUp({ generation: 'PRESERVE_6_4' });
    const token = (await ctx.post(cardBody(TEST_CARD))).token as string;
    expect(await ctx.put(token, cardBody(TEST_CARD, TEST_EXPIRY.DECLINED))).toMatchObject({ result: 'SUCCESS' });
    expect(await ctx.put(token, { sourceOfFunds: { type: 'CARD', provided: { card: { expiry: TEST_EXPIRY.APPROVED } } } })).toMatchObject({
      sourceOfFunds: { provided: { card: { expiry: '0139', number: '512345xxxxxx0008' } } },
    });
  });

  it('does not enforce the rule for provider_a billing agreement ids', async () => {
    const ctx = await setUp({ generation: 'PRESERVE_6_4' });
    const token = (await ctx.post(agreementBody('B-1'))).token as string;
    expect(token).toMatch(/^9[0-9]{15}$/);
    expect(await ctx.put(token, agreementBody('B-2'))).toMatchObject({
      result: 'SUCCESS',
      sourceOfFunds: { provided: { provider_a: { billingAgreement: { id: 'B-2' } } } },
    });
  });

  it('rejects turning a card token into a billing agreement token', async () => {
    const ctx = await setUp({ generation: 'PRESERVE_6_4' });
    const token = (await ctx.post(cardBody())).token as string;
    expect(await rejected(ctx.put(token, agreementBody('B-1')))).toMatchObject({ field: 'sourceOfFunds.type' });
  });

  it('needs card numbers long enough to keep six and four digits and vary the rest', async () => {
    const ctx = await setUp({ generation: 'PRESERVE_6_4' });
    // 11 digits passing Luhn (the check digit rule is not what refuses it).
    const short = `${TEST_CARD.slice(0, 6)}2${TEST_CARD.slice(-4)}`;
    const error = await rejected(ctx.post(cardBody(short)));
    expect(error).toMatchObject({ field: 'sourceOfFunds.provided.card.number' });
    expect(error.explanation).toMatch(/12/);
  });

  it('takes a 12-digit card number, the shortest with two digits to vary', async () => {
    const ctx = await setUp({ generation: 'PRESERVE_6_4' });
    const twelve = `${TEST_CARD.slice(0, 6)}00${TEST_CARD.slice(-4)}`;
    expect(await ctx.post(cardBody(twelve))).toMatchObject({ result: 'SUCCESS', token: expect.stringMatching(/^512345[0-9]{2}0008$/) });
  });
});

describe('SaveToken: an update merges the request over the stored card', () => {
  it('keeps the stored expiry when an update gives only a new number', async () => {
    const ctx = await setUp({ generation: 'MERCHANT_SUPPLIED' });
    await ctx.put('t1', cardBody(TEST_CARD, TEST_EXPIRY.DECLINED));
    expect(await ctx.put('t1', cardBody(TEST_CARD_SECOND, null))).toMatchObject({
      sourceOfFunds: { provided: { card: { number: '512345xxxxxx0016', expiry: '0539' } } },
    });
  });

  it.each(['UNIQUE_CARD', 'UNIQUE_ACCOUNT_IDENTIFIER'] as const)(
    'merges a creation redirected to the holder of the card (%s) over what the holder stores',
    async (management) => {
      const ctx = await setUp({ management });
      const holder = (await ctx.post(cardBody(TEST_CARD, TEST_EXPIRY.DECLINED))).token;
      // The number alone: the holder keeps its expiry, as an update of it would.
      expect(await ctx.post(cardBody(TEST_CARD, null))).toMatchObject({ result: 'SUCCESS', token: holder, sourceOfFunds: { provided: { card: { expiry: '0539' } } } });
    },
  );
});

describe('SaveToken: merchant-supplied tokens', () => {
  it('rejects a body token that differs from the path', async () => {
    const ctx = await setUp({ generation: 'MERCHANT_SUPPLIED' });
    const body = { sourceOfFunds: { ...(cardBody().sourceOfFunds as Body), token: 'other' } };
    expect(await rejected(ctx.put('pathToken', body))).toMatchObject({ field: 'sourceOfFunds.token', validationType: 'INVALID' });
  });

  it('refuses the card number itself as a token, without echoing it', async () => {
    const ctx = await setUp({ generation: 'MERCHANT_SUPPLIED' });
    const error = await rejected(ctx.put(TEST_CARD, cardBody(TEST_CARD)));
    expect(error).toMatchObject({ field: 'tokenid', validationType: 'INVALID' });
    expect(error.explanation).not.toContain(TEST_CARD);
    expect(ctx.bed.store.rows.size).toBe(0);
  });
});

describe('SaveToken: a token is never the card number it holds', () => {
  const refusal = { code: 'INVALID_FIELD', httpStatus: 400, validationType: 'INVALID' };
  const withBodyToken = (token: string, number: string): Body => ({ sourceOfFunds: { ...(cardBody(number).sourceOfFunds as Body), token } });

  async function storedPan(ctx: Awaited<ReturnType<typeof setUp>>, token: string): Promise<string> {
    const row = [...ctx.bed.store.rows.values()].find((r) => r.token === token)!;
    const instrument = await ctx.bed.sealing.openInstrument(row);
    return instrument.type === 'CARD' ? instrument.pan.reveal() : '';
  }

  function expectNoTokenIsItsCard(ctx: Awaited<ReturnType<typeof setUp>>): Promise<void[]> {
    return Promise.all([...ctx.bed.store.rows.values()].map(async (row) => expect(await storedPan(ctx, row.token)).not.toBe(row.token)));
  }

  describe.each(TOKEN_MANAGEMENT_STRATEGIES)('Merchant-Supplied / %s', (management) => {
    it('refuses a PUT updating a token to the card equal to its id, as on creation', async () => {
      const ctx = await setUp({ generation: 'MERCHANT_SUPPLIED', management });
      expect(await rejected(ctx.put(TEST_CARD, cardBody(TEST_CARD)))).toMatchObject({ ...refusal, field: 'tokenid' });
      expect(await ctx.put(TEST_CARD, cardBody(TEST_CARD_SECOND))).toMatchObject({ result: 'SUCCESS', token: TEST_CARD });
      const error = await rejected(ctx.put(TEST_CARD, cardBody(TEST_CARD)));
      expect(error).toMatchObject({ ...refusal, field: 'tokenid' });
      expect(error.explanation).toContain('must not be the card number');
      expect(error.explanation).not.toContain(TEST_CARD);
      // Nothing written: the token still holds the other card, at its first version.
      expect(ctx.bed.store.rows.size).toBe(1);
      expect([...ctx.bed.store.rows.values()][0].version).toBe(1);
      expect(await storedPan(ctx, TEST_CARD)).toBe(TEST_CARD_SECOND);
    });

    it('refuses a POST naming an existing token (sourceOfFunds.token) with the card equal to it', async () => {
      const ctx = await setUp({ generation: 'MERCHANT_SUPPLIED', management });
      expect(await rejected(ctx.post(withBodyToken(TEST_CARD, TEST_CARD)))).toMatchObject({ ...refusal, field: 'sourceOfFunds.token' });
      expect(await ctx.post(withBodyToken(TEST_CARD, TEST_CARD_SECOND))).toMatchObject({ result: 'SUCCESS', token: TEST_CARD });
      expect(await rejected(ctx.post(withBodyToken(TEST_CARD, TEST_CARD)))).toMatchObject({ ...refusal, field: 'sourceOfFunds.token' });
      expect([...ctx.bed.store.rows.values()][0].version).toBe(1);
      expect(await storedPan(ctx, TEST_CARD)).toBe(TEST_CARD_SECOND);
    });

    it('refuses before verification: the card goes to no acquirer and no FAILURE body carries the number as the token', async () => {
      const verified: string[] = [];
      const ctx = await setUp(
        { generation: 'MERCHANT_SUPPLIED', management },
        { acquirer: { verify: async ({ card }) => (verified.push(card.pan.masked), { strategy: 'ACQUIRER', passed: false, gatewayCode: 'EXTERNAL_VERIFICATION_DECLINED' }) } },
      );
      // BASIC would fail this number (unknown BIN) and answer FAILURE echoing the token: the refusal comes first.
      expect(await rejected(ctx.put(TEST_CARD_UNKNOWN_BIN, { ...cardBody(TEST_CARD_UNKNOWN_BIN), verificationStrategy: 'BASIC' }))).toMatchObject({
        ...refusal,
        field: 'tokenid',
      });
      await ctx.put(TEST_CARD, cardBody(TEST_CARD_SECOND));
      const acquirer = { verificationStrategy: 'ACQUIRER', transaction: { currency: 'USD' } };
      expect(await rejected(ctx.put(TEST_CARD, { ...cardBody(TEST_CARD), ...acquirer }))).toMatchObject({ ...refusal, field: 'tokenid' });
      expect(verified).toEqual([]);
    });
  });

  describe.each(TOKEN_MANAGEMENT_STRATEGIES)('Random / %s', (management) => {
    it('refuses a PUT giving a generated token the card number equal to it', async () => {
      const ctx = await setUp({ generation: 'RANDOM', management });
      const token = (await ctx.post(cardBody(TEST_CARD))).token as string;
      // A Random token is outside every scheme's range, but an unverified (NONE) number may be anything.
      expect(await rejected(ctx.put(token, cardBody(token)))).toMatchObject({ ...refusal, field: 'tokenid' });
      expect([...ctx.bed.store.rows.values()][0].version).toBe(1);
      expect(await storedPan(ctx, token)).toBe(TEST_CARD);
    });
  });

  describe.each(['UNIQUE_CARD', 'UNIQUE_ACCOUNT_IDENTIFIER'] as const)('redirects to the holder of the card (%s)', (management) => {
    it('cannot end with token == card: the holder got its card through a save that made the same check', async () => {
      const ctx = await setUp({ generation: 'MERCHANT_SUPPLIED', management });
      await ctx.put(TEST_CARD, cardBody(TEST_CARD_SECOND));
      // The only way to a holder whose token is its card: refused (before the fix this was stored,
      // and the creations below were then redirected to it, answering token 5123450000000008).
      expect(await rejected(ctx.put(TEST_CARD, cardBody(TEST_CARD)))).toMatchObject({ ...refusal, field: 'tokenid' });
      const created = await ctx.put('holder', cardBody(TEST_CARD));
      expect(created).toMatchObject({ result: 'SUCCESS', token: 'holder' });
      // Creations of the card under other named tokens are refused (held by another token).
      expect(await rejected(ctx.put('another', cardBody(TEST_CARD, TEST_EXPIRY.DECLINED)))).toMatchObject({ code: 'INVALID_FIELD', field: 'sourceOfFunds.provided.card.number' });
      expect(await rejected(ctx.post(withBodyToken('third', TEST_CARD)))).toMatchObject({ code: 'INVALID_FIELD', field: 'sourceOfFunds.provided.card.number' });
      // Updating the token named like the card to the card: held by another token, refused as ever.
      expect(await rejected(ctx.put(TEST_CARD, cardBody(TEST_CARD)))).toMatchObject({ code: 'INVALID_FIELD', field: 'sourceOfFunds.provided.card.number' });
      await expectNoTokenIsItsCard(ctx);
    });

    it.each(['MERCHANT_SUPPLIED', 'RANDOM'] as const)(
      'refuses to return a holder stored before the check (%s generation), on the card number',
      async (generation) => {
        const ctx = await setUp({ generation, management });
        const created = await create(ctx, cardBody(TEST_CARD), 'holder');
        // A row written before every save was checked: its token is its card number.
        const legacy = [...ctx.bed.store.rows.values()][0];
        legacy.token = TEST_CARD;
        const again = generation === 'MERCHANT_SUPPLIED' ? ctx.put('newToken', cardBody(TEST_CARD, TEST_EXPIRY.DECLINED)) : ctx.post(cardBody(TEST_CARD, TEST_EXPIRY.DECLINED));
        const error = await rejected(again);
        expect(error).toMatchObject({ ...refusal, field: 'sourceOfFunds.provided.card.number' });
        expect(error.explanation).not.toContain(TEST_CARD);
        expect(created.result).toBe('SUCCESS');
        expect(ctx.bed.store.rows.size).toBe(1);
        expect([...ctx.bed.store.rows.values()][0]).toMatchObject({ token: TEST_CARD, version: 1 });
      },
    );
  });
});

describe('SaveToken: verification strategies', () => {
  it('NONE performs no verification (the profile default applies when the request names none)', async () => {
    const ctx = await setUp({ defaultVerificationStrategy: 'NONE' });
    // A number in no scheme's range: BASIC would refuse it, NONE does not look.
    expect(await ctx.post(cardBody(TEST_CARD_UNKNOWN_BIN))).toMatchObject({
      result: 'SUCCESS',
      verificationStrategy: 'NONE',
      response: { gatewayCode: 'NO_VERIFICATION_PERFORMED' },
    });
  });

  it('BASIC accepts a valid number in a known range', async () => {
    const ctx = await setUp({ defaultVerificationStrategy: 'BASIC' });
    expect(await ctx.post(cardBody())).toMatchObject({
      result: 'SUCCESS',
      verificationStrategy: 'BASIC',
      response: { gatewayCode: 'BASIC_VERIFICATION_SUCCESSFUL' },
    });
  });

  it('BASIC fails an unknown BIN range: result FAILURE and nothing stored', async () => {
    const ctx = await setUp();
    const body = await ctx.post({ ...cardBody(TEST_CARD_UNKNOWN_BIN), verificationStrategy: 'BASIC' });
    expect(body).toMatchObject({
      result: 'FAILURE',
      verificationStrategy: 'BASIC',
      response: { gatewayCode: 'EXTERNAL_VERIFICATION_BLOCKED' },
      sourceOfFunds: { type: 'CARD', provided: { card: { number: '112345xxxxxx0007' } } },
    });
    expect(body.token).toBeUndefined();
    expect(ctx.bed.store.rows.size).toBe(0);
  });

  it.each(['NONE', 'BASIC', 'ACQUIRER'] as const)(
    'refuses a number failing Luhn under %s before any verification: 400 on the number, nothing stored, no acquirer',
    async (strategy) => {
      const ctx = await setUp({ generation: 'MERCHANT_SUPPLIED' });
      const body = { ...cardBody(TEST_CARD_LUHN_FAILURE), verificationStrategy: strategy, transaction: { currency: 'USD' } };
      const error = await rejected(ctx.put('t1', body));
      expect(error).toMatchObject({ code: 'INVALID_FIELD', field: 'sourceOfFunds.provided.card.number', validationType: 'INVALID' });
      expect(error.explanation).not.toContain(TEST_CARD_LUHN_FAILURE);
      expect(ctx.bed.store.rows.size).toBe(0);
      expect(ctx.bed.verificationService.received).toEqual([]);
    },
  );

  it('a request strategy overrides the profile default', async () => {
    const ctx = await setUp({ defaultVerificationStrategy: 'BASIC' });
    expect(await ctx.post({ ...cardBody(TEST_CARD_UNKNOWN_BIN), verificationStrategy: 'NONE' })).toMatchObject({ result: 'SUCCESS' });
  });

  it('BASIC needs the card expiry', async () => {
    const ctx = await setUp();
    expect(await rejected(ctx.post({ ...cardBody(TEST_CARD, null), verificationStrategy: 'BASIC' }))).toMatchObject({
      field: 'sourceOfFunds.provided.card.expiry',
      validationType: 'MISSING',
    });
  });

  it('BASIC, requested or the profile\'s default, takes the expiry the token holds on an update', async () => {
    for (const [repository, strategy] of [[{}, { verificationStrategy: 'BASIC' }], [{ defaultVerificationStrategy: 'BASIC' as const }, {}]] as const) {
      const ctx = await setUp({ generation: 'MERCHANT_SUPPLIED', ...repository });
      await ctx.put('held', { ...cardBody(TEST_CARD_UNKNOWN_BIN), verificationStrategy: 'NONE' });
      expect(await ctx.put('held', { ...cardBody(TEST_CARD, null), ...strategy })).toMatchObject({
        result: 'SUCCESS',
        response: { gatewayCode: 'BASIC_VERIFICATION_SUCCESSFUL' },
        sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008', expiry: '0139' } } },
      });
    }
  });

  it("BASIC needs the card expiry when it is the profile's default (the request alone cannot tell)", async () => {
    const ctx = await setUp({ defaultVerificationStrategy: 'BASIC' });
    expect(await rejected(ctx.post(cardBody(TEST_CARD, null)))).toMatchObject({ field: 'sourceOfFunds.provided.card.expiry', validationType: 'MISSING' });
    expect(ctx.bed.store.rows.size).toBe(0);
  });

  it('a failed verification leaves the stored token as it was', async () => {
    const ctx = await setUp({ generation: 'MERCHANT_SUPPLIED' });
    await ctx.put('keep', cardBody(TEST_CARD));
    const failed = await ctx.put('keep', { ...cardBody(TEST_CARD_UNKNOWN_BIN), verificationStrategy: 'BASIC' });
    expect(failed).toMatchObject({ result: 'FAILURE', token: 'keep' });
    expect(await ctx.bed.retrieve.execute({ merchant: ctx.merchant, authMethod: 'PASSWORD', tokenId: 'keep' })).toMatchObject({
      sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } },
      verificationStrategy: 'NONE',
    });
  });

  it('ACQUIRER verifies at the acquirer: an approval is stored, a decline stores nothing', async () => {
    const ctx = await setUp({ defaultVerificationStrategy: 'ACQUIRER' });
    const withCurrency = (body: Body) => ({ ...body, transaction: { currency: 'USD' } });
    expect(await ctx.post(withCurrency(cardBody(TEST_CARD, TEST_EXPIRY.APPROVED)))).toMatchObject({
      result: 'SUCCESS',
      verificationStrategy: 'ACQUIRER',
      response: { gatewayCode: 'EXTERNAL_VERIFICATION_SUCCESSFUL' },
    });
    const declined = await ctx.post(withCurrency(cardBody(TEST_CARD_SECOND, TEST_EXPIRY.DECLINED)));
    expect(declined).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'EXTERNAL_VERIFICATION_DECLINED' } });
    expect(ctx.bed.store.rows.size).toBe(1);
    expect(ctx.bed.verificationService.received.map((m) => m.card.number)).toEqual([TEST_CARD, TEST_CARD_SECOND]);
  });

  it('ACQUIRER verifies a stored number without sending it out of the vault', async () => {
    const ctx = await setUp({ generation: 'MERCHANT_SUPPLIED' });
    await ctx.put('kept', cardBody(TEST_CARD, TEST_EXPIRY.APPROVED));
    const update = { sourceOfFunds: { type: 'CARD', provided: { card: { expiry: TEST_EXPIRY.EXPIRED_CARD } } }, verificationStrategy: 'ACQUIRER', transaction: { currency: 'USD' } };
    expect(await ctx.put('kept', update)).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'EXTERNAL_VERIFICATION_DECLINED_EXPIRED_CARD' } });
    expect(ctx.bed.verificationService.received).toHaveLength(0);
    expect(await ctx.bed.metrics.registry.getSingleMetricAsString('gateway_acquirer_requests_total')).toContain('outcome="EXPIRED_CARD"} 1');
  });

  it('ACQUIRER needs the currency to verify in', async () => {
    const ctx = await setUp();
    expect(await rejected(ctx.post({ ...cardBody(), verificationStrategy: 'ACQUIRER' }))).toMatchObject({
      field: 'transaction.currency',
      validationType: 'MISSING',
    });
    expect(ctx.bed.store.rows.size).toBe(0);
  });

  it('ACQUIRER hands the card, security code and currency to the acquirer verifier and maps a decline to FAILURE', async () => {
    const seen: AcquirerVerificationRequest[] = [];
    const outcome: VerificationOutcome = { strategy: 'ACQUIRER', passed: false, gatewayCode: 'EXTERNAL_VERIFICATION_DECLINED' };
    const ctx = await setUp({}, { acquirer: { verify: async (request) => (seen.push(request), outcome) } });
    const body = await ctx.post({ ...cardBody(TEST_CARD, TEST_EXPIRY.DECLINED, { securityCode: '100' }), verificationStrategy: 'ACQUIRER', transaction: { currency: 'USD' } });
    expect(body).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'EXTERNAL_VERIFICATION_DECLINED' } });
    expect(seen[0].card.pan.reveal()).toBe(TEST_CARD);
    expect(seen[0].card.expiry?.mmyy).toBe('0539');
    expect(seen[0].securityCode?.reveal()).toBe('100');
    expect(seen[0].currency).toBe('USD');
    expect(ctx.bed.store.rows.size).toBe(0);
  });

  it('ACQUIRER references the call with the token saved, or with the request id for a token not generated yet, plus a suffix of its own', async () => {
    const references: string[] = [];
    const acquirer = { verify: async ({ reference }: AcquirerVerificationRequest): Promise<VerificationOutcome> => (references.push(reference), { strategy: 'ACQUIRER', passed: true, gatewayCode: 'EXTERNAL_VERIFICATION_SUCCESSFUL' }) };
    const body = { ...cardBody(), verificationStrategy: 'ACQUIRER', transaction: { currency: 'USD' } };
    const longToken = 'T'.repeat(40);
    const supplied = await setUp({ generation: 'MERCHANT_SUPPLIED' }, { acquirer });
    await supplied.put('tok1', body);
    await supplied.put(longToken, cardBody(TEST_CARD_SECOND, TEST_EXPIRY.APPROVED, {}));
    await supplied.put(longToken, { ...cardBody(TEST_CARD_SECOND), verificationStrategy: 'ACQUIRER', transaction: { currency: 'USD' } });
    const generated = await setUp({}, { acquirer });
    const envelope = testEnvelope(generated.merchant);
    await generated.bed.save.execute({ envelope, fields: validateTokenRequest(body) });
    expect(references).toHaveLength(3);
    expect(references[0]).toMatch(/^tok1-[0-9a-f]{8}$/);
    // A 40-character token is cut to fit the verify subject's 40 characters.
    expect(references[1]).toMatch(new RegExp(`^${longToken.slice(0, 31)}-[0-9a-f]{8}$`));
    expect(references[2]).toMatch(new RegExp(`^${envelope.requestId.slice(0, 31)}-[0-9a-f]{8}$`));
    for (const reference of references) {
      expect(reference.length).toBeLessThanOrEqual(40);
    }
  });

  it('ACQUIRER gives every verification of one token a reference of its own, so an acquirer de-duplicating by reference answers each', async () => {
    const references: string[] = [];
    const acquirer = { verify: async ({ reference }: AcquirerVerificationRequest): Promise<VerificationOutcome> => (references.push(reference), { strategy: 'ACQUIRER', passed: true, gatewayCode: 'EXTERNAL_VERIFICATION_SUCCESSFUL' }) };
    const ctx = await setUp({}, { acquirer });
    const verified = (expiry: { month: string; year: string }) => ({ ...cardBody(TEST_CARD, expiry), verificationStrategy: 'ACQUIRER', transaction: { currency: 'USD' } });
    const token = (await ctx.post(cardBody())).token as string;
    expect(await ctx.put(token, verified(TEST_EXPIRY.APPROVED))).toMatchObject({ result: 'SUCCESS', token });
    expect(await ctx.put(token, verified({ month: '2', year: '39' }))).toMatchObject({ result: 'SUCCESS', token });
    expect(references).toHaveLength(2);
    expect(references[0]).not.toBe(references[1]);
    for (const reference of references) {
      expect(reference.startsWith(`${token}-`)).toBe(true);
    }
  });

  it('ACQUIRER hands the name on card and the billing address (AVS) to the acquirer verifier', async () => {
    const seen: AcquirerVerificationRequest[] = [];
    const ctx = await setUp({}, { acquirer: { verify: async (request) => (seen.push(request), { strategy: 'ACQUIRER', passed: true, gatewayCode: 'EXTERNAL_VERIFICATION_SUCCESSFUL' }) } });
    await ctx.post({
      ...cardBody(TEST_CARD, TEST_EXPIRY.APPROVED, { nameOnCard: 'A Payer' }),
      billing: { address: { street: 'ADDRESS_MATCH' } },
      verificationStrategy: 'ACQUIRER',
      transaction: { currency: 'USD' },
    });
    expect(seen[0]).toMatchObject({ nameOnCard: 'A Payer', billingAddress: { street: 'ADDRESS_MATCH' } });
  });

  it('a failed verification of a card another token holds (Unique Card) names that token and leaves it as it was', async () => {
    const ctx = await setUp({ management: 'UNIQUE_CARD' });
    const holder = (await ctx.post(cardBody(TEST_CARD, TEST_EXPIRY.APPROVED))).token;
    const failed = await ctx.post({ ...cardBody(TEST_CARD, TEST_EXPIRY.DECLINED), verificationStrategy: 'ACQUIRER', transaction: { currency: 'USD' } });
    expect(failed).toMatchObject({ result: 'FAILURE', token: holder, response: { gatewayCode: 'EXTERNAL_VERIFICATION_DECLINED' } });
    expect([...ctx.bed.store.rows.values()]).toMatchObject([{ token: holder, cardExpiry: '0139', version: 1 }]);
  });

  it('verification is for cards: a provider_a token reports NONE, and asking for BASIC is refused', async () => {
    const ctx = await setUp({ defaultVerificationStrategy: 'BASIC' });
    expect(await ctx.post(agreementBody('B-1'))).toMatchObject({ verificationStrategy: 'NONE', response: { gatewayCode: 'NO_VERIFICATION_PERFORMED' } });
    expect(await rejected(ctx.post({ ...agreementBody('B-2'), verificationStrategy: 'BASIC' }))).toMatchObject({ code: 'INVALID_FIELD' });
    expect(ctx.bed.store.rows.size).toBe(1);
  });
});

describe('SaveToken: what is stored', () => {
  it('stores the card number sealed, and never the security code, name on card, billing or customer details', async () => {
    const ctx = await setUp();
    const body = await ctx.post({
      ...cardBody(TEST_CARD, TEST_EXPIRY.APPROVED, { securityCode: '987', nameOnCard: 'Jo Cardholder' }),
      billing: { address: { street: '1 Billing Road' } },
      customer: { firstName: 'Jo', email: 'jo@example.com' },
    });
    expect(body).toMatchObject({ billing: { address: { street: '1 Billing Road' } }, customer: { firstName: 'Jo' } });
    const row = [...ctx.bed.store.rows.values()][0];
    // Random and derived values (the token's digits, ids, timestamps, ciphertext and fingerprint
    // bytes) can contain any short digit run by chance: look for the merchant's values in the
    // columns that hold text, and check the sealed value opens to the card alone.
    const { token: _token, id: _id, createdAt: _c, updatedAt: _u, lastUsedAt: _l, ...columns } = row;
    const text = JSON.stringify(columns, (_key, value) => (value?.type === 'Buffer' ? '<bytes>' : value));
    for (const absent of [TEST_CARD, '987', 'Jo Cardholder', 'Billing Road', 'jo@example.com']) {
      expect(text).not.toContain(absent);
    }
    for (const sealed of [row.accountIdentifier, row.fingerprint]) {
      expect(sealed.toString('latin1')).not.toContain(TEST_CARD);
    }
    expect(row.cardNumberMasked).toBe('512345xxxxxx0008');
    const opened = await ctx.bed.sealing.openInstrument(row);
    expect(opened.type === 'CARD' && opened.pan.reveal()).toBe(TEST_CARD);
    expect(JSON.stringify(opened)).not.toMatch(/987|Jo Cardholder/);
  });

  it('ignores shipping details on card tokens (token rule 5)', async () => {
    const ctx = await setUp();
    const body = await ctx.post({ ...cardBody(), shipping: { address: { city: 'Shipton' } } });
    expect(body.shipping).toBeUndefined();
    expect([...ctx.bed.store.rows.values()][0].providerADetails).toBeNull();
  });
});

describe('SaveToken: p2pe card data', () => {
  const KSN = 'FFFF9876543210E00001';

  it('decrypts the test scheme and stores the card', async () => {
    const ctx = await setUp();
    const payload = ctx.bed.p2pe.encrypt(Pan.of(TEST_CARD), KSN);
    const body = await ctx.post({ sourceOfFunds: { type: 'CARD', provided: { card: { expiry: TEST_EXPIRY.APPROVED, p2pe: { keySerialNumber: KSN, payload, cardBin: '5123' } } } } });
    expect(body).toMatchObject({ result: 'SUCCESS', sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } } });
  });

  it.each([
    ['a cardBin the number does not start with', { cardBin: '4111' }, 'sourceOfFunds.provided.card.p2pe.cardBin'],
    ['encryptionState INVALID', { encryptionState: 'INVALID' }, 'sourceOfFunds.provided.card.p2pe.encryptionState'],
    ['another KSN than the one it was encrypted under', { keySerialNumber: 'FFFF9876543210E00002' }, 'sourceOfFunds.provided.card.p2pe.payload'],
  ])('declines %s', async (_what, change, field) => {
    const ctx = await setUp();
    const payload = ctx.bed.p2pe.encrypt(Pan.of(TEST_CARD), KSN);
    const p2pe = { keySerialNumber: KSN, payload, ...change };
    const error = await rejected(ctx.post({ sourceOfFunds: { type: 'CARD', provided: { card: { p2pe } } } }));
    expect(error).toMatchObject({ code: 'INVALID_FIELD', field, validationType: 'INVALID' });
    expect(ctx.bed.store.rows.size).toBe(0);
  });

  it('refuses a card number in clear alongside p2pe data', async () => {
    const ctx = await setUp();
    const payload = ctx.bed.p2pe.encrypt(Pan.of(TEST_CARD), KSN);
    const card = { number: TEST_CARD_SECOND, p2pe: { keySerialNumber: KSN, payload } };
    expect(await rejected(ctx.post({ sourceOfFunds: { type: 'CARD', provided: { card } } }))).toMatchObject({
      field: 'sourceOfFunds.provided.card.p2pe',
      validationType: 'UNSUPPORTED',
    });
    expect(ctx.bed.store.rows.size).toBe(0);
  });

  it('refuses p2pe data of live merchants (no live key management)', async () => {
    const ctx = await setUp({ mode: 'LIVE' });
    const payload = ctx.bed.p2pe.encrypt(Pan.of(TEST_CARD), KSN);
    expect(await rejected(ctx.post({ sourceOfFunds: { type: 'CARD', provided: { card: { p2pe: { keySerialNumber: KSN, payload } } } } }))).toMatchObject({
      field: 'sourceOfFunds.provided.card.p2pe',
      validationType: 'UNSUPPORTED',
    });
  });
});

describe('SaveToken: provider_a billing agreements', () => {
  it('stores the agreement with the shipping details and returns them', async () => {
    const ctx = await setUp();
    const body = await ctx.post(agreementBody('B-1', 'SINGLE', { shipping: { address: { city: 'Shipton', country: 'GBR' }, contact: { firstName: 'Sam' } } }));
    expect(body).toMatchObject({
      result: 'SUCCESS',
      sourceOfFunds: {
        type: 'PROVIDER_A',
        provided: { provider_a: { accountEmail: 'payer@example.com', accountHolder: 'A Payer', billingAgreement: { id: 'B-1', cardinality: 'SINGLE', name: 'Monthly' } } },
      },
      shipping: { address: { city: 'Shipton', country: 'GBR' }, contact: { firstName: 'Sam' } },
    });
    const retrieved = await ctx.bed.retrieve.execute({ merchant: ctx.merchant, authMethod: 'PASSWORD', tokenId: body.token as string });
    expect(retrieved.shipping).toEqual(body.shipping);
    const row = [...ctx.bed.store.rows.values()][0];
    expect(JSON.stringify(row)).not.toContain('Shipton');
    expect(JSON.stringify(row)).not.toContain('payer@example.com');
  });

  it('rejects provider_a details without a billing agreement (token rule 5)', async () => {
    const ctx = await setUp();
    const error = await rejected(ctx.post({ sourceOfFunds: { type: 'PROVIDER_A', provided: { provider_a: { accountEmail: 'payer@example.com' } } } }));
    expect(error).toMatchObject({ field: 'sourceOfFunds.provided.provider_a.billingAgreement', validationType: 'MISSING' });
  });

  it('keeps the id of a SINGLE agreement and replaces that of a MULTIPLE one', async () => {
    const ctx = await setUp();
    const single = (await ctx.post(agreementBody('S-1', 'SINGLE'))).token as string;
    expect(await rejected(ctx.put(single, agreementBody('S-2', 'SINGLE')))).toMatchObject({
      field: 'sourceOfFunds.provided.provider_a.billingAgreement.id',
    });
    const multiple = (await ctx.post(agreementBody('M-1', 'MULTIPLE'))).token as string;
    expect(await ctx.put(multiple, agreementBody('M-2', 'MULTIPLE'))).toMatchObject({
      sourceOfFunds: { provided: { provider_a: { billingAgreement: { id: 'M-2' } } } },
    });
  });

  it('lets a SINGLE agreement become a MULTIPLE one under another id', async () => {
    const ctx = await setUp();
    const token = (await ctx.post(agreementBody('S-1', 'SINGLE'))).token as string;
    expect(await ctx.put(token, agreementBody('M-1', 'MULTIPLE'))).toMatchObject({
      result: 'SUCCESS',
      sourceOfFunds: { provided: { provider_a: { billingAgreement: { id: 'M-1', cardinality: 'MULTIPLE' } } } },
    });
  });

  it('refuses updating a token to an agreement another token holds (Unique Account Identifier), on the agreement id', async () => {
    const ctx = await setUp({ management: 'UNIQUE_ACCOUNT_IDENTIFIER' });
    await ctx.post(agreementBody('B-1'));
    const other = (await ctx.post(agreementBody('B-2'))).token as string;
    expect(await rejected(ctx.put(other, agreementBody('B-1')))).toMatchObject({
      code: 'INVALID_FIELD',
      field: 'sourceOfFunds.provided.provider_a.billingAgreement.id',
      validationType: 'INVALID',
    });
  });

  it('keeps agreement ids unique under Unique Account Identifier, not under Unique Card', async () => {
    const uai = await setUp({ management: 'UNIQUE_ACCOUNT_IDENTIFIER' });
    const first = await uai.post(agreementBody('B-1'));
    expect((await uai.post(agreementBody('B-1'))).token).toBe(first.token);
    const card = await setUp({ management: 'UNIQUE_CARD' });
    const a = await card.post(agreementBody('B-1'));
    expect((await card.post(agreementBody('B-1'))).token).not.toBe(a.token);
  });
});

describe('SaveToken: scheme tokens', () => {
  it('tokenizes a new card when the repository is configured for it, keeping the scheme token sealed', async () => {
    const ctx = await setUp({ schemeTokenization: true });
    const body = await ctx.post(cardBody());
    expect(body).toMatchObject({ result: 'SUCCESS', response: { gatewayCode: 'SCHEME_TOKENIZATION_SUCCESSFUL' } });
    const row = [...ctx.bed.store.rows.values()][0];
    expect(row.schemeTokenOutcome).toBe('SCHEME_TOKENIZATION_SUCCESSFUL');
    const schemeToken = await ctx.bed.sealing.openSchemeToken(row);
    expect(schemeToken?.number.reveal()).toBe(simulatedSchemeTokenNumber(ctx.bed.fingerprinter, Pan.of(TEST_CARD)));
    expect(row.schemeToken!.toString('latin1')).not.toContain(schemeToken!.number.reveal());
  });

  it('keeps in clear only a scheme token reference that tells nothing of the card', async () => {
    const ctx = await setUp({ schemeTokenization: true });
    await ctx.post(cardBody());
    await ctx.post(cardBody());
    const rows = [...ctx.bed.store.rows.values()];
    // Two tokens of one card (Unique Token): references of their own, no hash of the card's digits.
    expect(rows.map((row) => row.schemeTokenReference)).toEqual([expect.stringMatching(/^SIM-[0-9a-f]{24}$/), expect.stringMatching(/^SIM-[0-9a-f]{24}$/)]);
    expect(rows[0].schemeTokenReference).not.toBe(rows[1].schemeTokenReference);
    for (const text of [TEST_CARD, simulatedSchemeTokenNumber(ctx.bed.fingerprinter, Pan.of(TEST_CARD))]) {
      expect(rows[0].schemeTokenReference).not.toBe(`SIM-${createHash('sha256').update(text).digest('hex').slice(0, 24)}`);
    }
  });

  it.each([
    ['SCHEME_TOKENIZATION_SUCCESSFUL_ADDITIONAL_AUTHENTICATION_REQUIRED', true],
    ['SCHEME_TOKENIZATION_DECLINED', false],
    ['SCHEME_TOKENIZATION_ERROR', false],
  ])('reports %s from the simulator (driven by nameOnCard) and still stores the gateway token', async (code, withSchemeToken) => {
    const ctx = await setUp({ schemeTokenization: true });
    const body = await ctx.post(cardBody(TEST_CARD, TEST_EXPIRY.APPROVED, { nameOnCard: code }));
    expect(body).toMatchObject({ result: 'SUCCESS', response: { gatewayCode: code } });
    const row = [...ctx.bed.store.rows.values()][0];
    expect(row.schemeTokenOutcome).toBe(code);
    expect(row.schemeToken !== null).toBe(withSchemeToken);
  });

  it('keeps the scheme token of an unchanged card and retries a failed tokenization', async () => {
    const ctx = await setUp({ schemeTokenization: true, generation: 'MERCHANT_SUPPLIED' });
    await ctx.put('t1', cardBody());
    expect(await ctx.put('t1', cardBody(TEST_CARD, TEST_EXPIRY.DECLINED))).toMatchObject({ response: { gatewayCode: 'NO_VERIFICATION_PERFORMED' } });
    expect([...ctx.bed.store.rows.values()][0].schemeToken).not.toBeNull();

    await ctx.put('t2', cardBody(TEST_CARD_SECOND, TEST_EXPIRY.APPROVED, { nameOnCard: 'SCHEME_TOKENIZATION_DECLINED' }));
    expect(await ctx.put('t2', cardBody(TEST_CARD_SECOND))).toMatchObject({ response: { gatewayCode: 'SCHEME_TOKENIZATION_SUCCESSFUL' } });
  });

  it('tokenizes the new card when the number of a token changes: the old card\'s scheme token is not kept', async () => {
    const ctx = await setUp({ schemeTokenization: true, generation: 'MERCHANT_SUPPLIED' });
    await ctx.put('t1', cardBody(TEST_CARD));
    expect(await ctx.put('t1', cardBody(TEST_CARD_SECOND))).toMatchObject({ response: { gatewayCode: 'SCHEME_TOKENIZATION_SUCCESSFUL' } });
    const schemeToken = await ctx.bed.sealing.openSchemeToken([...ctx.bed.store.rows.values()][0]);
    expect(schemeToken?.number.reveal()).toBe(simulatedSchemeTokenNumber(ctx.bed.fingerprinter, Pan.of(TEST_CARD_SECOND)));
  });

  it('keeps the tokenization outcome of an unchanged card with its scheme token', async () => {
    const ctx = await setUp({ schemeTokenization: true, generation: 'MERCHANT_SUPPLIED' });
    const code = 'SCHEME_TOKENIZATION_SUCCESSFUL_ADDITIONAL_AUTHENTICATION_REQUIRED';
    await ctx.put('t1', cardBody(TEST_CARD, TEST_EXPIRY.APPROVED, { nameOnCard: code }));
    await ctx.put('t1', cardBody(TEST_CARD, TEST_EXPIRY.DECLINED));
    expect([...ctx.bed.store.rows.values()][0]).toMatchObject({ version: 2, schemeTokenOutcome: code });
  });

  it('tokenizes again, outside the lock, when another save changed the expiry it tokenized with', async () => {
    const ctx = await setUp({ schemeTokenization: true, generation: 'MERCHANT_SUPPLIED' });
    await ctx.put('t1', cardBody(TEST_CARD_SECOND, TEST_EXPIRY.APPROVED));
    let interfered = false;
    ctx.bed.store.beforeWrite = async () => {
      if (!interfered) {
        interfered = true;
        await ctx.put('t1', cardBody(TEST_CARD_SECOND, TEST_EXPIRY.DECLINED));
      }
    };
    // A new number without an expiry takes the stored one, which the other save changed meanwhile.
    await ctx.put('t1', cardBody(TEST_CARD, null));
    const row = [...ctx.bed.store.rows.values()][0];
    expect(row.cardExpiry).toBe('0539');
    expect((await ctx.bed.sealing.openSchemeToken(row))?.expiry?.mmyy).toBe('0539');
  });

  it('does not tokenize for repositories not configured for it', async () => {
    const ctx = await setUp({ schemeTokenization: false });
    expect(await ctx.post(cardBody())).toMatchObject({ response: { gatewayCode: 'NO_VERIFICATION_PERFORMED' } });
    expect([...ctx.bed.store.rows.values()][0].schemeTokenOutcome).toBeNull();
  });

  it('answers SCHEME_TOKENIZATION_ERROR for live merchants: no live token service provider is connected', async () => {
    const ctx = await setUp({ schemeTokenization: true, mode: 'LIVE' });
    expect(await ctx.post(cardBody())).toMatchObject({ result: 'SUCCESS', repositoryId: '1000000001', response: { gatewayCode: 'SCHEME_TOKENIZATION_ERROR' } });
  });

  describe('push provisioning (token rule 8)', () => {
    const provisioning = (identifier: string, extra: Body = {}): Body => ({ sourceOfFunds: { type: 'CARD', schemeTokenProvisioningIdentifier: identifier, ...extra } });

    it('stores the card and scheme token the token service provider returns', async () => {
      const ctx = await setUp();
      const body = await ctx.post(provisioning('ISSUER-REF-1'));
      expect(body).toMatchObject({
        result: 'SUCCESS',
        response: { gatewayCode: 'SCHEME_TOKENIZATION_SUCCESSFUL' },
        sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', expiry: '0139' } } },
      });
      expect(await ctx.bed.sealing.openSchemeToken([...ctx.bed.store.rows.values()][0])).not.toBeNull();
    });

    it.each(['SCHEME_TOKENIZATION_DECLINED', 'SCHEME_TOKENIZATION_ERROR'])('answers %s with result FAILURE and stores nothing', async (code) => {
      const ctx = await setUp();
      expect(await ctx.post(provisioning(code))).toMatchObject({ result: 'FAILURE', response: { gatewayCode: code } });
      expect(ctx.bed.store.rows.size).toBe(0);
    });

    it('answers additional authentication required with the token stored', async () => {
      const ctx = await setUp();
      const code = 'SCHEME_TOKENIZATION_SUCCESSFUL_ADDITIONAL_AUTHENTICATION_REQUIRED';
      expect(await ctx.post(provisioning('SUCCESSFUL_ADDITIONAL_AUTHENTICATION_REQUIRED'))).toMatchObject({ result: 'SUCCESS', response: { gatewayCode: code } });
      expect(ctx.bed.store.rows.size).toBe(1);
    });

    it.each(['RANDOM', 'PRESERVE_6_4'] as const)(
      'refuses a PUT to an unknown token of a %s repository before asking the token service provider',
      async (generation) => {
        const ctx = await setUp({ generation });
        const provision = jest.spyOn(SimulatedTokenServiceProvider.prototype, 'provision');
        try {
          for (const identifier of ['ISSUER-REF-1', 'SCHEME_TOKENIZATION_DECLINED']) {
            const error = await rejected(ctx.put('9123450000000005', provisioning(identifier)));
            expect(error).toMatchObject({ code: 'INVALID_REQUEST', httpStatus: 400 });
            expect(error.explanation).toContain('does not exist');
          }
          expect(provision).not.toHaveBeenCalled();
          expect(ctx.bed.store.rows.size).toBe(0);
        } finally {
          provision.mockRestore();
        }
      },
    );

    it('rejects card details alongside, and needs type CARD', async () => {
      const ctx = await setUp();
      expect(await rejected(ctx.post(provisioning('REF', { provided: { card: { number: TEST_CARD } } })))).toMatchObject({
        field: 'sourceOfFunds.provided.card',
        validationType: 'UNSUPPORTED',
      });
      expect(await rejected(ctx.post({ sourceOfFunds: { schemeTokenProvisioningIdentifier: 'REF' } }))).toMatchObject({
        field: 'sourceOfFunds.type',
        validationType: 'MISSING',
      });
    });
  });
});

describe('SaveToken: response', () => {
  it('carries every token field, card data masked, expiry as MMYY, brand from the BIN table', async () => {
    const ctx = await setUp({ generation: 'MERCHANT_SUPPLIED' });
    const body = await ctx.put('tok1', {
      ...cardBody(TEST_CARD, TEST_EXPIRY.APPROVED),
      device: { ipAddress: '10.0.0.1' },
      externalTokenProvider: { customData: '{"site":"a"}' },
    });
    expect(body).toEqual({
      device: { ipAddress: '10.0.0.1' },
      externalTokenProvider: { customData: '{"site":"a"}' },
      repositoryId: 'Test1000000001',
      token: 'tok1',
      status: 'VALID',
      verificationStrategy: 'NONE',
      usage: { lastUpdated: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), lastUpdatedBy: ctx.merchant.id },
      sourceOfFunds: {
        type: 'CARD',
        provided: { card: { number: '512345xxxxxx0008', expiry: '0139', brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT' } },
      },
      response: { gatewayCode: 'NO_VERIFICATION_PERFORMED' },
      result: 'SUCCESS',
    });
    expect(JSON.stringify(body)).not.toContain(TEST_CARD);
  });

  it('names the merchant that last updated a token of a repository merchants share', async () => {
    const ctx = await setUp({ generation: 'MERCHANT_SUPPLIED' });
    // Same repository id (the default), another merchant: a deliberately shared repository.
    const other = testMerchant({ generation: 'MERCHANT_SUPPLIED' });
    await ctx.put('shared', cardBody());
    const updated = await saver(ctx.bed, other).put('shared', cardBody(TEST_CARD, TEST_EXPIRY.DECLINED));
    expect(updated).toMatchObject({ token: 'shared', usage: { lastUpdatedBy: other.id } });
  });

  it('shows an expired card\'s token as INVALID', async () => {
    const ctx = await setUp();
    expect(await ctx.post(cardBody(TEST_CARD, { month: '1', year: '20' }))).toMatchObject({ result: 'SUCCESS', status: 'INVALID' });
  });

  it('unmasks the number only with the permission and certificate authentication', async () => {
    const allowed = await setUp({ generation: 'MERCHANT_SUPPLIED', unmask: true });
    const unmask = { ...cardBody(), responseControls: { sensitiveData: 'UNMASK' } };
    expect(await allowed.put('t1', unmask, 'CERTIFICATE')).toMatchObject({ sourceOfFunds: { provided: { card: { number: TEST_CARD } } } });
    expect(await rejected(allowed.put('t2', unmask, 'PASSWORD'))).toMatchObject({ field: 'responseControls.sensitiveData' });
    const notAllowed = await setUp({ generation: 'MERCHANT_SUPPLIED', unmask: false });
    expect(await rejected(notAllowed.put('t1', unmask, 'CERTIFICATE'))).toMatchObject({ field: 'responseControls.sensitiveData' });
    expect(notAllowed.bed.store.rows.size).toBe(0);
  });
});

describe('SaveToken: concurrent writers', () => {
  const expiryOnly = (expiry: { month: string; year: string }, extra: Body = {}): Body => ({
    sourceOfFunds: { type: 'CARD', provided: { card: { expiry } } },
    ...extra,
  });

  it('writes a new token without a transaction, and updates one in a transaction', async () => {
    const ctx = await setUp({ generation: 'MERCHANT_SUPPLIED' });
    await ctx.put('t1', cardBody(TEST_CARD, TEST_EXPIRY.APPROVED));
    expect(ctx.bed.store.transactions).toBe(0);
    await ctx.put('t1', expiryOnly(TEST_EXPIRY.DECLINED));
    expect(ctx.bed.store.transactions).toBe(1);
  });

  it('starts over as an update when another request created the token between its read and its insert', async () => {
    const ctx = await setUp({ generation: 'MERCHANT_SUPPLIED' });
    let interfered = false;
    ctx.bed.store.beforeWrite = async () => {
      if (!interfered) {
        interfered = true;
        await ctx.put('t1', cardBody(TEST_CARD_SECOND, TEST_EXPIRY.APPROVED));
      }
    };
    const body = await ctx.put('t1', cardBody(TEST_CARD, TEST_EXPIRY.DECLINED));
    expect(interfered).toBe(true);
    expect(body).toMatchObject({ result: 'SUCCESS', sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008', expiry: '0539' } } } });
    expect(ctx.bed.store.rows.size).toBe(1);
    expect([...ctx.bed.store.rows.values()][0].version).toBe(2);
  });

  it.each(['UNIQUE_CARD', 'UNIQUE_ACCOUNT_IDENTIFIER'] as const)(
    '%s: a generated creation that meets the same card created meanwhile starts over and returns that token (not a new token id drawn, not a 400)',
    async (management) => {
      const ctx = await setUp({ generation: 'RANDOM', management });
      let holder: string | undefined;
      ctx.bed.store.beforeWrite = async () => {
        if (holder === undefined) {
          holder = '';
          holder = (await ctx.post(cardBody(TEST_CARD, TEST_EXPIRY.APPROVED))).token as string;
        }
      };
      const body = await ctx.post(cardBody(TEST_CARD, TEST_EXPIRY.DECLINED));
      expect(body).toMatchObject({ result: 'SUCCESS', token: holder, sourceOfFunds: { provided: { card: { expiry: '0539' } } } });
      expect(ctx.bed.store.rows.size).toBe(1);
    },
  );

  it('plans again on the locked row when another save landed between its read and its write', async () => {
    const ctx = await setUp({ generation: 'MERCHANT_SUPPLIED' });
    await ctx.put('t1', cardBody(TEST_CARD, TEST_EXPIRY.APPROVED));
    let interfered = false;
    ctx.bed.store.beforeWrite = async () => {
      if (!interfered) {
        interfered = true;
        await ctx.put('t1', cardBody(TEST_CARD_SECOND, TEST_EXPIRY.APPROVED));
      }
    };
    const body = await ctx.put('t1', expiryOnly(TEST_EXPIRY.DECLINED));
    expect(interfered).toBe(true);
    // The expiry-only update applies on top of the other save's card: serial, not lost.
    expect(body).toMatchObject({ result: 'SUCCESS', sourceOfFunds: { provided: { card: { number: '512345xxxxxx0016', expiry: '0539' } } } });
  });

  it('starts over, outside the lock, when the new state needs another verification', async () => {
    const verified: string[] = [];
    const ctx = await setUp(
      { generation: 'MERCHANT_SUPPLIED' },
      { acquirer: { verify: async ({ card }) => (verified.push(card.pan.masked), { strategy: 'ACQUIRER', passed: true, gatewayCode: 'EXTERNAL_VERIFICATION_SUCCESSFUL' }) } },
    );
    await ctx.put('t1', cardBody(TEST_CARD));
    let interfered = false;
    ctx.bed.store.beforeWrite = async () => {
      if (!interfered) {
        interfered = true;
        await ctx.put('t1', cardBody(TEST_CARD_SECOND));
      }
    };
    const body = await ctx.put('t1', expiryOnly(TEST_EXPIRY.DECLINED, { verificationStrategy: 'ACQUIRER' }));
    expect(verified).toEqual(['512345xxxxxx0008', '512345xxxxxx0016']);
    expect(body).toMatchObject({ result: 'SUCCESS', response: { gatewayCode: 'EXTERNAL_VERIFICATION_SUCCESSFUL' } });
  });

  it('verifies again, outside the lock, when another save changed the expiry it verified', async () => {
    const verified: string[] = [];
    const ctx = await setUp(
      { generation: 'MERCHANT_SUPPLIED', defaultVerificationStrategy: 'ACQUIRER' },
      { acquirer: { verify: async ({ card }) => (verified.push(card.expiry!.mmyy), { strategy: 'ACQUIRER', passed: true, gatewayCode: 'EXTERNAL_VERIFICATION_SUCCESSFUL' }) } },
    );
    const unverified = (expiry: { month: string; year: string }) => ({ ...cardBody(TEST_CARD, expiry), verificationStrategy: 'NONE' });
    await ctx.put('t1', unverified(TEST_EXPIRY.APPROVED));
    let interfered = false;
    ctx.bed.store.beforeWrite = async () => {
      if (!interfered) {
        interfered = true;
        await ctx.put('t1', unverified(TEST_EXPIRY.DECLINED));
      }
    };
    // The number alone, under the profile's ACQUIRER: the expiry verified is the stored one, which the other save changed.
    const body = await ctx.put('t1', { ...cardBody(TEST_CARD, null), transaction: { currency: 'USD' } });
    expect(verified).toEqual(['0139', '0539']);
    expect(body).toMatchObject({ result: 'SUCCESS', sourceOfFunds: { provided: { card: { expiry: '0539' } } } });
  });

  it('starts over when another request deleted the token between its read and its write', async () => {
    const ctx = await setUp({ generation: 'MERCHANT_SUPPLIED' });
    await ctx.put('t1', cardBody(TEST_CARD, TEST_EXPIRY.APPROVED));
    let deleted = false;
    ctx.bed.store.beforeWrite = async () => {
      if (!deleted) {
        deleted = true;
        await ctx.bed.remove.execute({ merchant: ctx.merchant, tokenId: 't1' });
      }
    };
    const body = await ctx.put('t1', cardBody(TEST_CARD, TEST_EXPIRY.DECLINED));
    expect(deleted).toBe(true);
    // Merchant-Supplied: a PUT to a token that no longer exists creates it again.
    expect(body).toMatchObject({ result: 'SUCCESS', token: 't1', sourceOfFunds: { provided: { card: { expiry: '0539' } } } });
    expect([...ctx.bed.store.rows.values()]).toMatchObject([{ token: 't1', version: 1 }]);
  });

  it.each(['UNIQUE_CARD', 'UNIQUE_ACCOUNT_IDENTIFIER'] as const)(
    '%s: creates a token when the holder a creation was redirected to took another card before its write',
    async (management) => {
      const ctx = await setUp({ generation: 'RANDOM', management });
      const holder = (await ctx.post(cardBody(TEST_CARD, TEST_EXPIRY.APPROVED))).token as string;
      let interfered = false;
      ctx.bed.store.beforeWrite = async () => {
        if (!interfered) {
          interfered = true;
          // Between the creation's read (which found the holder of TEST_CARD) and its write, the
          // holder's merchant moves it to another card.
          await ctx.put(holder, cardBody(TEST_CARD_SECOND, TEST_EXPIRY.DECLINED));
        }
      };
      const created = await ctx.post(cardBody(TEST_CARD, TEST_EXPIRY.UNKNOWN));
      expect(interfered).toBe(true);
      // As if run one after the other: the card has no holder any more, so the creation makes a
      // token of its own, and the holder keeps the card its update answered.
      expect(created).toMatchObject({ result: 'SUCCESS', sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008', expiry: '0537' } } } });
      expect(created.token).not.toBe(holder);
      const rows = [...ctx.bed.store.rows.values()];
      expect(rows.map((r) => [r.token === holder ? 'holder' : 'created', r.cardNumberMasked, r.cardExpiry]).sort()).toEqual([
        ['created', '512345xxxxxx0008', '0537'],
        ['holder', '512345xxxxxx0016', '0539'],
      ]);
    },
  );

  it('redirects a creation to the new holder when the card moved to another token before its write', async () => {
    const ctx = await setUp({ generation: 'RANDOM', management: 'UNIQUE_CARD' });
    const first = (await ctx.post(cardBody(TEST_CARD, TEST_EXPIRY.APPROVED))).token as string;
    const second = (await ctx.post(cardBody(TEST_CARD_SECOND, TEST_EXPIRY.APPROVED))).token as string;
    let interfered = false;
    ctx.bed.store.beforeWrite = async () => {
      if (!interfered) {
        interfered = true;
        // The card leaves the first token, and the second token takes it.
        await ctx.put(first, cardBody(TEST_CARD_UNKNOWN_BIN));
        await ctx.put(second, cardBody(TEST_CARD));
      }
    };
    const created = await ctx.post(cardBody(TEST_CARD, TEST_EXPIRY.DECLINED));
    expect(interfered).toBe(true);
    expect(created).toMatchObject({ result: 'SUCCESS', token: second, sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008', expiry: '0539' } } } });
    const byToken = new Map([...ctx.bed.store.rows.values()].map((r) => [r.token, r.cardNumberMasked]));
    expect(byToken).toEqual(new Map([[first, '112345xxxxxx0007'], [second, '512345xxxxxx0008']]));
  });

  it('asks the caller to retry when every new state of the token needs another verification', async () => {
    const ctx = await setUp({ generation: 'MERCHANT_SUPPLIED' }, {
      acquirer: { verify: async () => ({ strategy: 'ACQUIRER', passed: true, gatewayCode: 'EXTERNAL_VERIFICATION_SUCCESSFUL' }) },
    });
    // Five different cards (the test card's derived numbers, each passing Luhn): one per attempt and one more.
    const cards = [TEST_CARD, TEST_CARD_SECOND, TEST_CARD_UNKNOWN_BIN, '5123450000000024', '5123450000000032'];
    await ctx.put('t1', cardBody(cards[0]));
    let writes = 0;
    let busy = false;
    ctx.bed.store.beforeWrite = async () => {
      if (!busy && writes < cards.length - 1) {
        busy = true;
        await ctx.put('t1', cardBody(cards[++writes]));
        busy = false;
      }
    };
    expect(await rejected(ctx.put('t1', expiryOnly(TEST_EXPIRY.DECLINED, { verificationStrategy: 'ACQUIRER' })))).toMatchObject({ code: 'SERVER_BUSY' });
    expect(writes).toBe(4);
  });
});

describe('SaveToken: a payment session\'s card', () => {
  const SESSION = 'SESSION0000000000000000000000001';

  async function withSession(
    card: Parameters<Bed['sessionCards']['seal']>[1],
    bindingId = SESSION,
    repository: TestRepository = {},
    bedOptions: Parameters<typeof vaultTestBed>[0] = {},
  ) {
    const ctx = await setUp(repository, bedOptions);
    const sealedCard = ctx.bed.sessionCards.seal({ merchantId: ctx.merchant.id, bindingId }, card);
    const post = (body: Body) =>
      ctx.bed.save.execute({
        envelope: testEnvelope(ctx.merchant),
        fields: validateTokenRequest(body),
        session: { id: SESSION, sealedCard },
      });
    return { ctx, post };
  }

  it('stores the session\'s card when the request names only the session', async () => {
    const { ctx, post } = await withSession({ number: TEST_CARD, expiry: { month: '1', year: '39' } });
    const body = await post({ session: { id: SESSION }, sourceOfFunds: { type: 'CARD' } });
    expect(body).toMatchObject({
      result: 'SUCCESS',
      sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008', expiry: '0139' } } },
    });
    const opened = await ctx.bed.sealing.openInstrument([...ctx.bed.store.rows.values()][0]);
    expect(opened.type === 'CARD' && opened.pan.reveal()).toBe(TEST_CARD);
  });

  it('lets the request\'s own card details win over the session\'s', async () => {
    const { post } = await withSession({ number: TEST_CARD, expiry: { month: '1', year: '39' } });
    const body = await post({
      session: { id: SESSION },
      sourceOfFunds: { type: 'CARD', provided: { card: { expiry: { month: '5', year: '39' } } } },
    });
    expect(body).toMatchObject({ sourceOfFunds: { provided: { card: { expiry: '0539' } } } });
  });

  it.each([
    ['requested', {}, { verificationStrategy: 'BASIC' }],
    ['the profile\'s default', { defaultVerificationStrategy: 'BASIC' as const }, {}],
  ])('BASIC (%s) takes the expiry of the session\'s card (token rule 9)', async (_how, repository, strategy) => {
    const { post } = await withSession({ number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED }, SESSION, repository);
    expect(await post({ session: { id: SESSION }, sourceOfFunds: { type: 'CARD' }, ...strategy })).toMatchObject({
      result: 'SUCCESS',
      verificationStrategy: 'BASIC',
      response: { gatewayCode: 'BASIC_VERIFICATION_SUCCESSFUL' },
      sourceOfFunds: { provided: { card: { expiry: '0139' } } },
    });
  });

  it.each([
    ['requested', {}, { verificationStrategy: 'BASIC' }],
    ['the profile\'s default', { defaultVerificationStrategy: 'BASIC' as const }, {}],
  ])('BASIC (%s) needs an expiry when neither the request nor the session gives one', async (_how, repository, strategy) => {
    const { ctx, post } = await withSession({ number: TEST_CARD }, SESSION, repository);
    expect(await rejected(post({ session: { id: SESSION }, sourceOfFunds: { type: 'CARD' }, ...strategy }))).toMatchObject({
      field: 'sourceOfFunds.provided.card.expiry',
      validationType: 'MISSING',
    });
    expect(ctx.bed.store.rows.size).toBe(0);
  });

  it('verifies at the acquirer with the session\'s security code: 102 is a CSC mismatch, nothing stored', async () => {
    const { ctx, post } = await withSession({ number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: '102' });
    const body = await post({ session: { id: SESSION }, sourceOfFunds: { type: 'CARD' }, verificationStrategy: 'ACQUIRER', transaction: { currency: 'USD' } });
    expect(body).toMatchObject({ result: 'FAILURE', verificationStrategy: 'ACQUIRER', response: { gatewayCode: 'EXTERNAL_VERIFICATION_DECLINED_INVALID_CSC' } });
    expect(ctx.bed.store.rows.size).toBe(0);
    // A session's card is in the vault's custody: verified by the vault, never sent out in clear.
    expect(ctx.bed.verificationService.received).toHaveLength(0);
  });

  it('completes the verified card explicit over session: the request\'s number, the session\'s code and name on card, in the vault', async () => {
    const seen: AcquirerVerificationRequest[] = [];
    const acquirer = { verify: async (request: AcquirerVerificationRequest): Promise<VerificationOutcome> => (seen.push(request), { strategy: 'ACQUIRER', passed: true, gatewayCode: 'EXTERNAL_VERIFICATION_SUCCESSFUL' }) };
    const { post } = await withSession({ expiry: TEST_EXPIRY.APPROVED, securityCode: '102', nameOnCard: 'Jo Session' }, SESSION, {}, { acquirer });
    const verified = (card: Body) =>
      post({ session: { id: SESSION }, sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, ...card } } }, verificationStrategy: 'ACQUIRER', transaction: { currency: 'USD' } });
    expect(await verified({})).toMatchObject({ result: 'SUCCESS', response: { gatewayCode: 'EXTERNAL_VERIFICATION_SUCCESSFUL' } });
    expect(await verified({ securityCode: '100', nameOnCard: 'Jo Request' })).toMatchObject({ result: 'SUCCESS' });
    expect(seen.map((r) => [r.card.pan.reveal(), r.card.expiry?.mmyy, r.securityCode?.reveal(), r.nameOnCard, r.numberFromRequest])).toEqual([
      [TEST_CARD, '0139', '102', 'Jo Session', false],
      [TEST_CARD, '0139', '100', 'Jo Request', false],
    ]);
  });

  it('hands the session\'s name on card to the token service provider, the request\'s winning', async () => {
    const { post } = await withSession({ number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, nameOnCard: 'DECLINED' }, SESSION, { schemeTokenization: true });
    expect(await post({ session: { id: SESSION }, sourceOfFunds: { type: 'CARD' } })).toMatchObject({ result: 'SUCCESS', response: { gatewayCode: 'SCHEME_TOKENIZATION_DECLINED' } });
    expect(await post({ session: { id: SESSION }, sourceOfFunds: { type: 'CARD', provided: { card: { nameOnCard: 'Jo Request' } } } })).toMatchObject({
      response: { gatewayCode: 'SCHEME_TOKENIZATION_SUCCESSFUL' },
    });
  });

  it('answers token ids proposed for a session\'s card alike whether or not one is the card: the merchant learns nothing it cannot read masked', async () => {
    // A merchant that never saw the card (the payer's browser filled the session) proposing
    // Merchant-Supplied token ids: the card itself and ids matching its masked number are refused
    // with one answer, so guessing ids cannot tell it the number.
    const ctx = await setUp({ generation: 'MERCHANT_SUPPLIED' });
    const sealedCard = ctx.bed.sessionCards.seal({ merchantId: ctx.merchant.id, bindingId: SESSION }, { number: TEST_CARD, expiry: { month: '1', year: '39' } });
    const put = (token: string) =>
      ctx.bed.save.execute({
        envelope: testEnvelope(ctx.merchant),
        tokenId: token,
        fields: validateTokenRequest({ session: { id: SESSION }, sourceOfFunds: { type: 'CARD' } }),
        session: { id: SESSION, sealedCard },
      });
    const answers = await Promise.all([TEST_CARD, '5123459999990008', '5123451111110008'].map((token) => rejected(put(token))));
    for (const answer of answers) {
      expect(answer).toMatchObject({ code: 'INVALID_FIELD', field: 'tokenid', validationType: 'INVALID' });
      expect(answer.explanation).toBe(answers[0].explanation);
    }
    expect(ctx.bed.store.rows.size).toBe(0);
    expect(await put('5123459999990009')).toMatchObject({ result: 'SUCCESS', token: '5123459999990009' });
  });

  it('refuses a sealed card of another session on session.id, opening nothing', async () => {
    const { post } = await withSession({ number: TEST_CARD, expiry: { month: '1', year: '39' } }, `${SESSION.slice(0, -1)}2`);
    const error = await rejected(post({ session: { id: SESSION }, sourceOfFunds: { type: 'CARD' } }));
    expect(error).toMatchObject({ code: 'INVALID_FIELD', field: 'session.id', validationType: 'INVALID' });
  });
});

describe('SaveToken: Preserve 6.4 token ids of a short card running out', () => {
  it('refuses with a 400 on the card number, after a bounded number of draws, once a 12-digit card\'s tokens are taken', async () => {
    const ctx = await setUp({ generation: 'PRESERVE_6_4', management: 'UNIQUE_TOKEN' });
    const insert = jest.spyOn(ctx.bed.store, 'insert');
    // 12 digits leave two to vary: 100 candidates, 10 of them Luhn-valid, so 90 possible tokens.
    let refusal: GatewayError | undefined;
    let insertsOfRefusedSave = 0;
    for (let save = 0; save < 200 && !refusal; save++) {
      const before = insert.mock.calls.length;
      try {
        await ctx.post(cardBody(TEST_CARD_SHORT));
      } catch (err) {
        if (!(err instanceof GatewayError)) {
          throw err;
        }
        refusal = err;
        insertsOfRefusedSave = insert.mock.calls.length - before;
      }
    }
    expect(refusal).toMatchObject({ code: 'INVALID_FIELD', field: 'sourceOfFunds.provided.card.number', validationType: 'INVALID' });
    expect(refusal!.explanation).toContain('no free token is left for this card');
    expect(refusal!.explanation).not.toContain(TEST_CARD_SHORT);
    expect(insertsOfRefusedSave).toBe(GENERATED_TOKEN_ATTEMPTS);
    const tokens = [...ctx.bed.store.rows.values()].map((row) => row.token);
    expect(new Set(tokens).size).toBe(tokens.length);
    // Refused only once most ids are taken: with k of 90 taken, all ten draws collide with chance (k/90)^10.
    expect(tokens.length).toBeGreaterThan(20);
    expect(tokens.length).toBeLessThanOrEqual(90);
    for (const token of tokens) {
      expect(token).toMatch(/^512345[0-9]{2}0008$/);
      expect(passesLuhn(token)).toBe(false);
    }
  });
});
