import { defaultMerchantSettings } from '@gateway/contracts';
import { hashApiPassword } from '@gateway/crypto';
import { AdmitRequest, FailedAuthentication, MerchantEntity, NOT_THROTTLED, RequestThrottle, throttled, ThrottleVerdict } from '@gateway/edge/data-access';
import { createLogger, Metrics } from '@gateway/platform';
import { MerchantDirectory } from '../merchants/merchant-directory';
import { AuthenticateMerchant, PresentedCredentials } from './authenticate-merchant.use-case';

const PEPPER = 'unit-test-pepper-of-at-least-32-characters';
const PASSWORD = 'right-password';

const merchant: MerchantEntity = {
  id: 'SHOP1',
  name: 'Shop',
  mode: 'TEST',
  status: 'ENABLED',
  settings: { ...defaultMerchantSettings(), rateLimitPerSecond: 7 },
  passwordHash: hashApiPassword(PASSWORD, PEPPER),
  previousPasswordHash: null,
  previousPasswordExpiresAt: null,
  createdAt: new Date(),
  updatedAt: new Date(),
};

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

function useCase(throttle: RequestThrottle, requireCertificate = false): AuthenticateMerchant {
  const directory = { find: async (id: string) => (id === merchant.id ? merchant : null) } as unknown as MerchantDirectory;
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
    ['an unknown merchant', basic('merchant.NOSUCH', PASSWORD), { address: '192.0.2.1' }],
    ['a malformed header', 'Basic !!!', { address: '192.0.2.1' }],
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

  it('requires a certificate when configured to, even with the right password', async () => {
    const throttle = new ScriptedThrottle(async () => NOT_THROTTLED);
    await expect(useCase(throttle, true).execute(request(basic('merchant.SHOP1', PASSWORD)))).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
    expect(throttle.failures).toEqual([]);
  });
});
