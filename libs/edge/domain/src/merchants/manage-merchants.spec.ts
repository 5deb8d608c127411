import { randomBytes } from 'node:crypto';
import { defaultMerchantSettings } from '@gateway/contracts';
import { ApiPasswordPeppers } from '@gateway/crypto';
import { MerchantEntity, MerchantRepository } from '@gateway/edge/data-access';
import { ManageMerchants } from './manage-merchants';
import { NotificationSecretIssuer } from './notification-secrets';

type Write = { kind: 'insert' | 'update'; id: string; changes: Partial<MerchantEntity> };

/** Merchant profiles in memory, recording every write, so a test can see how many a command takes. */
function recordingRepository(): { repository: MerchantRepository; writes: Write[] } {
  const rows = new Map<string, MerchantEntity>();
  const writes: Write[] = [];
  const repository = {
    findById: async (id: string) => (rows.has(id) ? structuredClone(rows.get(id)!) : null),
    list: async () => [...rows.values()].map((row) => structuredClone(row)),
    insert: async (merchant: MerchantEntity) => {
      writes.push({ kind: 'insert', id: merchant.id, changes: structuredClone(merchant) });
      rows.set(merchant.id, { ...structuredClone(merchant), createdAt: new Date(), updatedAt: new Date() });
    },
    update: async (id: string, changes: Partial<MerchantEntity>) => {
      writes.push({ kind: 'update', id, changes: structuredClone(changes) });
      rows.set(id, { ...rows.get(id)!, ...structuredClone(changes) });
      return true;
    },
  } as unknown as MerchantRepository;
  return { repository, writes };
}

const PEPPERS = ApiPasswordPeppers.single('pepper-0123456789abcdef-0123456789abcdef');
const issuer = NotificationSecretIssuer.fromConfig(`w1:${randomBytes(32).toString('base64')}`);

describe('ManageMerchants: enabling notifications stores the profile and its secret in one write', () => {
  it('creates a merchant with notifications enabled in one insert that carries the sealed secret', async () => {
    const { repository, writes } = recordingRepository();
    const issued = await new ManageMerchants(repository, PEPPERS, issuer).create({
      id: 'SHOP1',
      name: 'Shop',
      mode: 'TEST',
      settings: { notifications: { enabled: true } },
    });
    expect(writes.map((w) => w.kind)).toEqual(['insert']);
    const stored = writes[0].changes.settings!.notifications;
    expect(stored).toEqual({ enabled: true, secret: { current: expect.any(String) } });
    expect(stored.secret!.current).not.toContain(issued.notificationSecret);
    expect(issued.notificationSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(issued.merchant.settings.notifications.secret).toEqual(stored.secret);
  });

  it('enables notifications on an existing merchant in one update that carries the sealed secret', async () => {
    const { repository, writes } = recordingRepository();
    const manage = new ManageMerchants(repository, PEPPERS, issuer);
    await manage.create({ id: 'SHOP2', name: 'Shop', mode: 'TEST' });
    writes.length = 0;
    const configured = await manage.configure('SHOP2', { 'notifications.enabled': true });
    expect(writes.map((w) => w.kind)).toEqual(['update']);
    expect(writes[0].changes.settings!.notifications).toEqual({ enabled: true, secret: { current: expect.any(String) } });
    expect(configured.notificationSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Already signed: a later change issues none.
    expect((await manage.configure('SHOP2', { 'privileges.excessiveRefund': true })).notificationSecret).toBeUndefined();
  });

  it('stores nothing when no secret can be issued (no WEBHOOK_SECRET_KEYS)', async () => {
    const { repository, writes } = recordingRepository();
    await expect(
      new ManageMerchants(repository, PEPPERS).create({ id: 'SHOP3', name: 'Shop', mode: 'TEST', settings: { notifications: { enabled: true } } }),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(writes).toEqual([]);
  });
});

describe('ManageMerchants: a revoked certificate', () => {
  const fingerprint = Array.from({ length: 32 }, (_, i) => (i * 7).toString(16).padStart(2, '0').toUpperCase()).join(':');

  it('is not registered again by fingerprint: refused, nothing written, and it stays revoked', async () => {
    const { repository, writes } = recordingRepository();
    const manage = new ManageMerchants(repository, PEPPERS);
    await manage.create({ id: 'SHOP4', name: 'Shop', mode: 'TEST' });
    await manage.addCertificate('SHOP4', { fingerprint });
    await manage.revokeCertificate('SHOP4', fingerprint);
    writes.length = 0;
    await expect(manage.addCertificate('SHOP4', { fingerprint })).rejects.toMatchObject({ code: 'INVALID_REQUEST', explanation: expect.stringContaining('revoked') });
    expect(writes).toEqual([]);
    expect((await manage.show('SHOP4')).settings.clientCertificates).toMatchObject({ fingerprints: [], revokedFingerprints: [fingerprint] });
  });

  it("does not stop its subject from being registered, for the certificates that replace it", async () => {
    const { repository } = recordingRepository();
    const manage = new ManageMerchants(repository, PEPPERS);
    await manage.create({ id: 'SHOP5', name: 'Shop', mode: 'TEST' });
    await manage.revokeCertificate('SHOP5', fingerprint);
    const merchant = await manage.addCertificate('SHOP5', { subject: 'CN=shop.example' });
    expect(merchant.settings.clientCertificates).toMatchObject({ subjects: ['CN=shop.example'], revokedFingerprints: [fingerprint] });
  });
});

describe('ManageMerchants: configure (admin set) does not undo a revocation', () => {
  const revoked = Array.from({ length: 32 }, (_, i) => (i * 5).toString(16).padStart(2, '0').toUpperCase()).join(':');
  const other = Array.from({ length: 32 }, (_, i) => (i * 3).toString(16).padStart(2, '0').toUpperCase()).join(':');

  async function revokedShop() {
    const { repository, writes } = recordingRepository();
    const manage = new ManageMerchants(repository, PEPPERS);
    await manage.create({ id: 'SHOP6', name: 'Shop', mode: 'TEST' });
    await manage.addCertificate('SHOP6', { fingerprint: revoked });
    await manage.revokeCertificate('SHOP6', revoked);
    writes.length = 0;
    return { manage, writes };
  }

  it.each([
    ['an emptied list', { 'clientCertificates.revokedFingerprints': [] }],
    ['a list without it', { 'clientCertificates.revokedFingerprints': [other] }],
    ['an element of the list replaced', { 'clientCertificates.revokedFingerprints.0': other }],
    ['the whole object written with another list', { clientCertificates: { fingerprints: [], revokedFingerprints: [other] } }],
    ['the whole object removed', { clientCertificates: null }],
    ['its fingerprint registered again', { 'clientCertificates.fingerprints': [revoked] }],
    ['its fingerprint registered again in a whole object', { clientCertificates: { fingerprints: [revoked], revokedFingerprints: [revoked] } }],
  ])('refuses %s: nothing written, still revoked', async (_, changes) => {
    const { manage, writes } = await revokedShop();
    await expect(manage.configure('SHOP6', changes)).rejects.toMatchObject({ code: 'INVALID_REQUEST', explanation: expect.stringContaining('is revoked') });
    expect(writes).toEqual([]);
    expect((await manage.show('SHOP6')).settings.clientCertificates).toMatchObject({ fingerprints: [], revokedFingerprints: [revoked] });
  });

  it('keeps the revocations when a whole clientCertificates object is written without them', async () => {
    const { manage } = await revokedShop();
    const { merchant } = await manage.configure('SHOP6', { clientCertificates: { fingerprints: [other] } });
    expect(merchant.settings.clientCertificates).toEqual({ fingerprints: [other], revokedFingerprints: [revoked] });
  });

  it('still takes other certificate changes and revocations added', async () => {
    const { manage } = await revokedShop();
    await manage.configure('SHOP6', { 'clientCertificates.fingerprints': [other], 'privileges.excessiveRefund': true });
    const { merchant } = await manage.configure('SHOP6', { 'clientCertificates.revokedFingerprints': [revoked, other], 'clientCertificates.fingerprints': [] });
    expect(merchant.settings.clientCertificates).toMatchObject({ fingerprints: [], revokedFingerprints: [revoked, other] });
  });
});

describe('ManageMerchants: create', () => {
  it('refuses a notification secret among the settings, as configure does: nothing stored', async () => {
    const { repository, writes } = recordingRepository();
    const manage = new ManageMerchants(repository, PEPPERS, issuer);
    await expect(
      manage.create({ id: 'SHOP7', name: 'Shop', mode: 'TEST', settings: { notifications: { enabled: true, secret: { current: 'A'.repeat(48) } } } }),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST', explanation: expect.stringContaining('not a setting') });
    expect(writes).toEqual([]);
  });
});

describe('ManageMerchants: create checks the id and gives each merchant its own token repository', () => {
  it.each([['a space', 'SHOP 1'], ['a slash', 'shop/1'], ['a dot', 'shop.1'], ['41 characters', 'S'.repeat(41)], ['nothing', '']])(
    'refuses an id with %s: nothing stored',
    async (_, id) => {
      const { repository, writes } = recordingRepository();
      await expect(new ManageMerchants(repository, PEPPERS).create({ id, name: 'Shop', mode: 'TEST' })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        explanation: expect.stringContaining('must be 1 to 40 characters'),
      });
      expect(writes).toEqual([]);
    },
  );

  it('gives two merchants two token repositories of 12 digits, neither the default one (docs/decisions/token-repository-per-merchant.md)', async () => {
    const { repository } = recordingRepository();
    const manage = new ManageMerchants(repository, PEPPERS);
    const first = (await manage.create({ id: 'SHOP8', name: 'Shop', mode: 'TEST' })).merchant.settings.tokenRepository.id;
    const second = (await manage.create({ id: 'SHOP9', name: 'Shop', mode: 'LIVE' })).merchant.settings.tokenRepository.id;
    expect(first).toMatch(/^[1-9][0-9]{11}$/);
    expect(second).toMatch(/^[1-9][0-9]{11}$/);
    expect(second).not.toBe(first);
    expect([first, second]).not.toContain(defaultMerchantSettings().tokenRepository.id);
  });
});

describe('ManageMerchants: create stores the mode asked for', () => {
  it.each(['TEST', 'LIVE'] as const)('%s', async (mode) => {
    const { repository, writes } = recordingRepository();
    const issued = await new ManageMerchants(repository, PEPPERS).create({ id: 'SHOP13', name: 'Shop', mode });
    expect(writes[0].changes).toMatchObject({ mode, status: 'ENABLED' });
    expect(issued.merchant.mode).toBe(mode);
  });
});

describe('ManageMerchants: configure refuses a setting name that reaches an object prototype', () => {
  it.each(['__proto__.polluted', 'constructor.prototype.polluted', 'privileges.__proto__.polluted'])('%s: nothing written, no prototype changed', async (path) => {
    const { repository, writes } = recordingRepository();
    const manage = new ManageMerchants(repository, PEPPERS);
    await manage.create({ id: 'SHOP14', name: 'Shop', mode: 'TEST' });
    writes.length = 0;
    try {
      await expect(manage.configure('SHOP14', { [path]: true })).rejects.toMatchObject({ code: 'INVALID_REQUEST', explanation: `Invalid setting name '${path}'.` });
      expect(writes).toEqual([]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    } finally {
      delete (Object.prototype as Record<string, unknown>).polluted;
    }
  });
});

describe('ManageMerchants: rotatePassword', () => {
  const HOUR = 3_600_000;

  async function rotated(keepPreviousMs: number) {
    const { repository, writes } = recordingRepository();
    const manage = new ManageMerchants(repository, PEPPERS);
    const { password: old } = await manage.create({ id: 'SHOP10', name: 'Shop', mode: 'TEST' });
    const before = Date.now();
    const { password, merchant } = await manage.rotatePassword('SHOP10', keepPreviousMs);
    return { old, password, merchant, before, after: Date.now(), writes };
  }

  it('stores the new password and keeps the old one for the window asked, not longer', async () => {
    const { old, password, merchant, before, after } = await rotated(2 * HOUR);
    expect(password).not.toBe(old);
    expect(PEPPERS.check(password, merchant.passwordHash!).matches).toBe(true);
    expect(PEPPERS.check(old, merchant.passwordHash!).matches).toBe(false);
    expect(PEPPERS.check(old, merchant.previousPasswordHash!).matches).toBe(true);
    expect(merchant.previousPasswordExpiresAt!.getTime()).toBeGreaterThanOrEqual(before + 2 * HOUR);
    expect(merchant.previousPasswordExpiresAt!.getTime()).toBeLessThanOrEqual(after + 2 * HOUR);
  });

  it('revokes the old password at once with no window (keep-previous 0)', async () => {
    const { old, password, merchant } = await rotated(0);
    expect(PEPPERS.check(password, merchant.passwordHash!).matches).toBe(true);
    expect(PEPPERS.check(old, merchant.passwordHash!).matches).toBe(false);
    expect(merchant).toMatchObject({ previousPasswordHash: null, previousPasswordExpiresAt: null });
  });
});

describe('ManageMerchants: a change is written to the merchant named, and only to it', () => {
  it.each([
    ['configure', (m: ManageMerchants) => m.configure('SHOP11', { 'privileges.excessiveRefund': true })],
    ['setStatus', (m: ManageMerchants) => m.setStatus('SHOP11', 'DISABLED')],
    ['setMode', (m: ManageMerchants) => m.setMode('SHOP11', 'LIVE')],
    ['rotatePassword', (m: ManageMerchants) => m.rotatePassword('SHOP11', 0)],
  ])('%s', async (_, change) => {
    const { repository, writes } = recordingRepository();
    const manage = new ManageMerchants(repository, PEPPERS);
    await manage.create({ id: 'SHOP11', name: 'Shop', mode: 'TEST' });
    await manage.create({ id: 'SHOP12', name: 'Other shop', mode: 'TEST' });
    const other = await manage.show('SHOP12');
    writes.length = 0;
    await change(manage);
    expect(writes.map((w) => [w.kind, w.id])).toEqual([['update', 'SHOP11']]);
    expect(await manage.show('SHOP12')).toEqual(other);
  });

  it('refuses a merchant that does not exist (NOT_FOUND), writing nothing', async () => {
    const { repository, writes } = recordingRepository();
    const manage = new ManageMerchants(repository, PEPPERS);
    for (const change of [
      () => manage.configure('NOSUCH', { 'privileges.excessiveRefund': true }),
      () => manage.setStatus('NOSUCH', 'DISABLED'),
      () => manage.rotatePassword('NOSUCH', 0),
    ]) {
      await expect(change()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
    expect(writes).toEqual([]);
  });
});
