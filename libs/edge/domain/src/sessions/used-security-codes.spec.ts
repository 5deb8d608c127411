import { defaultMerchantSettings, SUBJECTS } from '@gateway/contracts';
import { MemorySessionStore, SessionStore, StoredSession } from '@gateway/edge/data-access';
import { createLogger, MessageBus } from '@gateway/platform';
import type { RequestContext } from '../api/request-envelope';
import { SessionEditor } from './session-editor';
import { UsedSecurityCodes } from './used-security-codes';

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
function session(sealed: string, givenIn?: string): StoredSession {
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
  const used = new UsedSecurityCodes(new SessionEditor({ request } as unknown as MessageBus), store, logger);
  const stored = async () => {
    const found = await store.find(context.merchant.id, SESSION);
    return found.state === 'ACTIVE' ? found.session : null;
  };
  return { store, used, request, stored };
}

describe('UsedSecurityCodes', () => {
  it('seals the card the operation took again without its code, and keeps the session\'s version', async () => {
    const { store, used, request, stored } = setUp();
    await store.create(session('with-code', 'v1'), lifetime);
    await used.forget(context, { sessionId: SESSION, givenIn: 'v1' });
    expect(request).toHaveBeenCalledWith(SUBJECTS.tokenVault.sealCard, expect.objectContaining({ previous: 'with-code', withoutSecurityCode: true }));
    expect(await stored()).toEqual(session('sealed-1'));
  });

  it('removes the code the operation took from a card an update sealed again since (a new expiry keeps the code)', async () => {
    const { store, used, request, stored } = setUp();
    await store.create(session('new-expiry-same-code', 'v1'), lifetime);
    await used.forget(context, { sessionId: SESSION, givenIn: 'v1' });
    expect(request).toHaveBeenCalledWith(SUBJECTS.tokenVault.sealCard, expect.objectContaining({ previous: 'new-expiry-same-code' }));
    expect(await stored()).toEqual(session('sealed-1'));
  });

  it('leaves a code the payer entered after the one the operation took', async () => {
    const { store, used, request, stored } = setUp();
    await store.create(session('newer-code', 'v2'), lifetime);
    await used.forget(context, { sessionId: SESSION, givenIn: 'v1' });
    expect(request).not.toHaveBeenCalled();
    expect(await stored()).toEqual(session('newer-code', 'v2'));
  });

  it('tries again when the session changed under it, on the session as it now is', async () => {
    const memory = new MemorySessionStore();
    await memory.create(session('with-code', 'v1'), lifetime);
    let conflicts = 1;
    const store: SessionStore = {
      create: (s, l) => memory.create(s, l),
      find: (m, id) => memory.find(m, id),
      replace: (n, e, l) => memory.replace(n, e, l),
      amend: async (next, expected) => (conflicts-- > 0 ? 'CONFLICT' : memory.amend(next, expected)),
    };
    const { used, request, stored } = setUp(store);
    await used.forget(context, { sessionId: SESSION, givenIn: 'v1' });
    expect(request).toHaveBeenCalledTimes(2);
    expect(await stored()).toMatchObject({ card: { sealed: 'sealed-2', securityCodePresent: false } });
  });

  it('never fails the operation: a vault that does not answer is logged, and the code goes with the session', async () => {
    const memory = new MemorySessionStore();
    await memory.create(session('with-code', 'v1'), lifetime);
    const logger = createLogger({ service: 'test', level: 'silent' });
    const error = jest.spyOn(logger, 'error');
    const bus = { request: jest.fn(async () => Promise.reject(new Error('no vault'))) } as unknown as MessageBus;
    await expect(new UsedSecurityCodes(new SessionEditor(bus), memory, logger).forget(context, { sessionId: SESSION, givenIn: 'v1' })).resolves.toBeUndefined();
    expect(error).toHaveBeenCalledWith(expect.objectContaining({ sessionId: SESSION }), expect.stringContaining('not removed'));
  });

  it('leaves a card that holds no code as it is', async () => {
    const { store, used, request, stored } = setUp();
    await store.create(session('without-code'), lifetime);
    await used.forget(context, { sessionId: SESSION });
    expect(request).not.toHaveBeenCalled();
    expect(await stored()).toEqual(session('without-code'));
  });

  it('gives up after a few tries when the session keeps changing under it, and logs it: the code goes at the expiry', async () => {
    const memory = new MemorySessionStore();
    await memory.create(session('with-code', 'v1'), lifetime);
    const amend = jest.fn(async () => 'CONFLICT' as const);
    const store: SessionStore = { create: (s, l) => memory.create(s, l), find: (m, id) => memory.find(m, id), replace: (n, e, l) => memory.replace(n, e, l), amend };
    const logger = createLogger({ service: 'test', level: 'silent' });
    const warn = jest.spyOn(logger, 'warn');
    const request = jest.fn(async () => ({ sealed: 'sealed', card: masked, securityCodePresent: false }));
    await new UsedSecurityCodes(new SessionEditor({ request } as unknown as MessageBus), store, logger).forget(context, { sessionId: SESSION, givenIn: 'v1' });
    expect(amend).toHaveBeenCalledTimes(3);
    expect(warn).toHaveBeenCalledWith({ sessionId: SESSION }, expect.stringContaining('kept changing'));
  });
});
