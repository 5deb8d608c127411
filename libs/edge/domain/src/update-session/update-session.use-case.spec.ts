import { defaultMerchantSettings, GatewayError } from '@gateway/contracts';
import { MemorySessionStore, SessionLifetime, SessionStore, StoredSession } from '@gateway/edge/data-access';
import type { MessageBus } from '@gateway/platform';
import { TEST_CARD } from '@gateway/testing';
import { SessionEditor } from '../sessions/session-editor';
import { UpdateSession } from './update-session.use-case';

/** When the edge stops waiting for the vault's seal (MessageBus.deadline). */
const DEADLINE = 1_800_000_000_000;

const lifetime: SessionLifetime = { ttlMs: 60_000, expiredNoticeMs: 60_000 };
const context = {
  merchant: { id: 'TESTMERCHANT', mode: 'TEST' as const, settings: defaultMerchantSettings() },
  authMethod: 'PASSWORD' as const,
  apiVersion: 100,
  requestId: 'req-1',
};

/** A session stored in `memory` as an earlier request left it. */
async function storedSession(memory: MemorySessionStore, id: string, stored: Pick<StoredSession, 'updateStatus' | 'fields'>): Promise<StoredSession> {
  const session: StoredSession = {
    id,
    merchantId: 'TESTMERCHANT',
    version: 'aaaaaaaaaa',
    ...stored,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
  await memory.create(session, lifetime);
  return session;
}

describe('UpdateSession', () => {
  const stores: MemorySessionStore[] = [];
  afterAll(() => stores.forEach((s) => s.close()));

  it('gives up with SERVER_BUSY after three attempts when other updates keep winning', async () => {
    const memory = new MemorySessionStore();
    stores.push(memory);
    const session = await storedSession(memory, 'SESSION0002BBBBBBBBBBBBBBBBBBBBBB', { updateStatus: 'NO_UPDATE', fields: {} });
    // Another request always replaces the session between this one's read and its write.
    const replace = jest.fn(async () => 'CONFLICT' as const);
    const store: SessionStore = { create: (s, l) => memory.create(s, l), find: (m, id) => memory.find(m, id), replace, amend: replace };
    const update = new UpdateSession(new SessionEditor({ deadline: () => DEADLINE } as unknown as MessageBus), store, lifetime);

    const error = await update.execute({ ...context, sessionId: session.id, body: { order: { amount: '5.00' } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'SERVER_BUSY' });
    expect(replace).toHaveBeenCalledTimes(3);
  });

  it("shares one budget among its attempts' seals: retried on a newer session, it waits no longer than one request", async () => {
    const memory = new MemorySessionStore();
    stores.push(memory);
    const session = await storedSession(memory, 'SESSION0005EEEEEEEEEEEEEEEEEEEEEE', { updateStatus: 'NO_UPDATE', fields: {} });
    const replace = jest.fn(async () => 'CONFLICT' as const);
    const store: SessionStore = { create: (s, l) => memory.create(s, l), find: (m, id) => memory.find(m, id), replace, amend: replace };
    // Each seal takes a second: a deadline taken at each would be a second later than the one before.
    let clock = 0;
    const request = jest.fn(async () => {
      clock += 1_000;
      return { sealed: 'sealed', card: { number: '512345xxxxxx0008' }, securityCodePresent: false };
    });
    const bus = { request, deadline: () => DEADLINE + clock } as unknown as MessageBus;
    const update = new UpdateSession(new SessionEditor(bus), store, lifetime);

    const body = { sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: { month: '05', year: '39' } } } } };
    await expect(update.execute({ ...context, sessionId: session.id, body })).rejects.toMatchObject({ code: 'SERVER_BUSY' });
    expect(request).toHaveBeenCalledTimes(3);
    for (const [, message, options] of request.mock.calls as unknown as [string, { deadline: number }, { deadline: number }][]) {
      expect(message.deadline).toBe(DEADLINE);
      expect(options).toEqual({ deadline: DEADLINE });
    }
  });

  it("refuses an update naming a version other than the session's current one (400 on session.version), the session left as it was", async () => {
    const memory = new MemorySessionStore();
    stores.push(memory);
    const session = await storedSession(memory, 'SESSION0006FFFFFFFFFFFFFFFFFFFFFF', { updateStatus: 'NO_UPDATE', fields: { order: { amount: '1.00' } } });
    const update = new UpdateSession(new SessionEditor({ deadline: () => DEADLINE } as unknown as MessageBus), memory, lifetime);

    const error = await update
      .execute({ ...context, sessionId: session.id, body: { order: { amount: '5.00' }, session: { version: 'bbbbbbbbbb' } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'INVALID_FIELD', field: 'session.version' });
    expect(await memory.find('TESTMERCHANT', session.id)).toEqual({ state: 'ACTIVE', session });

    // The current version is accepted, and the update gives the session a new one.
    const view = await update.execute({ ...context, sessionId: session.id, body: { order: { amount: '5.00' }, session: { version: 'aaaaaaaaaa' } } });
    expect(view).toMatchObject({ session: { id: session.id, updateStatus: 'SUCCESS' } });
    expect((view.session as { version: string }).version).not.toBe('aaaaaaaaaa');
  });

  it('gives the session its whole lifetime again from each update (ARCHITECTURE 5: sessions live in Redis with an expiry)', async () => {
    let now = 1_000_000;
    const memory = new MemorySessionStore(() => now);
    stores.push(memory);
    const session = await storedSession(memory, 'SESSION0007GGGGGGGGGGGGGGGGGGGGGG', { updateStatus: 'NO_UPDATE', fields: {} });
    const update = new UpdateSession(new SessionEditor({ deadline: () => DEADLINE } as unknown as MessageBus), memory, lifetime);

    now += lifetime.ttlMs - 1_000;
    await update.execute({ ...context, sessionId: session.id, body: { order: { amount: '5.00' } } });
    now += lifetime.ttlMs - 1_000;
    expect((await memory.find('TESTMERCHANT', session.id)).state).toBe('ACTIVE');
    now += 2_000;
    expect((await memory.find('TESTMERCHANT', session.id)).state).toBe('EXPIRED');
  });

  it('answers an update whose session expired between its read and its write as expired (400 on sessionid), not as busy', async () => {
    const memory = new MemorySessionStore();
    stores.push(memory);
    const session = await storedSession(memory, 'SESSION0008HHHHHHHHHHHHHHHHHHHHHH', { updateStatus: 'NO_UPDATE', fields: {} });
    const replace = jest.fn(async () => 'GONE' as const);
    const store: SessionStore = { create: (s, l) => memory.create(s, l), find: (m, id) => memory.find(m, id), replace, amend: replace };
    const update = new UpdateSession(new SessionEditor({ deadline: () => DEADLINE } as unknown as MessageBus), store, lifetime);

    const error = await update.execute({ ...context, sessionId: session.id, body: { order: { amount: '5.00' } } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INVALID_FIELD', field: 'sessionid' });
    expect((error as GatewayError).explanation).toContain('expired');
    expect(replace).toHaveBeenCalledTimes(1);
  });

  it('refuses an update that would leave the session holding more than 50 custom fields (400 on order.custom)', async () => {
    const memory = new MemorySessionStore();
    stores.push(memory);
    const session = await storedSession(memory, 'SESSION0003CCCCCCCCCCCCCCCCCCCCCC', { updateStatus: 'NO_UPDATE', fields: {} });
    const update = new UpdateSession(new SessionEditor({ deadline: () => DEADLINE } as unknown as MessageBus), memory, lifetime);
    const custom = (prefix: string, count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, 'x'.repeat(250)]));
    const send = (fields: Record<string, string>) => update.execute({ ...context, sessionId: session.id, body: { order: { custom: fields } } });

    // Each update is within the limit on its own; merged, the second would hold 60 (and a merchant
    // adding new names update after update would grow the session, kept whole in Redis, without end).
    await send(custom('a', 50));
    await send(custom('a', 50)); // the same names again: still 50
    const error = await send(custom('b', 10)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'INVALID_FIELD', field: 'order.custom', validationType: 'INVALID' });
    // One name more than the session holds is one too many.
    await expect(send(custom('b', 1))).rejects.toMatchObject({ field: 'order.custom' });
    const kept = await memory.find('TESTMERCHANT', session.id);
    expect(kept.state === 'ACTIVE' && Object.keys((kept.session.fields.order as { custom: object }).custom)).toHaveLength(50);
  });

  it('refuses such an update before the vault is asked to seal its card: a 400, whether or not the vault answers', async () => {
    const memory = new MemorySessionStore();
    stores.push(memory);
    const custom = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`a${i}`, 'x']));
    const session = await storedSession(memory, 'SESSION0004DDDDDDDDDDDDDDDDDDDDDD', { updateStatus: 'SUCCESS', fields: { order: { custom } } });
    // The vault away: a seal would answer SERVER_BUSY.
    const request = jest.fn(async () => {
      throw GatewayError.serverBusy();
    });
    const update = new UpdateSession(new SessionEditor({ request, deadline: () => DEADLINE } as unknown as MessageBus), memory, lifetime);

    const error = await update
      .execute({
        ...context,
        sessionId: session.id,
        body: { order: { custom: { b0: 'x' } }, sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: { month: '05', year: '39' } } } } },
      })
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ code: 'INVALID_FIELD', field: 'order.custom' });
    expect(request).not.toHaveBeenCalled();
  });
});
