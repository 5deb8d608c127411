import { randomBytes } from 'node:crypto';
import { SessionLifetime, sessionState, SessionStore, StoredSession } from '../session-store';

/**
 * What both session stores promise, run against the in-memory one in unit tests and against
 * real Redis in integration tests.
 */
export function describeSessionStoreContract(name: string, create: () => SessionStore | Promise<SessionStore>): void {
  describe(`${name} session store contract`, () => {
    let store: SessionStore;
    const lifetime: SessionLifetime = { ttlMs: 5_000, expiredNoticeMs: 5_000 };

    beforeEach(async () => {
      store = await create();
    });

    const session = (overrides: Partial<StoredSession> = {}): StoredSession => ({
      id: `SESSION0002${randomBytes(11).toString('hex').toUpperCase()}`,
      merchantId: 'M1',
      version: randomBytes(5).toString('hex'),
      updateStatus: 'NO_UPDATE',
      fields: { order: { amount: '10.00', currency: 'USD' } },
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      ...overrides,
    });

    it('keeps a session for its merchant only: another merchant finds nothing', async () => {
      const s = session();
      await store.create(s, lifetime);
      expect(await store.find('M1', s.id)).toEqual({ state: 'ACTIVE', session: s });
      expect(await store.find('M2', s.id)).toEqual({ state: 'UNKNOWN' });
      expect(await store.find('M1', `${s.id.slice(0, -1)}X`)).toEqual({ state: 'UNKNOWN' });
    });

    it('never creates over a live session with the same id', async () => {
      const s = session();
      await store.create(s, lifetime);
      await expect(store.create({ ...s, merchantId: 'M2', version: 'gggggggggg' }, lifetime)).rejects.toThrow('session id collision');
      expect(await store.find('M1', s.id)).toEqual({ state: 'ACTIVE', session: s });
    });

    it('changes nothing of a live session when a create with its id is refused, its notice of expiry included', async () => {
      const s = session();
      // Generous margins: the refused create comes well within the lifetime on a loaded machine.
      await store.create(s, { ttlMs: 600, expiredNoticeMs: 5_000 });
      await expect(store.create({ ...s, merchantId: 'M2', version: 'gggggggggg' }, lifetime)).rejects.toThrow('session id collision');
      await new Promise((resolve) => setTimeout(resolve, 900));
      expect(await store.find('M1', s.id)).toEqual({ state: 'EXPIRED' });
      expect(await store.find('M2', s.id)).toEqual({ state: 'UNKNOWN' });
    });

    it('replaces a session only from the version it was read at', async () => {
      const s = session();
      await store.create(s, lifetime);
      const next = { ...s, version: 'aaaaaaaaaa', updateStatus: 'SUCCESS' as const, fields: { customer: { firstName: 'Ada' } } };
      expect(await store.replace(next, { version: 'bbbbbbbbbb', cardSealed: null }, lifetime)).toBe('CONFLICT');
      expect(await store.replace(next, sessionState(s), lifetime)).toBe('REPLACED');
      expect(await store.find('M1', s.id)).toEqual({ state: 'ACTIVE', session: next });
      expect(await store.replace({ ...next, version: 'cccccccccc' }, sessionState(s), lifetime)).toBe('CONFLICT');
      expect(await store.replace({ ...next, merchantId: 'M2', version: 'cccccccccc' }, sessionState(next), lifetime)).toBe('CONFLICT');
    });

    it('lets exactly one of concurrent updates from one version win', async () => {
      const s = session();
      await store.create(s, lifetime);
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, (_, i) => store.replace({ ...s, version: `${i}`.padStart(10, 'v') }, sessionState(s), lifetime)),
      );
      expect(outcomes.filter((o) => o === 'REPLACED')).toHaveLength(1);
    });

    it('refuses a write computed from another card than the session holds, even at the same version', async () => {
      const card = (sealed: string) => ({ sealed, masked: { number: '512345xxxxxx0008' }, securityCodePresent: sealed === 'with-code' });
      const s = session({ card: card('with-code') });
      await store.create(s, lifetime);
      // The gateway removes the used security code: the same version, another sealed card.
      const amended = { ...s, card: card('without-code') };
      expect(await store.amend(amended, { version: s.version, cardSealed: 'something-else' })).toBe('CONFLICT');
      expect(await store.amend(amended, sessionState(s))).toBe('REPLACED');
      expect(await store.find('M1', s.id)).toEqual({ state: 'ACTIVE', session: amended });
      // An update read before that carries the old card: refused, so the code never comes back.
      const update = { ...s, version: 'gggggggggg', fields: { customer: { firstName: 'Ada' } } };
      expect(await store.replace(update, sessionState(s), lifetime)).toBe('CONFLICT');
      expect(await store.replace({ ...update, card: amended.card }, sessionState(amended), lifetime)).toBe('REPLACED');
    });

    it('lets exactly one of concurrent amendments from one read win (a security code taken by one operation)', async () => {
      const card = (sealed: string) => ({ sealed, masked: {}, securityCodePresent: sealed === 'with-code' });
      const s = session({ card: card('with-code') });
      await store.create(s, lifetime);
      const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => store.amend({ ...s, card: card(`without-code-${i}`) }, sessionState(s))));
      expect(outcomes.filter((o) => o === 'REPLACED')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'CONFLICT')).toHaveLength(9);
    });

    it('keeps what an amendment wrote, not the object it was written from', async () => {
      const s = session();
      await store.create(s, lifetime);
      const amended = { ...s, fields: { customer: { firstName: 'Ada' } } };
      expect(await store.amend(amended, sessionState(s))).toBe('REPLACED');
      amended.fields.customer.firstName = 'Eve';
      expect(await store.find('M1', s.id)).toEqual({ state: 'ACTIVE', session: { ...s, fields: { customer: { firstName: 'Ada' } } } });
    });

    it('keeps a session\'s expiry when it is amended, and amends no expired session', async () => {
      const s = session({ card: { sealed: 'with-code', masked: {}, securityCodePresent: true } });
      await store.create(s, { ttlMs: 400, expiredNoticeMs: 2_000 });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const amended = { ...s, card: { sealed: 'without-code', masked: {}, securityCodePresent: false } };
      expect(await store.amend(amended, sessionState(s))).toBe('REPLACED');
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await store.find('M1', s.id)).toEqual({ state: 'EXPIRED' });
      expect(await store.amend(amended, sessionState(amended))).toBe('GONE');
      // Nor does an amendment shorten the notice of its expiry.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await store.find('M1', s.id)).toEqual({ state: 'EXPIRED' });
    });

    it('forgets a session\'s data when its lifetime ends, but still knows it expired for a while', async () => {
      const s = session({ card: { sealed: 'sealed-by-the-vault', masked: { number: '512345xxxxxx0008' }, securityCodePresent: true } });
      // Generous margins: the machine is shared, timers fire late under load.
      await store.create(s, { ttlMs: 150, expiredNoticeMs: 2_000 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await store.find('M1', s.id)).toEqual({ state: 'EXPIRED' });
      expect(await store.find('M2', s.id)).toEqual({ state: 'UNKNOWN' });
      expect(await store.replace({ ...s, version: 'dddddddddd' }, sessionState(s), lifetime)).toBe('GONE');
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(await store.find('M1', s.id)).toEqual({ state: 'UNKNOWN' });
    });

    it('forgets an updated session\'s data when its new lifetime ends, not when the notice of its expiry does', async () => {
      const s = session();
      await store.create(s, lifetime);
      const next = { ...s, version: 'ffffffffff', card: { sealed: 'sealed-by-the-vault', masked: { number: '512345xxxxxx0008' }, securityCodePresent: true } };
      expect(await store.replace(next, sessionState(s), { ttlMs: 150, expiredNoticeMs: 2_000 })).toBe('REPLACED');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await store.find('M1', s.id)).toEqual({ state: 'EXPIRED' });
    });

    it('extends a session\'s lifetime on each update', async () => {
      const s = session();
      await store.create(s, { ttlMs: 2_000, expiredNoticeMs: 1_000 });
      await new Promise((resolve) => setTimeout(resolve, 1_400));
      const next = { ...s, version: 'eeeeeeeeee' };
      expect(await store.replace(next, sessionState(s), { ttlMs: 2_000, expiredNoticeMs: 1_000 })).toBe('REPLACED');
      await new Promise((resolve) => setTimeout(resolve, 1_400));
      expect((await store.find('M1', s.id)).state).toBe('ACTIVE');
      // The notice of its expiry moves with it: once the data is gone, the session is still known to have expired.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await store.find('M1', s.id)).toEqual({ state: 'EXPIRED' });
    });
  });
}
