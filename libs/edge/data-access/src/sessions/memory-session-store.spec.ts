import { MemorySessionStore } from './memory-session-store';
import type { StoredSession } from './session-store';
import { describeSessionStoreContract } from './testing/session-store-contract';

const stores: MemorySessionStore[] = [];
afterAll(() => stores.forEach((s) => s.close()));

describeSessionStoreContract('in-memory', () => {
  const store = new MemorySessionStore();
  stores.push(store);
  return store;
});

describe('in-memory session store', () => {
  afterEach(() => jest.useRealTimers());

  it('drops an expired session\'s card data at the next sweep, while its expiry is still remembered', async () => {
    jest.useFakeTimers();
    let now = 1_000_000;
    const store = new MemorySessionStore(() => now);
    stores.push(store);
    const session: StoredSession = {
      id: 'SESSION0002AAAAAAAAAAAAAAAAAAAAAA',
      merchantId: 'M1',
      version: 'aaaaaaaaaa',
      updateStatus: 'SUCCESS',
      fields: {},
      card: { sealed: 'sealed-by-the-vault', masked: { number: '512345xxxxxx0008' }, securityCodePresent: true },
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    await store.create(session, { ttlMs: 1_000, expiredNoticeMs: 3_600_000 });
    now += 2_000;
    jest.advanceTimersByTime(60_000);
    expect(await store.find('M1', session.id)).toEqual({ state: 'EXPIRED' });
    const kept = (store as unknown as { entries: Map<string, { session: StoredSession }> }).entries.get(session.id);
    expect(kept?.session.card).toBeUndefined();
  });
});
