import { defaultMerchantSettings } from '@gateway/contracts';
import { hashApiPassword } from '@gateway/crypto';
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

function useCaseOver(directory: MerchantDirectory, throttle: RequestThrottle, requireCertificate = false): AuthenticateMerchant {
  return new AuthenticateMerchant(directory, PEPPER, throttle, { requireCertificate }, createLogger({ service: 'test', level: 'silent' }), new Metrics());
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const request = (authorization?: string): PresentedCredentials => ({ authorization, clientAddress: '192.0.2.1', pathMerchantId: merchant.id });

describe('AuthenticateMerchant', () => {
  it("admits the right password through the throttle, with the merchant's rate and the failure block", async () => {
    const throttle = new ScriptedThrottle(async () => NOT_THROTTLED);
    await expect(useCase(throttle).execute(request(basic('merchant.SHOP1', PASSWORD)))).resolves.toMatchObject({ method: 'PASSWORD', merchant: { id: 'SHOP1' } });
    expect(throttle.admitted).toEqual([{ merchantId: 'SHOP1', address: '192.0.2.1', subjectToFailureBlock: true, ratePerSecond: 7 }]);
  });

  it.each([
    ['a wrong password', basic('merchant.SHOP1', 'wrong'), { merchantId: 'SHOP1', address: '192.0.2.1' }],
    ['an unknown merchant (against the id it claims, like a wrong password)', basic('merchant.NOSUCH', PASSWORD), { merchantId: 'NOSUCH', address: '192.0.2.1' }],
    ['a malformed header', 'Basic !!!', { address: '192.0.2.1' }],
    ['a user that is not merchant.<id>', basic('xmerchant.SHOP1', PASSWORD), { address: '192.0.2.1' }],
  ])('counts %s as a failure and answers 401', async (_what, authorization, failure) => {
    const throttle = new ScriptedThrottle(async () => NOT_THROTTLED);
    await expect(useCase(throttle).execute(request(authorization))).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
    expect(throttle.failures).toEqual([failure]);
    expect(throttle.admitted).toEqual([]);
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
      expect(throttle.admitted).toHaveLength(1);
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
});
