import { randomBytes } from 'node:crypto';
import {
  defaultMerchantSettings,
  GatewayError,

  MerchantContext,
  OperationReply,
  SUBJECTS,
  TokenGenerationStrategy,
  TokenManagementStrategy,
} from '@gateway/contracts';
import { Fingerprinter, Pan } from '@gateway/crypto';
import { dumpSchema, findInDump, waitFor, TEST_CARD, TEST_CARD_LUHN_FAILURE, TEST_CARD_NUMBERS, TEST_CARD_SECOND, TEST_CARD_UNKNOWN_BIN, TEST_EXPIRY } from '@gateway/testing';
import { TokenRepository } from '@gateway/token-vault/data-access';
import { FINGERPRINTER, simulatedSchemeTokenNumber, TEST_P2PE_SCHEME, TestP2peScheme, TokenSealing } from '@gateway/token-vault/domain';
import type { Pool, PoolClient } from 'pg';
import { startVaultApp, VaultApp } from './testing/vault-app';

// Values that must never be stored in clear: looked for in the schema dump and the logs.
const SECURITY_CODE = '7319';
const NAME_ON_CARD = 'Zebedee Quixote';
const BILLING_STREET = '42 Billingsgate Lane';
const CUSTOMER_EMAIL = 'zebedee.customer@example.com';
const SHIPPING_STREET = '7 Shipwright Row';
const PAYER_EMAIL = 'zebedee.payer@example.com';

let app: VaultApp;

beforeAll(async () => {
  app = await startVaultApp();
}, 60_000);

afterAll(async () => {
  await app?.close();
});

function merchant(generation: TokenGenerationStrategy, management: TokenManagementStrategy, extra: { schemeTokenization?: boolean } = {}): MerchantContext {
  const settings = defaultMerchantSettings();
  return {
    id: `INT${randomBytes(4).toString('hex').toUpperCase()}`,
    mode: 'TEST',
    settings: {
      ...settings,
      tokenRepository: {
        ...settings.tokenRepository,
        // A repository of its own per test: tests never see each other's tokens.
        id: randomBytes(6).toString('hex'),
        generation,
        management,
        schemeTokenization: extra.schemeTokenization ?? false,
      },
    },
  };
}

function envelope(m: MerchantContext) {
  return { merchant: m, apiVersion: 57, requestId: `int-${randomBytes(6).toString('hex')}`, authMethod: 'PASSWORD' as const };
}

const put = async (m: MerchantContext, tokenId: string, body: object) =>
  (await app.request<OperationReply>(SUBJECTS.tokenVault.saveToken, { envelope: envelope(m), tokenId, body })).body;
const post = async (m: MerchantContext, body: object) =>
  (await app.request<OperationReply>(SUBJECTS.tokenVault.createToken, { envelope: envelope(m), body })).body;
const get = async (m: MerchantContext, tokenId: string) =>
  (await app.request<OperationReply>(SUBJECTS.tokenVault.retrieveToken, { envelope: envelope(m), tokenId })).body;
const remove = async (m: MerchantContext, tokenId: string) =>
  (await app.request<OperationReply>(SUBJECTS.tokenVault.deleteToken, { envelope: envelope(m), tokenId })).body;

const card = (number: string, expiry: { month: string; year: string } = TEST_EXPIRY.APPROVED, extra: object = {}) => ({
  sourceOfFunds: { type: 'CARD', provided: { card: { number, expiry, ...extra } } },
});

async function storedCard(m: MerchantContext, token: string): Promise<{ pan: string; expiry: string | null; masked: string | null; version: number }> {
  const record = (await TokenRepository.over(app.dataSource).findByToken(`Test${m.settings.tokenRepository.id}`, token))!;
  const instrument = await app.get(TokenSealing).openInstrument(record);
  if (instrument.type !== 'CARD') {
    throw new Error('not a card token');
  }
  return { pan: instrument.pan.reveal(), expiry: instrument.expiry?.mmyy ?? null, masked: record.cardNumberMasked, version: record.version };
}

describe('token-vault subjects, against Postgres', () => {
  it('creates, updates, retrieves and deletes a token', async () => {
    const m = merchant('RANDOM', 'UNIQUE_TOKEN');
    const created = await post(m, card(TEST_CARD));
    expect(created).toMatchObject({ result: 'SUCCESS', repositoryId: `Test${m.settings.tokenRepository.id}`, status: 'VALID' });
    const token = created.token as string;
    expect(token).toMatch(/^9[0-9]{15}$/);
    expect(await put(m, token, card(TEST_CARD, TEST_EXPIRY.DECLINED))).toMatchObject({ token, sourceOfFunds: { provided: { card: { expiry: '0539' } } } });
    expect(await get(m, token)).toMatchObject({ token, sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008', expiry: '0539' } } } });
    const [times] = await app.dataSource.query('SELECT created_at < updated_at AS touched, version FROM token_vault.tokens WHERE token = $1', [token]);
    expect(times).toEqual({ touched: true, version: 2 });
    expect(await remove(m, token)).toEqual({ result: 'SUCCESS' });
    await expect(get(m, token)).rejects.toMatchObject({ gatewayError: true, code: 'NOT_FOUND' });
  });

  it('answers rule violations as coded errors on the wire', async () => {
    const m = merchant('RANDOM', 'UNIQUE_TOKEN');
    const error = await put(m, '9000000000000001', card(TEST_CARD)).catch((err: unknown) => err);
    expect(GatewayError.isWire(error)).toBe(true);
    expect(error).toMatchObject({ code: 'INVALID_REQUEST' });
    const field = await post(m, { ...card(TEST_CARD), verificationStrategy: 'BASIC', sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD } } } }).catch(
      (err: unknown) => err,
    );
    expect(field).toMatchObject({ code: 'INVALID_FIELD', field: 'sourceOfFunds.provided.card.expiry', validationType: 'MISSING' });
  });

  it('refuses a card number failing Luhn on the wire as at the edge, keyed or in a p2pe payload, storing nothing', async () => {
    // The vault validates the request again (a message is no proof the edge checked it).
    const m = merchant('MERCHANT_SUPPLIED', 'UNIQUE_TOKEN');
    const keyed = await put(m, 'luhn', card(TEST_CARD_LUHN_FAILURE)).catch((err: unknown) => err);
    expect(keyed).toMatchObject({ code: 'INVALID_FIELD', field: 'sourceOfFunds.provided.card.number', validationType: 'INVALID' });
    expect(JSON.stringify(keyed)).not.toContain(TEST_CARD_LUHN_FAILURE);
    const p2pe = app.get<TestP2peScheme>(TEST_P2PE_SCHEME);
    const ksn = 'FFFF9876543210E00008';
    const payload = p2pe.encrypt(Pan.of(TEST_CARD_LUHN_FAILURE), ksn);
    const encrypted = await put(m, 'luhn', { sourceOfFunds: { type: 'CARD', provided: { card: { p2pe: { keySerialNumber: ksn, payload } } } } }).catch(
      (err: unknown) => err,
    );
    expect(encrypted).toMatchObject({ code: 'INVALID_FIELD', field: 'sourceOfFunds.provided.card.p2pe.payload', validationType: 'INVALID' });
    await expect(get(m, 'luhn')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('keeps one token per account identifier under Unique Account Identifier', async () => {
    const m = merchant('MERCHANT_SUPPLIED', 'UNIQUE_ACCOUNT_IDENTIFIER');
    await put(m, 'holderA', card(TEST_CARD));
    await put(m, 'holderB', card(TEST_CARD_SECOND));
    await expect(put(m, 'holderB', card(TEST_CARD))).rejects.toMatchObject({ code: 'INVALID_FIELD', field: 'sourceOfFunds.provided.card.number' });
    // The same card again under a new merchant-supplied token: refused, nothing created, the
    // holder unchanged.
    await expect(put(m, 'holderC', card(TEST_CARD, TEST_EXPIRY.DECLINED))).rejects.toMatchObject({
      code: 'INVALID_FIELD',
      field: 'sourceOfFunds.provided.card.number',
    });
    await expect(get(m, 'holderC')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await get(m, 'holderA')).toMatchObject({ token: 'holderA', sourceOfFunds: { provided: { card: { expiry: '0139' } } } });
  });

  it('never stores a merchant-supplied token equal to its card, on creation or update (PUT or POST)', async () => {
    const m = merchant('MERCHANT_SUPPLIED', 'UNIQUE_TOKEN');
    const refusedOn = (field: string) => ({ code: 'INVALID_FIELD', field, validationType: 'INVALID' });
    await expect(put(m, TEST_CARD, card(TEST_CARD))).rejects.toMatchObject(refusedOn('tokenid'));
    expect(await put(m, TEST_CARD, card(TEST_CARD_SECOND))).toMatchObject({ result: 'SUCCESS', token: TEST_CARD });
    await expect(put(m, TEST_CARD, card(TEST_CARD))).rejects.toMatchObject(refusedOn('tokenid'));
    const viaPost = { sourceOfFunds: { ...card(TEST_CARD).sourceOfFunds, token: TEST_CARD } };
    await expect(post(m, viaPost)).rejects.toMatchObject(refusedOn('sourceOfFunds.token'));
    expect(await storedCard(m, TEST_CARD)).toMatchObject({ pan: TEST_CARD_SECOND, version: 1 });
    // The token is itself a test card number: the schema dump below must not find it.
    expect(await remove(m, TEST_CARD)).toEqual({ result: 'SUCCESS' });
  });

  it('leaves a token as exactly one of many concurrent PUTs, each applied in turn', async () => {
    const m = merchant('MERCHANT_SUPPLIED', 'UNIQUE_TOKEN');
    await put(m, 'contended', card(TEST_CARD));
    const numbers = [TEST_CARD, TEST_CARD_SECOND, TEST_CARD_UNKNOWN_BIN];
    const expiries = [TEST_EXPIRY.APPROVED, TEST_EXPIRY.DECLINED, TEST_EXPIRY.EXPIRED_CARD, TEST_EXPIRY.TIMED_OUT, TEST_EXPIRY.UNKNOWN, TEST_EXPIRY.ACQUIRER_SYSTEM_ERROR];
    const requests = Array.from({ length: 16 }, (_, i) => ({ number: numbers[i % 3], expiry: expiries[i % expiries.length] }));
    const replies = await Promise.all(requests.map((r) => put(m, 'contended', card(r.number, r.expiry))));
    expect(replies.every((reply) => reply.result === 'SUCCESS')).toBe(true);
    const final = await storedCard(m, 'contended');
    const matches = requests.filter((r) => r.number === final.pan && `${r.expiry.month.padStart(2, '0')}${r.expiry.year}` === final.expiry);
    expect(matches.length).toBeGreaterThan(0);
    expect(final.masked).toBe(Pan.of(final.pan).masked);
    expect(final.version).toBe(1 + requests.length);
  });

  it('makes one token of concurrent creations of one card under Unique Card', async () => {
    const m = merchant('RANDOM', 'UNIQUE_CARD');
    const replies = await Promise.all(Array.from({ length: 8 }, () => post(m, card(TEST_CARD))));
    const tokens = new Set(replies.map((reply) => reply.token));
    expect(tokens.size).toBe(1);
    const [{ count }] = await app.dataSource.query('SELECT count(*)::int AS count FROM token_vault.tokens WHERE repository_id = $1', [
      `Test${m.settings.tokenRepository.id}`,
    ]);
    expect(count).toBe(1);
  });

  it('stores every kind of instrument without keeping what token rule 7 forbids', async () => {
    const m = merchant('RANDOM', 'UNIQUE_TOKEN', { schemeTokenization: true });
    const withEverything = await post(m, {
      ...card(TEST_CARD, TEST_EXPIRY.APPROVED, { securityCode: SECURITY_CODE, nameOnCard: NAME_ON_CARD }),
      billing: { address: { street: BILLING_STREET } },
      customer: { email: CUSTOMER_EMAIL },
      verificationStrategy: 'BASIC',
    });
    expect(withEverything).toMatchObject({ result: 'SUCCESS', response: { gatewayCode: 'SCHEME_TOKENIZATION_SUCCESSFUL' } });
    // The longest outcome (65 characters) is stored too.
    expect(await post(m, card(TEST_CARD_SECOND, TEST_EXPIRY.APPROVED, { nameOnCard: 'SUCCESSFUL_ADDITIONAL_AUTHENTICATION_REQUIRED' }))).toMatchObject({
      result: 'SUCCESS',
      response: { gatewayCode: 'SCHEME_TOKENIZATION_SUCCESSFUL_ADDITIONAL_AUTHENTICATION_REQUIRED' },
    });

    const p2pe = app.get<TestP2peScheme>(TEST_P2PE_SCHEME);
    const ksn = 'FFFF9876543210E00007';
    expect(
      await post(m, { sourceOfFunds: { type: 'CARD', provided: { card: { p2pe: { keySerialNumber: ksn, payload: p2pe.encrypt(Pan.of(TEST_CARD_SECOND), ksn) } } } } }),
    ).toMatchObject({ result: 'SUCCESS', sourceOfFunds: { provided: { card: { number: '512345xxxxxx0016' } } } });

    expect(await post(m, { sourceOfFunds: { type: 'CARD', schemeTokenProvisioningIdentifier: 'ISSUER-REF-INT' } })).toMatchObject({ result: 'SUCCESS' });

    const agreement = await post(m, {
      sourceOfFunds: { type: 'PROVIDER_A', provided: { provider_a: { accountEmail: PAYER_EMAIL, billingAgreement: { id: 'BA-INT-1', cardinality: 'SINGLE' } } } },
      shipping: { address: { street: SHIPPING_STREET } },
    });
    expect(await get(m, agreement.token as string)).toMatchObject({ shipping: { address: { street: SHIPPING_STREET } } });

    expect(await post(m, { ...card(TEST_CARD_UNKNOWN_BIN), verificationStrategy: 'BASIC' })).toMatchObject({ result: 'FAILURE' });
  });

  it('verifies a stored number under ACQUIRER with its own acquirer connector, and asks the verification service for a number sent in the request', async () => {
    const m = merchant('MERCHANT_SUPPLIED', 'UNIQUE_TOKEN');
    await put(m, 'acquirerVerified', card(TEST_CARD));
    const acquirer = { verificationStrategy: 'ACQUIRER', transaction: { currency: 'USD' } };
    const keepNumber = { sourceOfFunds: { type: 'CARD', provided: { card: { expiry: TEST_EXPIRY.DECLINED } } }, ...acquirer };
    expect(await put(m, 'acquirerVerified', keepNumber)).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'EXTERNAL_VERIFICATION_DECLINED' } });
    const approved = { sourceOfFunds: { type: 'CARD', provided: { card: { expiry: TEST_EXPIRY.APPROVED } } }, ...acquirer };
    expect(await put(m, 'acquirerVerified', approved)).toMatchObject({ result: 'SUCCESS', verificationStrategy: 'ACQUIRER', response: { gatewayCode: 'EXTERNAL_VERIFICATION_SUCCESSFUL' } });
    // No verification service runs beside this vault: a number from the request is sent to it, and nobody answers.
    await expect(put(m, 'acquirerVerified', { ...card(TEST_CARD), ...acquirer })).rejects.toMatchObject({ code: 'SERVER_BUSY' });
    expect((await storedCard(m, 'acquirerVerified')).expiry).toBe('0139');
  });

  describe("the edge's deadline (docs/decisions/operation-deadline.md, token operations)", () => {
    const withDeadline = (subject: string, m: MerchantContext, payload: object, deadline: number) =>
      app.request<OperationReply>(subject, { envelope: envelope(m), ...payload, deadline });
    const stored = async (m: MerchantContext, token: string) =>
      TokenRepository.over(app.dataSource).findByToken(`Test${m.settings.tokenRepository.id}`, token);

    /**
     * Every connection of the vault's pool is taken when the save's insert asks for its own, and
     * given back once that insert waits in the pool's queue and `deadline` has passed.
     */
    function holdPoolAtInsert(deadline: number): { heldAt: () => number | undefined; restore: () => void } {
      const tokens = app.get(TokenRepository);
      const insert = tokens.insert.bind(tokens);
      const pool = (app.dataSource.driver as unknown as { master: Pool }).master;
      let heldAt: number | undefined;
      const spy = jest.spyOn(tokens, 'insert').mockImplementation(async (row, beforeWrite) => {
        if (heldAt === undefined) {
          const clients: PoolClient[] = await Promise.all(Array.from({ length: pool.options.max ?? 10 }, () => pool.connect()));
          heldAt = Date.now();
          void waitFor(async () => pool.waitingCount > 0 && Date.now() > deadline, { timeoutMs: 30_000, what: 'the insert waiting for its connection' })
            .catch(() => undefined)
            .then(() => clients.forEach((client) => client.release()));
        }
        return insert(row, beforeWrite);
      });
      return { heldAt: () => heldAt, restore: () => spy.mockRestore() };
    }

    it('refuses, unprocessed, a PUT, POST, GET or DELETE past its deadline, and serves one without (an edge of the release before)', async () => {
      const m = merchant('MERCHANT_SUPPLIED', 'UNIQUE_TOKEN');
      const generated = merchant('RANDOM', 'UNIQUE_TOKEN');
      const late = Date.now() - 1;
      for (const refused of [
        withDeadline(SUBJECTS.tokenVault.saveToken, m, { tokenId: 'late-1', body: card(TEST_CARD) }, late),
        withDeadline(SUBJECTS.tokenVault.createToken, generated, { body: card(TEST_CARD) }, late),
      ]) {
        // The in-flight cap's form: a requester of this release reads it as never delivered.
        await expect(refused).rejects.toMatchObject({ code: 'SERVER_BUSY', notActedOn: true });
      }
      expect(await stored(m, 'late-1')).toBeNull();
      const [{ count }] = await app.dataSource.query('SELECT count(*)::int AS count FROM token_vault.tokens WHERE repository_id = $1', [
        `Test${generated.settings.tokenRepository.id}`,
      ]);
      expect(count).toBe(0);

      expect(await put(m, 'kept', card(TEST_CARD))).toMatchObject({ result: 'SUCCESS' });
      await expect(withDeadline(SUBJECTS.tokenVault.retrieveToken, m, { tokenId: 'kept' }, late)).rejects.toMatchObject({ code: 'SERVER_BUSY', notActedOn: true });
      await expect(withDeadline(SUBJECTS.tokenVault.deleteToken, m, { tokenId: 'kept' }, late)).rejects.toMatchObject({ code: 'SERVER_BUSY', notActedOn: true });
      expect(await stored(m, 'kept')).not.toBeNull();
      expect(await withDeadline(SUBJECTS.tokenVault.retrieveToken, m, { tokenId: 'kept' }, Date.now() + 60_000)).toMatchObject({ body: { token: 'kept' } });
      expect(await withDeadline(SUBJECTS.tokenVault.deleteToken, m, { tokenId: 'kept' }, Date.now() + 60_000)).toEqual({ body: { result: 'SUCCESS' } });
    });

    it("refuses, unprocessed, a new token whose insert gets its database connection only after the deadline: nothing stored; in time, stored", async () => {
      const m = merchant('MERCHANT_SUPPLIED', 'UNIQUE_TOKEN');
      // In time when the save begins and when it reads the token; the pool is then busy until past the deadline.
      const deadline = Date.now() + 2_000;
      const pool = holdPoolAtInsert(deadline);
      let refused: unknown;
      try {
        refused = await withDeadline(SUBJECTS.tokenVault.saveToken, m, { tokenId: 'waited', body: card(TEST_CARD) }, deadline).catch((err: unknown) => err);
      } finally {
        pool.restore();
      }
      expect(pool.heldAt()).toBeLessThan(deadline);
      expect(refused).toMatchObject({ code: 'SERVER_BUSY', notActedOn: true });
      expect(await stored(m, 'waited')).toBeNull();

      // The same wait ending in time: stored.
      const later = Date.now() + 60_000;
      const inTime = holdPoolAtInsert(Date.now() + 300);
      try {
        expect(await withDeadline(SUBJECTS.tokenVault.saveToken, m, { tokenId: 'waited', body: card(TEST_CARD) }, later)).toMatchObject({ body: { result: 'SUCCESS' } });
      } finally {
        inTime.restore();
      }
      expect(inTime.heldAt()).toBeDefined();
      expect(await stored(m, 'waited')).not.toBeNull();
    });
  });

  it('never logged a card number, security code or personal detail', () => {
    const logs = app.logs.join('\n');
    expect(app.logs.length).toBeGreaterThan(0);
    for (const secret of [...TEST_CARD_NUMBERS, simulatedSchemeTokenNumber(app.get<Fingerprinter>(FINGERPRINTER), Pan.of(TEST_CARD)), NAME_ON_CARD, BILLING_STREET, CUSTOMER_EMAIL, PAYER_EMAIL]) {
      expect(logs).not.toContain(secret);
    }
  });

  // Last on purpose: the schema as the tests above left it.
  it('leaves no card number, scheme token, security code or personal detail in clear in a dump of the token_vault schema', async () => {
    const dump = await dumpSchema(process.env.TEST_DATABASE_URL!, 'token_vault');
    expect(dump).toContain('COPY token_vault.tokens');
    expect(dump.match(/512345xxxxxx000[89]/g)?.length).toBeGreaterThan(3);
    const findings = findInDump(dump, [
      ...TEST_CARD_NUMBERS.map((number) => ({ what: `card number ${Pan.of(number).masked}`, text: number })),
      { what: 'the scheme token number', text: simulatedSchemeTokenNumber(app.get<Fingerprinter>(FINGERPRINTER), Pan.of(TEST_CARD)) },
      { what: 'the security code', text: SECURITY_CODE, wholeField: true },
      ...[NAME_ON_CARD, BILLING_STREET, CUSTOMER_EMAIL, SHIPPING_STREET, PAYER_EMAIL, 'BA-INT-1'].map((text) => ({ what: text, text })),
    ]);
    expect(findings).toEqual([]);
  });
});

