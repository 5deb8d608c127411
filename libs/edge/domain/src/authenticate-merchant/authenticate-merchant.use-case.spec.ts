import { defaultMerchantSettings } from '@gateway/contracts';
import { ApiPasswordPeppers, hashApiPassword } from '@gateway/crypto';
import { AdmitRequest, FailedAuthentication, MerchantEntity, NOT_THROTTLED, RequestThrottle, throttled, ThrottleVerdict } from '@gateway/edge/data-access';
import { createLogger, Metrics } from '@gateway/platform';
import { MerchantDirectory } from '../merchants/merchant-directory';
import { merchantEntity } from '../testing/merchant-entity';
import { AuthenticateMerchant, PresentedCredentials } from './authenticate-merchant.use-case';
import { ClientCertificate } from './client-certificate';

const PEPPER = 'unit-test-pepper-of-at-least-32-characters';
const PASSWORD = 'right-password';

const merchant = merchantEntity({
  settings: { ...defaultMerchantSettings(), rateLimitPerSecond: 7 },
  passwordHash: hashApiPassword(PASSWORD, PEPPER),
});

/** A throttle that records what it is asked and answers as told. */
class ScriptedThrottle implements RequestThrottle {
  admitted: AdmitRequest[] = [];
  failures: FailedAuthentication[] = [];
  constructor(private readonly answer: () => Promise<ThrottleVerdict>) {}
  admit(request: AdmitRequest) {
    this.admitted.push(request);
    return this.answer();
  }
  recordFailure(failure: FailedAuthentication) {
    this.failures.push(failure);
    return this.answer();
  }
}

function useCase(throttle: RequestThrottle, requireCertificate = false, known: MerchantEntity = merchant): AuthenticateMerchant {
  const find = async (id: string) => (id === known.id ? known : null);
  return useCaseOver({ find, storedSince: find } as unknown as MerchantDirectory, throttle, requireCertificate);
}

function useCaseOver(
  directory: MerchantDirectory,
  throttle: RequestThrottle,
  requireCertificate = false,
  peppers = ApiPasswordPeppers.single(PEPPER),
): AuthenticateMerchant {
  return new AuthenticateMerchant(directory, peppers, throttle, { requireCertificate }, createLogger({ service: 'test', level: 'silent' }), new Metrics());
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const request = (authorization?: string): PresentedCredentials => ({ authorization, clientAddress: '192.0.2.1', pathMerchantId: merchant.id });

describe('AuthenticateMerchant', () => {
  it("admits the right password through the throttle, with the merchant's rate and the failure block", async () => {
    const throttle = new ScriptedThrottle(async () => NOT_THROTTLED);
    await expect(useCase(throttle).execute(request(basic('merchant.SHOP1', PASSWORD)))).resolves.toMatchObject({ method: 'PASSWORD', merchant: { id: 'SHOP1' } });
    expect(throttle.admitted).toEqual([{ merchantId: 'SHOP1', address: '192.0.2.1', subjectToFailureBlock: true, ratePerSecond: 7 }]);
  });

  /** The blocks read, nothing changed: what a refused password asks first (amendment 2026-11-27 (4)). */
  const blocksOf = (merchantId: string): AdmitRequest => ({ merchantId, address: '192.0.2.1', subjectToFailureBlock: true, ratePerSecond: 0 });

  it.each([
    ['a wrong password', basic('merchant.SHOP1', 'wrong'), { merchantId: 'SHOP1', address: '192.0.2.1' }, [blocksOf('SHOP1')]],
    [
      'an unknown merchant (against the id it claims, like a wrong password)',
      basic('merchant.NOSUCH', PASSWORD),
      { merchantId: 'NOSUCH', address: '192.0.2.1' },
      [blocksOf('NOSUCH')],
    ],
    ['a malformed header', 'Basic !!!', { address: '192.0.2.1' }, []],
    ['a user that is not merchant.<id>', basic('xmerchant.SHOP1', PASSWORD), { address: '192.0.2.1' }, []],
    ['an empty password (not Basic credentials at all)', basic('merchant.SHOP1', ''), { address: '192.0.2.1' }, []],
  ])('counts %s as a failure and answers 401', async (_what, authorization, failure, blocksRead) => {
    const throttle = new ScriptedThrottle(async () => NOT_THROTTLED);
    await expect(useCase(throttle).execute(request(authorization))).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
    expect(throttle.failures).toEqual([failure]);
    expect(throttle.admitted).toEqual(blocksRead);
  });

  it.each([
    ['a wrong password', 'SHOP1', 'wrong'],
    ['an unknown merchant', 'NOSUCH', PASSWORD],
  ])('answers %s during a block at once, as the right password: no re-read, nothing counted', async (_what, merchantId, password) => {
    const throttle = new ScriptedThrottle(async () => throttled('AUTHENTICATION_FAILURES', 30_000));
    const storedSince = jest.fn();
    const directory = { find: async (id: string) => (id === merchant.id ? merchant : null), storedSince } as unknown as MerchantDirectory;
    await expect(useCaseOver(directory, throttle).execute(request(basic(`merchant.${merchantId}`, password)))).rejects.toMatchObject({
      code: 'THROTTLED',
      retryAfterSeconds: 30,
    });
    expect(storedSince).not.toHaveBeenCalled();
    expect(throttle.failures).toEqual([]);
    expect(throttle.admitted).toEqual([blocksOf(merchantId)]);
  });

  it("answers a disabled merchant's right password during a block as a wrong one (503), not with its 403", async () => {
    const throttle = new ScriptedThrottle(async () => throttled('AUTHENTICATION_FAILURES', 30_000));
    const disabled = { ...merchant, status: 'DISABLED' } as MerchantEntity;
    await expect(useCase(throttle, false, disabled).execute(request(basic('merchant.SHOP1', PASSWORD)))).rejects.toMatchObject({ code: 'THROTTLED' });
    expect(throttle.admitted).toEqual([blocksOf('SHOP1')]);
  });

  it('answers no credentials with the challenge without counting or asking the throttle', async () => {
    const throttle = new ScriptedThrottle(async () => NOT_THROTTLED);
    await expect(useCase(throttle).execute(request())).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
    expect([throttle.failures, throttle.admitted]).toEqual([[], []]);
  });

  it('answers a throttled caller 503 with the wait in whole seconds, for the right password and a wrong one alike', async () => {
    const throttle = new ScriptedThrottle(async () => throttled('AUTHENTICATION_FAILURES', 1_200));
    for (const password of [PASSWORD, 'wrong']) {
      await expect(useCase(throttle).execute(request(basic('merchant.SHOP1', password)))).rejects.toMatchObject({
        code: 'THROTTLED',
        retryAfterSeconds: 2,
        explanation: 'Too many failed authentication attempts. Please retry later.',
      });
    }
  });

  it('refuses rather than authenticate unthrottled when the throttle store is unavailable', async () => {
    const throttle = new ScriptedThrottle(async () => Promise.reject(new Error('Connection is closed.')));
    for (const password of [PASSWORD, 'wrong']) {
      await expect(useCase(throttle).execute(request(basic('merchant.SHOP1', password)))).rejects.toMatchObject({ code: 'SERVER_BUSY' });
    }
  });

  it('takes the previous password during a rotation, and no longer once it has expired', async () => {
    const rotated = (expiresInMs: number): MerchantEntity => ({
      ...merchant,
      passwordHash: hashApiPassword('new-password', PEPPER),
      previousPasswordHash: hashApiPassword(PASSWORD, PEPPER),
      previousPasswordExpiresAt: new Date(Date.now() + expiresInMs),
    });
    const during = new ScriptedThrottle(async () => NOT_THROTTLED);
    await expect(useCase(during, false, rotated(60_000)).execute(request(basic('merchant.SHOP1', PASSWORD)))).resolves.toMatchObject({ method: 'PASSWORD' });
    const after = new ScriptedThrottle(async () => NOT_THROTTLED);
    await expect(useCase(after, false, rotated(-1)).execute(request(basic('merchant.SHOP1', PASSWORD)))).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
    expect(after.failures).toEqual([{ merchantId: 'SHOP1', address: '192.0.2.1' }]);
    await expect(useCase(after, false, rotated(-1)).execute(request(basic('merchant.SHOP1', 'new-password')))).resolves.toMatchObject({ method: 'PASSWORD' });
  });

  it('admits a registered certificate without the password failure block, which is for passwords only', async () => {
    const fingerprint = Array.from({ length: 32 }, () => 'AB').join(':');
    const withCertificate: MerchantEntity = { ...merchant, settings: { ...merchant.settings, clientCertificates: { fingerprints: [fingerprint] } } };
    const certificate: ClientCertificate = {
      source: 'TLS',
      fingerprint,
      subject: 'CN=shop.example',
      notBefore: Date.now() - 60_000,
      notAfter: Date.now() + 60_000,
      problem: null,
    };
    const throttle = new ScriptedThrottle(async () => NOT_THROTTLED);
    await expect(
      useCase(throttle, false, withCertificate).execute({ certificate, clientAddress: '192.0.2.1', pathMerchantId: 'SHOP1' }),
    ).resolves.toMatchObject({ method: 'CERTIFICATE', merchant: { id: 'SHOP1' } });
    expect(throttle.admitted).toEqual([{ merchantId: 'SHOP1', address: '192.0.2.1', subjectToFailureBlock: false, ratePerSecond: 7 }]);
  });

  it('requires a certificate when configured to, even with the right password', async () => {
    const throttle = new ScriptedThrottle(async () => NOT_THROTTLED);
    await expect(useCase(throttle, true).execute(request(basic('merchant.SHOP1', PASSWORD)))).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
    expect(throttle.failures).toEqual([]);
  });

  describe('a password the cached profile refuses', () => {
    /** A directory whose cache holds `cached` while the database holds `stored`. */
    function directoryOf(cached: MerchantEntity | null, stored: MerchantEntity | null | Error) {
      const storedSince = jest.fn(async (_id: string, _since: number) => {
        if (stored instanceof Error) throw stored;
        return stored;
      });
      return { directory: { find: async () => cached, storedSince } as unknown as MerchantDirectory, storedSince };
    }
    const rotated: MerchantEntity = { ...merchant, passwordHash: hashApiPassword('new-password', PEPPER) };

    it('is judged again against the profile read since the request came, and admitted without a failure when it matches (a password rotated since)', async () => {
      const throttle = new ScriptedThrottle(async () => NOT_THROTTLED);
      const { directory, storedSince } = directoryOf(merchant, rotated);
      const before = Date.now();
      await expect(useCaseOver(directory, throttle).execute(request(basic('merchant.SHOP1', 'new-password')))).resolves.toMatchObject({
        method: 'PASSWORD',
        merchant: rotated,
      });
      expect(storedSince).toHaveBeenCalledTimes(1);
      expect(storedSince.mock.calls[0][0]).toBe('SHOP1');
      expect(storedSince.mock.calls[0][1]).toBeGreaterThanOrEqual(before);
      expect(throttle.failures).toEqual([]);
      // The blocks read before the re-read, then the admission with the merchant's rate.
      expect(throttle.admitted.map((a) => a.ratePerSecond)).toEqual([0, 7]);
    });

    it('admits a merchant created after its id was cached as unknown', async () => {
      const throttle = new ScriptedThrottle(async () => NOT_THROTTLED);
      const { directory } = directoryOf(null, merchant);
      await expect(useCaseOver(directory, throttle).execute(request(basic('merchant.SHOP1', PASSWORD)))).resolves.toMatchObject({ merchant });
      expect(throttle.failures).toEqual([]);
    });

    it.each([
      ['a wrong password', merchant, rotated, 'wrong'],
      ['an unknown merchant', null, null, PASSWORD],
    ])('counts %s once, when the re-read profile refuses it too', async (_what, cached, stored, password) => {
      const throttle = new ScriptedThrottle(async () => NOT_THROTTLED);
      const { directory, storedSince } = directoryOf(cached, stored);
      await expect(useCaseOver(directory, throttle).execute(request(basic('merchant.SHOP1', password)))).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
      expect(storedSince).toHaveBeenCalledTimes(1);
      expect(throttle.failures).toEqual([{ merchantId: 'SHOP1', address: '192.0.2.1' }]);
    });

    it('is decided by the cached profile, and counted, when the database cannot be read', async () => {
      const throttle = new ScriptedThrottle(async () => NOT_THROTTLED);
      const { directory } = directoryOf(merchant, new Error('connection terminated'));
      await expect(useCaseOver(directory, throttle).execute(request(basic('merchant.SHOP1', 'wrong')))).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
      expect(throttle.failures).toEqual([{ merchantId: 'SHOP1', address: '192.0.2.1' }]);
    });
  });

  describe('after a pepper rotation (API_PASSWORD_PEPPERS)', () => {
    const NEW_PEPPER = 'p2:the-new-pepper-of-at-least-32-characters';
    /** p2 current, the legacy pepper (the one `merchant`'s h1 hash was made under) still verifying. */
    const rotatedPeppers = ApiPasswordPeppers.fromConfig({ API_PASSWORD_PEPPERS: NEW_PEPPER, API_PASSWORD_PEPPER: PEPPER });
    const onlyNewPepper = ApiPasswordPeppers.fromConfig({ API_PASSWORD_PEPPERS: NEW_PEPPER });

    function directoryHolding(known: MerchantEntity, replace: () => Promise<boolean> = async () => true) {
      const replacePasswordHash = jest.fn(async (_id: string, _which: string, _verified: string, _rehashed: string) => replace());
      const find = async (id: string) => (id === known.id ? known : null);
      return { directory: { find, storedSince: find, replacePasswordHash } as unknown as MerchantDirectory, replacePasswordHash };
    }
    const admit = () => new ScriptedThrottle(async () => NOT_THROTTLED);

    it('re-hashes a password that authenticated under an old pepper under the current one, replacing only the hash it verified', async () => {
      const { directory, replacePasswordHash } = directoryHolding(merchant);
      await expect(useCaseOver(directory, admit(), false, rotatedPeppers).execute(request(basic('merchant.SHOP1', PASSWORD)))).resolves.toMatchObject({
        method: 'PASSWORD',
      });
      expect(replacePasswordHash).toHaveBeenCalledTimes(1);
      const [id, which, verified, rehashed] = replacePasswordHash.mock.calls[0];
      expect([id, which, verified]).toEqual(['SHOP1', 'passwordHash', merchant.passwordHash]);
      expect(rehashed).toMatch(/^h2\$p2\$/);
      // The new hash works once the old pepper is gone; the old one does not.
      expect(onlyNewPepper.verify(PASSWORD, rehashed)).toBe(true);
      expect(onlyNewPepper.verify(PASSWORD, merchant.passwordHash!)).toBe(false);
    });

    it('leaves a hash under the current pepper alone: no write on the request path', async () => {
      const current: MerchantEntity = { ...merchant, passwordHash: rotatedPeppers.hash(PASSWORD) };
      const { directory, replacePasswordHash } = directoryHolding(current);
      await expect(useCaseOver(directory, admit(), false, rotatedPeppers).execute(request(basic('merchant.SHOP1', PASSWORD)))).resolves.toBeDefined();
      expect(replacePasswordHash).not.toHaveBeenCalled();
    });

    it('leaves the hashes alone while the legacy pepper is the only one (configurations from before rotation)', async () => {
      const { directory, replacePasswordHash } = directoryHolding(merchant);
      await expect(useCaseOver(directory, admit()).execute(request(basic('merchant.SHOP1', PASSWORD)))).resolves.toBeDefined();
      expect(replacePasswordHash).not.toHaveBeenCalled();
    });

    it('re-hashes the previous password (in its keep-previous window) when that is the one used, and only that one', async () => {
      const rotating: MerchantEntity = {
        ...merchant,
        passwordHash: hashApiPassword('new-password', PEPPER),
        previousPasswordHash: hashApiPassword(PASSWORD, PEPPER),
        previousPasswordExpiresAt: new Date(Date.now() + 60_000),
      };
      const { directory, replacePasswordHash } = directoryHolding(rotating);
      await useCaseOver(directory, admit(), false, rotatedPeppers).execute(request(basic('merchant.SHOP1', PASSWORD)));
      expect(replacePasswordHash.mock.calls.map(([, which, verified]) => [which, verified])).toEqual([['previousPasswordHash', rotating.previousPasswordHash]]);
      expect(onlyNewPepper.verify(PASSWORD, replacePasswordHash.mock.calls[0][3])).toBe(true);
    });

    it('re-hashes once per replica for a burst of requests made before the profile is read again', async () => {
      const { directory, replacePasswordHash } = directoryHolding(merchant);
      const authenticate = useCaseOver(directory, admit(), false, rotatedPeppers);
      await Promise.all([1, 2, 3].map(() => authenticate.execute(request(basic('merchant.SHOP1', PASSWORD)))));
      expect(replacePasswordHash).toHaveBeenCalledTimes(1);
    });

    it('still authenticates when the re-hash cannot be stored, and tries again on the next request', async () => {
      const { directory, replacePasswordHash } = directoryHolding(merchant, () => Promise.reject(new Error('connection terminated')));
      const authenticate = useCaseOver(directory, admit(), false, rotatedPeppers);
      await expect(authenticate.execute(request(basic('merchant.SHOP1', PASSWORD)))).resolves.toMatchObject({ method: 'PASSWORD' });
      await expect(authenticate.execute(request(basic('merchant.SHOP1', PASSWORD)))).resolves.toMatchObject({ method: 'PASSWORD' });
      expect(replacePasswordHash).toHaveBeenCalledTimes(2);
    });

    it('refuses a hash under a pepper no longer configured, and never re-hashes a wrong password', async () => {
      const { directory, replacePasswordHash } = directoryHolding(merchant);
      const throttle = admit();
      await expect(useCaseOver(directory, throttle, false, onlyNewPepper).execute(request(basic('merchant.SHOP1', PASSWORD)))).rejects.toMatchObject({
        code: 'INVALID_CREDENTIALS',
      });
      await expect(useCaseOver(directory, throttle, false, rotatedPeppers).execute(request(basic('merchant.SHOP1', 'wrong')))).rejects.toMatchObject({
        code: 'INVALID_CREDENTIALS',
      });
      expect(replacePasswordHash).not.toHaveBeenCalled();
    });

    it('costs an unknown merchant the same HMACs as a wrong password, with no legacy pepper left', async () => {
      const current: MerchantEntity = { ...merchant, passwordHash: onlyNewPepper.hash(PASSWORD) };
      const { directory } = directoryHolding(current);
      const hmacs = async (user: string) => {
        // The module object itself (an `import *` namespace is a copy the code under test does not call through).
        const spy = jest.spyOn(jest.requireActual<typeof import('node:crypto')>('node:crypto'), 'createHmac');
        try {
          await useCaseOver(directory, admit(), false, onlyNewPepper).execute(request(basic(user, 'wrong'))).catch(() => undefined);
          return spy.mock.calls.map(([algorithm]) => algorithm);
        } finally {
          spy.mockRestore();
        }
      };
      const wrongPassword = await hmacs('merchant.SHOP1');
      expect(wrongPassword.length).toBeGreaterThan(0);
      expect(await hmacs('merchant.NOSUCH')).toEqual(wrongPassword);
    });
  });
});
