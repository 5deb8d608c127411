import { defaultMerchantSettings, GatewayError, SUBJECTS } from '@gateway/contracts';
import { MemorySessionStore, SessionCard, SessionState, sessionState, SessionStore, StoredSession } from '@gateway/edge/data-access';
import { createLogger, MessageBus, NotDeliveredError, UnansweredError } from '@gateway/platform';
import type { RequestContext } from '../api/request-envelope';
import { SessionEditor } from './session-editor';
import { UsedSecurityCodes } from './used-security-codes';

/** When the edge stops waiting for the vault's seal (MessageBus.deadline). */
const DEADLINE = 1_800_000_000_000;

const context: RequestContext = {
  merchant: { id: 'TESTMERCHANT', mode: 'TEST', settings: defaultMerchantSettings() },
  authMethod: 'PASSWORD',
  apiVersion: 100,
  requestId: 'req-1',
};
const SESSION = 'SESSION0002AAAAAAAAAAAAAAAAAAAAAA';
const masked = { number: '512345xxxxxx0008' };
const lifetime = { ttlMs: 60_000, expiredNoticeMs: 60_000 };

/** A session whose card holds a code given in `givenIn` (none: no code). */
function session(sealed: string, givenIn?: string): StoredSession & { card: SessionCard } {
  return {
    id: SESSION,
    merchantId: context.merchant.id,
    version: 'aaaaaaaaaa',
    updateStatus: 'SUCCESS',
    fields: {},
    card: { sealed, masked, securityCodePresent: givenIn !== undefined, ...(givenIn ? { securityCodeGivenIn: givenIn } : {}) },
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
}

/** The vault, sealing every card it is asked to again as `sealed-<n>` without a security code. */
function setUp(store: SessionStore = new MemorySessionStore()) {
  let sealings = 0;
  const request = jest.fn(async (subject: string) => {
    expect(subject).toBe(SUBJECTS.tokenVault.sealCard);
    return { sealed: `sealed-${++sealings}`, card: masked, securityCodePresent: false };
  });
  const logger = createLogger({ service: 'test', level: 'silent' });
  const used = new UsedSecurityCodes(new SessionEditor({ request, deadline: () => DEADLINE } as unknown as MessageBus), store, logger);
  const stored = async () => {
    const found = await store.find(context.merchant.id, SESSION);
    return found.state === 'ACTIVE' ? found.session : null;
  };
  return { store, used, request, stored, logger };
}

describe('UsedSecurityCodes', () => {
  it('takes the code out of the session for the operation: it sends the card it read, the session keeps its version without the code', async () => {
    const { store, used, request, stored } = setUp();
    await store.create(session('with-code', 'v1'), lifetime);
    expect((await used.take(context, { session: session('with-code', 'v1') }, DEADLINE)).session).toEqual({ id: SESSION, sealedCard: 'with-code' });
    expect(request).toHaveBeenCalledWith(SUBJECTS.tokenVault.sealCard, expect.objectContaining({ previous: 'with-code', withoutSecurityCode: true }), { deadline: DEADLINE });
    expect(await stored()).toEqual(session('sealed-1'));
  });

  it('gives the code to one of two operations that read the session together: the other sends the card without it', async () => {
    const { store, used, stored } = setUp();
    await store.create(session('with-code', 'v1'), lifetime);
    const taken = await Promise.all([used.take(context, { session: session('with-code', 'v1') }, DEADLINE), used.take(context, { session: session('with-code', 'v1') }, DEADLINE)]);
    const sent = taken.map((s) => s.session.sealedCard);
    expect(sent.filter((sealed) => sealed === 'with-code')).toHaveLength(1);
    expect(sent.filter((sealed) => sealed !== 'with-code')[0]).toMatch(/^sealed-/);
    expect(await stored()).toMatchObject({ version: 'aaaaaaaaaa', card: { securityCodePresent: false } });
  });

  it('takes the code it read from a card an update sealed again since (a new expiry keeps the code)', async () => {
    const { store, used, request, stored } = setUp();
    await store.create(session('new-expiry-same-code', 'v1'), lifetime);
    expect((await used.take(context, { session: session('with-code', 'v1') }, DEADLINE)).session).toEqual({ id: SESSION, sealedCard: 'with-code' });
    expect(request).toHaveBeenLastCalledWith(SUBJECTS.tokenVault.sealCard, expect.objectContaining({ previous: 'new-expiry-same-code' }), { deadline: DEADLINE });
    expect(await stored()).toEqual(session('sealed-2'));
  });

  it('leaves a code the payer entered after the one the operation read, and sends the card it read without its code', async () => {
    const { store, used, stored } = setUp();
    await store.create(session('newer-code', 'v2'), lifetime);
    expect((await used.take(context, { session: session('with-code', 'v1') }, DEADLINE)).session).toEqual({ id: SESSION, sealedCard: 'sealed-1' });
    expect(await stored()).toEqual(session('newer-code', 'v2'));
  });

  it('refuses the operation when the session expired since it was read: no code outlives its session', async () => {
    const { used } = setUp();
    await expect(used.take(context, { session: session('with-code', 'v1') }, DEADLINE)).rejects.toMatchObject({ httpStatus: 400, field: 'session.id' });
  });

  it('fails, the code left in the session, when the vault cannot seal the card without it', async () => {
    const memory = new MemorySessionStore();
    await memory.create(session('with-code', 'v1'), lifetime);
    const logger = createLogger({ service: 'test', level: 'silent' });
    const bus = { request: jest.fn(async () => Promise.reject(new GatewayError('SERVER_BUSY', { explanation: 'no vault' }))), deadline: () => DEADLINE } as unknown as MessageBus;
    await expect(new UsedSecurityCodes(new SessionEditor(bus), memory, logger).take(context, { session: session('with-code', 'v1') }, DEADLINE)).rejects.toMatchObject({ code: 'SERVER_BUSY' });
    expect(await memory.find(context.merchant.id, SESSION)).toMatchObject({ session: session('with-code', 'v1') });
  });

  it('gives up after a few tries when the session keeps changing under it: the operation goes without the code, which stays', async () => {
    const memory = new MemorySessionStore();
    await memory.create(session('with-code', 'v1'), lifetime);
    const amend = jest.fn(async () => 'CONFLICT' as const);
    const store: SessionStore = { create: (s, l) => memory.create(s, l), find: (m, id) => memory.find(m, id), replace: (n, e, l) => memory.replace(n, e, l), amend };
    const logger = createLogger({ service: 'test', level: 'silent' });
    const warn = jest.spyOn(logger, 'warn');
    const request = jest.fn(async () => ({ sealed: 'sealed', card: masked, securityCodePresent: false }));
    const taken = await new UsedSecurityCodes(new SessionEditor({ request, deadline: () => DEADLINE } as unknown as MessageBus), store, logger).take(context, { session: session('with-code', 'v1') }, DEADLINE);
    expect(taken).toEqual({ session: { id: SESSION, sealedCard: 'sealed' } });
    expect(amend).toHaveBeenCalledTimes(3);
    expect(warn).toHaveBeenCalledWith({ sessionId: SESSION }, expect.stringContaining('kept changing'));
    expect(await memory.find(context.merchant.id, SESSION)).toMatchObject({ session: session('with-code', 'v1') });
  });
});

describe('UsedSecurityCodes.sending (the operation that took the code)', () => {
  it('gives the code back only when the operation was refused unprocessed: after any other failure an acquirer may have had it', async () => {
    const { store, used, stored } = setUp();
    await store.create(session('with-code', 'v1'), lifetime);
    const taken = await used.take(context, { session: session('with-code', 'v1') }, DEADLINE);
    // Sent, then no answer in time, or a failure: the code stays out of the session.
    for (const failure of [new UnansweredError('order-transaction.pay.v1'), GatewayError.serverFailed()]) {
      await expect(used.sending(taken, () => Promise.reject(failure))).rejects.toBe(failure);
      expect(await stored()).toEqual(session('sealed-1'));
    }
    const refused = new NotDeliveredError('order-transaction.pay.v1');
    await expect(used.sending(taken, () => Promise.reject(refused))).rejects.toBe(refused);
    expect(await stored()).toEqual(session('with-code', 'v1'));
  });
});

describe('UsedSecurityCodes.giveBack (an operation refused unprocessed)', () => {
  it('puts the code it took back, the session as it was before the taking, so that one operation sends it next', async () => {
    const { store, used, stored } = setUp();
    await store.create(session('with-code', 'v1'), lifetime);
    const taken = await used.take(context, { session: session('with-code', 'v1') }, DEADLINE);
    await used.giveBack(taken);
    expect(await stored()).toEqual(session('with-code', 'v1'));
    expect((await used.take(context, { session: session('with-code', 'v1') }, DEADLINE)).session).toEqual({ id: SESSION, sealedCard: 'with-code' });
    expect(await stored()).toMatchObject({ card: { securityCodePresent: false } });
  });

  it('puts back the card as the store held it when an update had sealed it again (a new expiry) before the taking', async () => {
    const { store, used, stored } = setUp();
    await store.create(session('new-expiry-same-code', 'v1'), lifetime);
    await used.giveBack(await used.take(context, { session: session('with-code', 'v1') }, DEADLINE));
    expect(await stored()).toEqual(session('new-expiry-same-code', 'v1'));
  });

  it('gives nothing back for an operation that went without the code: another took it first', async () => {
    const { store, used, stored } = setUp();
    await store.create(session('with-code', 'v1'), lifetime);
    const [first, second] = await Promise.all([
      used.take(context, { session: session('with-code', 'v1') }, DEADLINE),
      used.take(context, { session: session('with-code', 'v1') }, DEADLINE),
    ]);
    const [winner, loser] = first.taken ? [first, second] : [second, first];
    expect(winner.taken).toBeDefined();
    expect(loser.taken).toBeUndefined();
    // The one that sent the code was answered (it is used); the other was refused unprocessed.
    const afterTaking = await stored();
    await used.giveBack(loser);
    expect(await stored()).toEqual(afterTaking);
    expect(afterTaking).toMatchObject({ card: { securityCodePresent: false } });
  });

  it('never writes an old code over a newer one: a session updated since the taking keeps its update', async () => {
    const { store, used, stored } = setUp();
    await store.create(session('with-code', 'v1'), lifetime);
    const taken = await used.take(context, { session: session('with-code', 'v1') }, DEADLINE);
    // The payer enters a new code (an update: a new version, a new card).
    const amended = (await stored())!;
    const updated = { ...session('newer-code', 'v2'), version: 'bbbbbbbbbb' };
    expect(await store.replace(updated, sessionState(amended), lifetime)).toBe('REPLACED');
    await used.giveBack(taken);
    expect(await stored()).toEqual(updated);
  });

  it('gives nothing back to a session that expired meanwhile, and does not fail', async () => {
    let now = 1_000;
    const { store, used } = setUp(new MemorySessionStore(() => now));
    await store.create(session('with-code', 'v1'), lifetime);
    const taken = await used.take(context, { session: session('with-code', 'v1') }, DEADLINE);
    now += lifetime.ttlMs;
    await expect(used.giveBack(taken)).resolves.toBeUndefined();
    expect(await store.find(context.merchant.id, SESSION)).toEqual({ state: 'EXPIRED' });
  });

  it('logs, never throws, when the session store fails: the code stays out of the session', async () => {
    const memory = new MemorySessionStore();
    await memory.create(session('with-code', 'v1'), lifetime);
    const amend = jest.fn((next: StoredSession, expected: SessionState) => memory.amend(next, expected));
    const store: SessionStore = { create: (s, l) => memory.create(s, l), find: (m, id) => memory.find(m, id), replace: (n, e, l) => memory.replace(n, e, l), amend };
    const { used, stored, logger } = setUp(store);
    const warn = jest.spyOn(logger, 'warn');
    const taken = await used.take(context, { session: session('with-code', 'v1') }, DEADLINE);
    amend.mockRejectedValueOnce(new Error('connection lost'));
    await expect(used.giveBack(taken)).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ sessionId: SESSION }), expect.stringContaining('not given back'));
    expect(await stored()).toMatchObject({ card: { sealed: 'sealed-1', securityCodePresent: false } });
  });
});
