import { defaultMerchantSettings, GatewayError, SUBJECTS, VerificationStrategy } from '@gateway/contracts';
import { MemorySessionStore } from '@gateway/edge/data-access';
import { createLogger, MessageBus, NotDeliveredError, UnansweredError } from '@gateway/platform';
import { ApplySession } from '../apply-session/apply-session.use-case';
import { SessionEditor } from '../sessions/session-editor';
import { SESSION_WITH_CODE, sessionWithCode } from '../testing/session-with-code';
import { UsedSecurityCodes } from '../sessions/used-security-codes';
import { DispatchTokenOperation, UNANSWERED_TOKEN_EXPLANATIONS } from './dispatch-token-operation.use-case';

const merchantWith = (defaultVerificationStrategy: VerificationStrategy) => {
  const settings = defaultMerchantSettings();
  return { id: 'TESTMERCHANT', mode: 'TEST' as const, settings: { ...settings, tokenRepository: { ...settings.tokenRepository, defaultVerificationStrategy } } };
};
const context = {
  merchant: merchantWith('NONE'),
  authMethod: 'PASSWORD' as const,
  apiVersion: 100,
  requestId: 'req-1',
};
const SESSION = SESSION_WITH_CODE;
const masked = { number: '512345xxxxxx0008' };
const body = { session: { id: SESSION }, sourceOfFunds: { type: 'CARD' } };
/** ACQUIRER verification presents the card, with the session's security code, to the acquirer. */
const acquirerBody = { ...body, verificationStrategy: 'ACQUIRER', transaction: { currency: 'USD' } };
const withCode = { sealed: 'sealed-with-code', securityCodePresent: true };
const withoutCode = { sealed: 'sealed-without-code', securityCodePresent: false };
/** The bus's request timeout: MessageBus.deadline() is this far ahead. */
const TIMEOUT_MS = 10_000;

/** A session whose card holds a security code; the vault answers saves with `reply` and seals the card again without the code. */
async function withSession(reply: () => Promise<unknown>) {
  const request = jest.fn(async (subject: string) =>
    subject === SUBJECTS.tokenVault.sealCard ? { sealed: 'sealed-without-code', card: masked, securityCodePresent: false } : reply(),
  );
  const bus = { request, deadline: () => Date.now() + TIMEOUT_MS } as unknown as MessageBus;
  const sessions = new MemorySessionStore();
  const logger = createLogger({ service: 'test', level: 'silent' });
  const dispatch = new DispatchTokenOperation(bus, new ApplySession(sessions), new UsedSecurityCodes(new SessionEditor(bus), sessions, logger));
  const session = sessionWithCode(context.merchant.id, masked);
  await sessions.create(session, { ttlMs: 60_000, expiredNoticeMs: 60_000 });
  const stored = async () => {
    const found = await sessions.find(context.merchant.id, SESSION);
    return found.state === 'ACTIVE' ? found.session : null;
  };
  const calls = () => request.mock.calls.map((call) => call as unknown as [string, Record<string, unknown>]);
  return { dispatch, calls, stored, request };
}

describe('DispatchTokenOperation: a session\'s security code', () => {
  it('goes to the vault with the session\'s sealed card on an ACQUIRER save, taken out of the session before', async () => {
    const { dispatch, calls, stored } = await withSession(async () => ({ body: { result: 'SUCCESS' } }));
    expect(await dispatch.execute({ ...context, tokenId: '9999990000000001', body: acquirerBody })).toEqual({ result: 'SUCCESS' });
    expect(calls().map(([subject]) => subject)).toEqual([SUBJECTS.tokenVault.sealCard, SUBJECTS.tokenVault.saveToken]);
    const [, message] = calls()[1];
    expect(message).toMatchObject({ tokenId: '9999990000000001', session: { id: SESSION, sealedCard: 'sealed-with-code' } });
    expect(message).not.toHaveProperty('securityCode');
    expect(await stored()).toMatchObject({ version: 'aaaaaaaaaa', card: withoutCode });
  });

  it('is taken out of the session by a creation with a token the vault generates, ACQUIRER being the profile\'s default', async () => {
    const { dispatch, calls, stored } = await withSession(async () => ({ body: { result: 'SUCCESS' } }));
    await dispatch.create({ ...context, merchant: merchantWith('ACQUIRER'), body: { ...body, transaction: { currency: 'USD' } } });
    expect(calls().map(([subject]) => subject)).toEqual([SUBJECTS.tokenVault.sealCard, SUBJECTS.tokenVault.createToken]);
    expect(calls()[1][1]).toMatchObject({ session: { id: SESSION, sealedCard: 'sealed-with-code' } });
    expect(calls()[1][1]).not.toHaveProperty('securityCode');
    expect(await stored()).toMatchObject({ card: withoutCode });
  });

  it('is given back when no vault took the ACQUIRER save (none serving it, or one over its cap): no acquirer had it', async () => {
    let refuse = true;
    const { dispatch, calls, stored } = await withSession(async () =>
      refuse ? Promise.reject(new NotDeliveredError(SUBJECTS.tokenVault.saveToken)) : { body: { result: 'SUCCESS' } },
    );
    const save = () => dispatch.execute({ ...context, tokenId: '9999990000000001', body: acquirerBody });
    await expect(save()).rejects.toBeInstanceOf(NotDeliveredError);
    expect(await stored()).toMatchObject({ version: 'aaaaaaaaaa', card: withCode });
    refuse = false;
    await save();
    const sent = calls().filter(([subject]) => subject === SUBJECTS.tokenVault.saveToken).map(([, message]) => (message.session as { sealedCard?: string }).sealedCard);
    expect(sent).toEqual(['sealed-with-code', 'sealed-with-code']);
    expect(await stored()).toMatchObject({ card: withoutCode });
  });

  it('shares one budget between the seal that takes it and the save: the save gets what the seal left, not a timeout of its own', async () => {
    const { dispatch, calls, request } = await withSession(async () => ({ body: { result: 'SUCCESS' } }));
    let clock = Date.now();
    const start = clock;
    const now = jest.spyOn(Date, 'now').mockImplementation(() => clock);
    const answer = request.getMockImplementation()!;
    // The vault takes 7 s to seal the card without the code.
    request.mockImplementation(async (subject: string) => {
      if (subject === SUBJECTS.tokenVault.sealCard) clock += 7_000;
      return answer(subject);
    });
    try {
      await dispatch.execute({ ...context, tokenId: '9999990000000001', body: acquirerBody });
    } finally {
      now.mockRestore();
    }
    const sends = calls().map((call) => call as unknown as [string, { deadline?: number }, { deadline?: number }]);
    expect(sends.map(([subject]) => subject)).toEqual([SUBJECTS.tokenVault.sealCard, SUBJECTS.tokenVault.saveToken]);
    for (const [, message, options] of sends) {
      expect(message.deadline).toBe(start + TIMEOUT_MS);
      expect(options).toEqual({ deadline: start + TIMEOUT_MS });
    }
  });

  it('is not given back when the vault did not answer an ACQUIRER save in time: it may have verified the card with it', async () => {
    const { dispatch, stored } = await withSession(() => Promise.reject(new UnansweredError(SUBJECTS.tokenVault.saveToken)));
    await expect(dispatch.execute({ ...context, tokenId: '9999990000000001', body: acquirerBody })).rejects.toMatchObject({
      code: 'SERVER_BUSY',
      explanation: UNANSWERED_TOKEN_EXPLANATIONS.save,
    });
    expect(await stored()).toMatchObject({ card: withoutCode });
  });

  it('is not given back when the vault failed an ACQUIRER save: it may have verified the card with it', async () => {
    const { dispatch, stored } = await withSession(() => Promise.reject(new GatewayError('SERVER_FAILED', { explanation: 'down' })));
    await expect(dispatch.execute({ ...context, tokenId: '9999990000000001', body: acquirerBody })).rejects.toMatchObject({ code: 'SERVER_FAILED' });
    expect(await stored()).toMatchObject({ card: withoutCode });
  });

  it.each([
    ['NONE, the profile\'s default', 'NONE', {}],
    ['BASIC, requested', 'NONE', { verificationStrategy: 'BASIC' }],
    ['NONE, requested over an ACQUIRER default', 'ACQUIRER', { verificationStrategy: 'NONE' }],
    ['ACQUIRER with the request\'s own security code', 'ACQUIRER', { sourceOfFunds: { type: 'CARD', provided: { card: { securityCode: '100' } } } }],
  ] as const)('stays in the session after a save that presents no session code to an acquirer (%s)', async (_what, profileDefault, request) => {
    const { dispatch, calls, stored } = await withSession(async () => ({ body: { result: 'SUCCESS' } }));
    await dispatch.execute({ ...context, merchant: merchantWith(profileDefault), tokenId: '9999990000000001', body: { ...body, ...request } });
    expect(calls().map(([subject]) => subject)).toEqual([SUBJECTS.tokenVault.saveToken]);
    expect(calls()[0][1]).toMatchObject({ session: { id: SESSION, sealedCard: 'sealed-with-code' } });
    expect(await stored()).toMatchObject({ version: 'aaaaaaaaaa', card: withCode });
  });

  it('stays in the session when a save that could not use it fails', async () => {
    const { dispatch, stored } = await withSession(() => Promise.reject(new GatewayError('SERVER_FAILED', { explanation: 'down' })));
    await expect(dispatch.execute({ ...context, tokenId: '9999990000000001', body })).rejects.toMatchObject({ code: 'SERVER_FAILED' });
    expect(await stored()).toMatchObject({ card: withCode });
  });

  it('reaches one acquirer only when an ACQUIRER save and a second one name the session at once', async () => {
    // The first save is answered only once the second was sent: both are in flight together.
    let saves = 0;
    let bothSent!: () => void;
    const opened = new Promise<void>((resolve) => (bothSent = resolve));
    const { dispatch, calls, stored } = await withSession(async () => {
      if (++saves === 2) bothSent();
      await opened;
      return { body: { result: 'SUCCESS' } };
    });
    await Promise.all([
      dispatch.execute({ ...context, tokenId: '9999990000000001', body: acquirerBody }),
      dispatch.execute({ ...context, tokenId: '9999990000000002', body: acquirerBody }),
    ]);
    const sentCards = calls()
      .filter(([subject]) => subject === SUBJECTS.tokenVault.saveToken)
      .map(([, message]) => (message.session as { sealedCard: string }).sealedCard);
    expect(sentCards.sort()).toEqual(['sealed-with-code', 'sealed-without-code']);
    expect(await stored()).toMatchObject({ card: withoutCode });
  });
});

describe('DispatchTokenOperation: the deadline (docs/decisions/operation-deadline.md)', () => {
  const tokenId = '9999990000000001';
  const saveBody = { sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } };
  const operations = {
    'PUT (save)': [SUBJECTS.tokenVault.saveToken, (d: DispatchTokenOperation) => d.execute({ ...context, tokenId, body: saveBody })],
    'POST (create)': [SUBJECTS.tokenVault.createToken, (d: DispatchTokenOperation) => d.create({ ...context, body: saveBody })],
    GET: [SUBJECTS.tokenVault.retrieveToken, (d: DispatchTokenOperation) => d.retrieve({ ...context, tokenId })],
    DELETE: [SUBJECTS.tokenVault.deleteToken, (d: DispatchTokenOperation) => d.remove({ ...context, tokenId })],
  } as const;

  it.each(Object.entries(operations))('stamps %s with the time this edge stops waiting, as order operations are', async (_what, [subject, send]) => {
    const { dispatch, calls } = await withSession(async () => ({ body: { result: 'SUCCESS' } }));
    const before = Date.now();
    await send(dispatch);
    const [[sentTo, message]] = calls();
    expect(sentTo).toBe(subject);
    expect(message.deadline).toBeGreaterThanOrEqual(before + TIMEOUT_MS);
    expect(message.deadline).toBeLessThanOrEqual(Date.now() + TIMEOUT_MS);
    // The deadline is the message's, never the envelope's (services pass the envelope on).
    expect(message.envelope).not.toHaveProperty('deadline');
  });

  it.each([
    ['PUT (save)', UNANSWERED_TOKEN_EXPLANATIONS.save],
    ['POST (create)', UNANSWERED_TOKEN_EXPLANATIONS.create],
    ['DELETE', UNANSWERED_TOKEN_EXPLANATIONS.remove],
  ] as const)('answers a %s the vault did not answer in time: it may still have been carried out', async (what, explanation) => {
    const { dispatch } = await withSession(() => Promise.reject(new UnansweredError('subject')));
    const err = await operations[what][1](dispatch).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).not.toBeInstanceOf(UnansweredError);
    expect((err as GatewayError).toResponseBody()).toEqual({ error: { cause: 'SERVER_BUSY', explanation }, result: 'ERROR' });
    expect((err as GatewayError).retryAfterSeconds).toBe(1);
    expect(explanation).toMatch(/may still have been/);
    expect(explanation.length).toBeLessThanOrEqual(1000);
  });

  it.each(Object.keys(operations) as (keyof typeof operations)[])('keeps the plain explanation when the vault refused a %s unprocessed (past its deadline)', async (what) => {
    const { dispatch } = await withSession(() => Promise.reject(new NotDeliveredError('subject')));
    const err = (await operations[what][1](dispatch).catch((e: unknown) => e)) as GatewayError;
    expect(err.toResponseBody()).toEqual({ error: { cause: 'SERVER_BUSY', explanation: 'The gateway is busy. Please retry the request.' }, result: 'ERROR' });
  });

  it('keeps the plain explanation on a GET the vault did not answer in time: a read changes nothing', async () => {
    const { dispatch } = await withSession(() => Promise.reject(new UnansweredError('subject')));
    await expect(operations.GET[1](dispatch)).rejects.toBeInstanceOf(UnansweredError);
  });
});
