import { randomBytes } from 'node:crypto';
import {
  ACQUIRER_REQUESTS_METRIC,
  AUTHORIZE_WIRE,
  AuthorizeCardRequest,
  Cardless,
  PAY_WIRE,
  REFUND_WIRE,
  RefundRequest,
  VERIFY_WIRE,
  VerifyCardRequest,
} from '@gateway/acquirer';
import {
  AcquirerCallReply,
  defaultMerchantSettings,
  ExplicitCardFields,
  GatewayError,
  MerchantContext,
  OperationReply,
  SealCardReply,
  SUBJECTS,
  WireError,
} from '@gateway/contracts';
import { Money } from '@gateway/money';
import { Metrics } from '@gateway/platform';
import { TEST_CARD, TEST_CARD_NUMBERS, TEST_CARD_SECOND, TEST_EXPIRY } from '@gateway/testing';
import { TokenSealing } from '@gateway/token-vault/domain';
import type { Counter } from 'prom-client';
import { startVaultApp, VaultApp } from './testing/vault-app';

// Values that must never be logged: looked for in the vault's logs at the end.
const SECURITY_CODE = '1020';
const NAME_ON_CARD = 'Custody Cardholder';

let app: VaultApp;

beforeAll(async () => {
  app = await startVaultApp();
}, 60_000);

afterAll(async () => {
  await app?.close();
});

function merchant(mode: 'TEST' | 'LIVE' = 'TEST'): MerchantContext {
  const settings = defaultMerchantSettings();
  return {
    id: `INT${randomBytes(4).toString('hex').toUpperCase()}`,
    mode,
    // A repository of its own per merchant, as provisioning gives every merchant.
    settings: { ...settings, tokenRepository: { ...settings.tokenRepository, id: randomBytes(6).toString('hex'), generation: 'MERCHANT_SUPPLIED' } },
  };
}

const envelope = (m: MerchantContext) => ({ merchant: m, apiVersion: 100, requestId: `int-${randomBytes(6).toString('hex')}`, authMethod: 'PASSWORD' as const });
const sessionId = () => `SESSION${randomBytes(12).toString('hex').toUpperCase()}`;

async function storeToken(m: MerchantContext, token: string, card: { number: string; expiry?: { month: string; year: string } }): Promise<void> {
  const body = { sourceOfFunds: { type: 'CARD', provided: { card } } };
  const reply = await app.request<OperationReply>(SUBJECTS.tokenVault.saveToken, { envelope: envelope(m), tokenId: token, body });
  expect(reply.body.result).toBe('SUCCESS');
}

const seal = (m: MerchantContext, bindingId: string, card: ExplicitCardFields, previous?: string) =>
  app.request<SealCardReply>(SUBJECTS.tokenVault.sealCard, { envelope: envelope(m), bindingId, card, previous });

function verifyRequest(m: MerchantContext): Cardless<VerifyCardRequest> {
  return { merchantId: m.id, orderId: `order-${randomBytes(4).toString('hex')}`, transactionId: 'verify-1', currency: 'USD' };
}

interface CallInput {
  token?: string;
  sealed?: { value: string; bindingId: string };
  explicit?: ExplicitCardFields;
}

async function verify(m: MerchantContext, input: CallInput, request = VERIFY_WIRE.encodeRequest(verifyRequest(m))) {
  const reply = await app.request<AcquirerCallReply>(SUBJECTS.tokenVault.acquirerCall, {
    envelope: envelope(m),
    operation: 'VERIFY',
    source: { token: input.token, sealed: input.sealed },
    explicit: input.explicit,
    request,
  });
  return { card: reply.card, result: VERIFY_WIRE.decodeResult(reply.result) };
}

/** The coded error a call answered with (the test fails if it answered at all). */
async function refusal(call: Promise<unknown>): Promise<WireError> {
  const outcome = await call.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(GatewayError.isWire(outcome)).toBe(true);
  return outcome as WireError;
}

/** Calls counted by the registry, the counter behind /metrics. */
async function acquirerCalls(outcome?: string): Promise<number> {
  const counter = app.get(Metrics).registry.getSingleMetric(ACQUIRER_REQUESTS_METRIC) as Counter<string> | undefined;
  const values = counter ? (await counter.get()).values : [];
  return values.filter((v) => outcome === undefined || v.labels.outcome === outcome).reduce((sum, v) => sum + v.value, 0);
}

describe('token-vault.card.seal.v1, against the running vault', () => {
  it('seals a session card into an opaque value and shows the card masked', async () => {
    const m = merchant();
    const reply = await seal(m, sessionId(), { number: TEST_CARD, expiry: { month: '01', year: '39' }, securityCode: SECURITY_CODE, nameOnCard: NAME_ON_CARD });
    expect(reply.card).toEqual({
      number: '512345xxxxxx0008',
      expiry: { month: '1', year: '39' },
      brand: 'MASTERCARD',
      scheme: 'MASTERCARD',
      fundingMethod: 'CREDIT',
      nameOnCard: NAME_ON_CARD,
    });
    expect(reply.securityCodePresent).toBe(true);
    const opaque = `${reply.sealed}${Buffer.from(reply.sealed.slice(4), 'base64url').toString('latin1')}`;
    for (const clear of [TEST_CARD, SECURITY_CODE, NAME_ON_CARD, '"expiry"']) {
      expect(opaque).not.toContain(clear);
    }
  });

  it('keeps the fields of the previous sealed value that an update does not give again', async () => {
    const m = merchant();
    const session = sessionId();
    const first = await seal(m, session, { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: '100' });
    const second = await seal(m, session, { securityCode: '102' }, first.sealed);
    expect(second.card).toMatchObject({ number: '512345xxxxxx0008', expiry: { month: '1', year: '39' } });
    const { result } = await verify(m, { sealed: { value: second.sealed, bindingId: session } });
    expect(result).toMatchObject({ gatewayCode: 'APPROVED', cardSecurityCode: { gatewayCode: 'NO_MATCH' } });
  });

  it('seals the card again without its security code once an operation used it, keeping the rest', async () => {
    const m = merchant();
    const session = sessionId();
    const first = await seal(m, session, { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: SECURITY_CODE });
    const without = await app.request<SealCardReply>(SUBJECTS.tokenVault.sealCard, {
      envelope: envelope(m),
      bindingId: session,
      card: {},
      previous: first.sealed,
      withoutSecurityCode: true,
    });
    expect(without.securityCodePresent).toBe(false);
    expect(without.card).toMatchObject({ number: '512345xxxxxx0008', expiry: { month: '1', year: '39' } });
  });

  it('refuses to merge into a sealed value of another session', async () => {
    const m = merchant();
    const other = await seal(m, sessionId(), { number: TEST_CARD });
    const error = await refusal(seal(m, sessionId(), { securityCode: '100' }, other.sealed));
    expect(error).toMatchObject({ code: 'INVALID_FIELD', field: 'session.id', validationType: 'INVALID' });
  });
});

describe('token-vault.acquirer.call.v1, against Postgres', () => {
  it("verifies a token's card with the acquirer, counted, the card masked and the token marked used", async () => {
    const m = merchant();
    await storeToken(m, 'custody1', { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED });
    const before = await acquirerCalls('APPROVED');
    const { card, result } = await verify(m, { token: 'custody1' });
    expect(result).toMatchObject({
      gatewayCode: 'APPROVED',
      result: 'SUCCESS',
      card: { maskedNumber: '512345xxxxxx0008', expiry: { month: 1, year: 39 } },
      cardSecurityCode: { gatewayCode: 'NOT_PRESENT' },
      acquirer: { merchantId: m.id },
    });
    expect(card).toEqual({ number: '512345xxxxxx0008', expiry: { month: '1', year: '39' }, brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT' });
    expect(await acquirerCalls('APPROVED')).toBe(before + 1);
    const retrieved = await app.request<OperationReply>(SUBJECTS.tokenVault.retrieveToken, { envelope: envelope(m), tokenId: 'custody1' });
    expect(retrieved.body).toMatchObject({ usage: { lastUsed: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) } });
  });

  it('completes the card field by field: request over session over token', async () => {
    const m = merchant();
    await storeToken(m, 'layered', { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED });
    const session = sessionId();
    const sealed = await seal(m, session, { expiry: TEST_EXPIRY.DECLINED, securityCode: '102', nameOnCard: NAME_ON_CARD });
    const source = { token: 'layered', sealed: { value: sealed.sealed, bindingId: session } };

    // Session expiry over the token's; the request's security code over the session's.
    const sessionOverToken = await verify(m, { ...source, explicit: { securityCode: '100' } });
    expect(sessionOverToken.result).toMatchObject({ gatewayCode: 'DECLINED', cardSecurityCode: { gatewayCode: 'MATCH' } });
    expect(sessionOverToken.card).toMatchObject({ number: '512345xxxxxx0008', expiry: { month: '5', year: '39' }, nameOnCard: NAME_ON_CARD });

    // The request's expiry over the session's; the session's security code when the request has none.
    const explicitFirst = await verify(m, { ...source, explicit: { expiry: TEST_EXPIRY.EXPIRED_CARD } });
    expect(explicitFirst.result).toMatchObject({ gatewayCode: 'EXPIRED_CARD', result: 'FAILURE' });
    const withCsc = await verify(m, { ...source, explicit: { expiry: TEST_EXPIRY.APPROVED } });
    expect(withCsc.result).toMatchObject({ gatewayCode: 'APPROVED', cardSecurityCode: { gatewayCode: 'NO_MATCH' } });

    // The request's number over the token's.
    const otherNumber = await verify(m, { ...source, explicit: { number: TEST_CARD_SECOND } });
    expect(otherNumber.card.number).toBe('512345xxxxxx0016');
  });

  it('uses a session card alone, without a token', async () => {
    const m = merchant();
    const session = sessionId();
    const sealed = await seal(m, session, { number: TEST_CARD, expiry: TEST_EXPIRY.TIMED_OUT });
    const { result } = await verify(m, { sealed: { value: sealed.sealed, bindingId: session } });
    expect(result).toMatchObject({ gatewayCode: 'TIMED_OUT', result: 'FAILURE' });
  });

  it('refunds with a token card, the amount exact both ways', async () => {
    const m = merchant();
    await storeToken(m, 'refundcard', { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED });
    const request: Cardless<RefundRequest> = { merchantId: m.id, orderId: 'standalone-refund', transactionId: 'refund-1', amount: Money.of('1234.567', 'BHD') };
    const reply = await app.request<AcquirerCallReply>(SUBJECTS.tokenVault.acquirerCall, {
      envelope: envelope(m),
      operation: 'REFUND',
      source: { token: 'refundcard' },
      request: REFUND_WIRE.encodeRequest(request),
    });
    expect(reply.result.amount).toEqual({ value: '1234.567', currency: 'BHD' });
    const result = REFUND_WIRE.decodeResult(reply.result);
    expect(result).toMatchObject({ gatewayCode: 'APPROVED', card: { maskedNumber: '512345xxxxxx0008' } });
    expect(result.amount.equals(Money.of('1234.567', 'BHD'))).toBe(true);
  });

  it.each([
    ['AUTHORIZE', AUTHORIZE_WIRE],
    ['PAY', PAY_WIRE],
  ] as const)('%s with a session card over a token: partial approval, amounts exact both ways, counted', async (operation, codec) => {
    const m = merchant();
    await storeToken(m, `pay${operation.toLowerCase()}`, { number: TEST_CARD, expiry: TEST_EXPIRY.DECLINED });
    const session = sessionId();
    const sealed = await seal(m, session, { expiry: TEST_EXPIRY.APPROVED, securityCode: SECURITY_CODE });
    const request: Cardless<AuthorizeCardRequest> = {
      merchantId: m.id,
      orderId: `order-${randomBytes(4).toString('hex')}`,
      transactionId: 'pay-1',
      amount: Money.of('1.051', 'BHD'),
      acceptPartialAmount: true,
    };
    const before = await acquirerCalls('PARTIALLY_APPROVED');
    const reply = await app.request<AcquirerCallReply>(SUBJECTS.tokenVault.acquirerCall, {
      envelope: envelope(m),
      operation,
      source: { token: `pay${operation.toLowerCase()}`, sealed: { value: sealed.sealed, bindingId: session } },
      request: codec.encodeRequest(request),
    });
    expect(reply.result).toMatchObject({ approvedAmount: { value: '0.525', currency: 'BHD' }, requestedAmount: { value: '1.051', currency: 'BHD' } });
    const result = codec.decodeResult(reply.result);
    expect(result).toMatchObject({ gatewayCode: 'PARTIALLY_APPROVED', result: 'SUCCESS', cardSecurityCode: { gatewayCode: 'NO_MATCH' } });
    expect(result.approvedAmount.equals(Money.of('0.525', 'BHD'))).toBe(true);
    expect(reply.card).toMatchObject({ number: '512345xxxxxx0008', expiry: { month: '1', year: '39' } });
    expect(await acquirerCalls('PARTIALLY_APPROVED')).toBe(before + 1);
  });

  it('refuses CAPTURE and VOID: they carry no card, so they never go through the vault', async () => {
    const m = merchant();
    for (const operation of ['CAPTURE', 'VOID']) {
      const error = await refusal(
        app.request(SUBJECTS.tokenVault.acquirerCall, {
          envelope: envelope(m),
          operation,
          source: { token: 'anytoken' },
          request: { merchantId: m.id, orderId: 'o', transactionId: 't', authorization: { acquirerTransactionId: 'MCC0000021121' } },
        }),
      );
      expect(error).toMatchObject({ code: 'SERVER_FAILED' });
    }
  });

  it('names the field that would complete an incomplete card', async () => {
    const m = merchant();
    await storeToken(m, 'noexpiry', { number: TEST_CARD });
    const before = await acquirerCalls();
    expect(await refusal(verify(m, { token: 'noexpiry' }))).toMatchObject({
      code: 'INVALID_FIELD',
      field: 'sourceOfFunds.provided.card.expiry',
      validationType: 'MISSING',
    });
    const session = sessionId();
    const sealed = await seal(m, session, { expiry: TEST_EXPIRY.APPROVED, securityCode: '100' });
    expect(await refusal(verify(m, { sealed: { value: sealed.sealed, bindingId: session } }))).toMatchObject({
      code: 'INVALID_FIELD',
      field: 'sourceOfFunds.provided.card.number',
      validationType: 'MISSING',
    });
    expect(await verify(m, { token: 'noexpiry', explicit: { expiry: TEST_EXPIRY.APPROVED } })).toMatchObject({ result: { gatewayCode: 'APPROVED' } });
    expect(await acquirerCalls()).toBe(before + 1);
  });

  it("refuses an unknown token, a deleted token and another merchant's token without opening any card", async () => {
    const owner = merchant();
    const stranger = merchant();
    await storeToken(owner, 'ownedtoken', { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED });
    await storeToken(owner, 'deletedtoken', { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED });
    await app.request(SUBJECTS.tokenVault.deleteToken, { envelope: envelope(owner), tokenId: 'deletedtoken' });
    const opened = jest.spyOn(app.get(TokenSealing), 'openInstrument');
    const before = await acquirerCalls();
    try {
      for (const [m, token] of [
        [owner, 'nosuchtoken'],
        [owner, 'deletedtoken'],
        [stranger, 'ownedtoken'],
      ] as const) {
        const error = await refusal(verify(m, { token }));
        expect(error).toMatchObject({ code: 'INVALID_FIELD', field: 'sourceOfFunds.token', validationType: 'INVALID' });
        expect(error.explanation).toContain('There is no such token in repository');
      }
      expect(opened).not.toHaveBeenCalled();
    } finally {
      opened.mockRestore();
    }
    expect(await acquirerCalls()).toBe(before);
  });

  it('refuses a sealed card of another session, of another merchant, or tampered with', async () => {
    const owner = merchant();
    const session = sessionId();
    const sealed = await seal(owner, session, { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED });
    const tampered = `${sealed.sealed.slice(0, -6)}${sealed.sealed.slice(-6) === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA'}`;
    const before = await acquirerCalls();
    for (const [m, value, bindingId] of [
      [owner, sealed.sealed, sessionId()],
      [merchant(), sealed.sealed, session],
      [owner, tampered, session],
      [owner, 'not-a-sealed-value', session],
    ] as const) {
      const error = await refusal(verify(m, { sealed: { value, bindingId } }));
      expect(error).toMatchObject({ code: 'INVALID_FIELD', field: 'session.id', validationType: 'INVALID' });
    }
    expect(await acquirerCalls()).toBe(before);
  });

  it('refuses a live merchant before opening anything: no acquirer is connected', async () => {
    const live = merchant('LIVE');
    const opened = jest.spyOn(app.get(TokenSealing), 'openInstrument');
    try {
      expect(await refusal(verify(live, { token: 'anytoken' }))).toMatchObject({ code: 'ACQUIRER_NOT_CONFIGURED' });
      expect(opened).not.toHaveBeenCalled();
    } finally {
      opened.mockRestore();
    }
  });

  it("treats a request for another merchant, or one carrying card details, as a fault between services", async () => {
    const m = merchant();
    await storeToken(m, 'faulty', { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED });
    const forOther = VERIFY_WIRE.encodeRequest({ ...verifyRequest(m), merchantId: 'SOMEONEELSE' });
    expect(await refusal(verify(m, { token: 'faulty' }, forOther))).toMatchObject({ code: 'SERVER_FAILED', supportCode: expect.any(String) });
    const carryingCard = { ...VERIFY_WIRE.encodeRequest(verifyRequest(m)), card: { number: TEST_CARD } };
    expect(await refusal(verify(m, { token: 'faulty' }, carryingCard))).toMatchObject({ code: 'SERVER_FAILED' });
    expect(await refusal(verify(m, {}))).toMatchObject({ code: 'SERVER_FAILED' });
  });

  it('never logged a card number, security code or name on card', () => {
    const logs = app.logs.join('\n');
    expect(app.logs.length).toBeGreaterThan(0);
    for (const secret of [...TEST_CARD_NUMBERS, `"${SECURITY_CODE}"`, NAME_ON_CARD]) {
      expect(logs).not.toContain(secret);
    }
  });
});
