import { randomBytes } from 'node:crypto';
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
