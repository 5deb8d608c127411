import { defaultMerchantSettings } from '@gateway/contracts';
import { ApiPasswordPeppers, hashApiPassword } from '@gateway/crypto';
import { MemoryRequestThrottle, NOT_THROTTLED, RequestThrottle, ThrottleVerdict } from '@gateway/edge/data-access';
import { AcquireOptions, Lease, LockService, MemoryLockService } from '@gateway/locking';
import { createLogger, Metrics } from '@gateway/platform';
import { AuthenticateMerchant, PresentedCredentials } from '../authenticate-merchant/authenticate-merchant.use-case';
import { MerchantDirectory } from '../merchants/merchant-directory';
import { merchantEntity } from '../testing/merchant-entity';
import { AuthenticateOrderOperation } from './authenticate-order-operation.use-case';
import { OrderLocks } from './order-locks';

const PEPPER = 'unit-test-pepper-of-at-least-32-characters';
const PASSWORD = 'right-password';
const LIMITS = { failuresPerMerchant: 5, failuresPerAddress: 5, failureWindowMs: 60_000, blockMs: 60_000 };

const credentials: PresentedCredentials = {
  authorization: `Basic ${Buffer.from(`merchant.SHOP1:${PASSWORD}`).toString('base64')}`,
  clientAddress: '192.0.2.1',
  pathMerchantId: 'SHOP1',
};

function useCase(throttle: RequestThrottle, locks: LockService, rateLimitPerSecond = 0) {
  const merchant = merchantEntity({ settings: { ...defaultMerchantSettings(), rateLimitPerSecond }, passwordHash: hashApiPassword(PASSWORD, PEPPER) });
  const find = async (id: string) => (id === merchant.id ? merchant : null);
  const logger = createLogger({ service: 'test', level: 'silent' });
  const metrics = new Metrics();
  const authenticate = new AuthenticateMerchant(
    { find, storedSince: find } as unknown as MerchantDirectory,
    ApiPasswordPeppers.single(PEPPER),
    throttle,
    { requireCertificate: false },
    logger,
    metrics,
  );
  return new AuthenticateOrderOperation(authenticate, new OrderLocks(locks, logger, metrics), { waitMs: 100, ttlMs: 5_000 }, logger);
}

/** Whether another owner could take the order now. */
async function free(locks: LockService, key: string): Promise<boolean> {
  const lease = await locks.acquire(key, { waitMs: 0, ttlMs: 1_000 });
  await lease?.release();
  return lease !== null;
}

describe('AuthenticateOrderOperation', () => {
  it("sends the order lock's first try before the throttle has answered, and hands over the lease once admitted", async () => {
    let answer!: (verdict: ThrottleVerdict) => void;
    const throttle: RequestThrottle = {
      admit: () => new Promise<ThrottleVerdict>((resolve) => (answer = resolve)),
      recordFailure: async () => NOT_THROTTLED,
    };
    const memory = new MemoryLockService();
    const tried: Array<[string, AcquireOptions]> = [];
    const locks: LockService = { acquire: (key, options) => (tried.push([key, options]), memory.acquire(key, options)) };

    const authenticated = useCase(throttle, locks).execute(credentials, 'order-1');
    await new Promise(setImmediate);
    expect(tried).toEqual([['SHOP1:order-1', { waitMs: 0, ttlMs: 5_000 }]]);
    answer(NOT_THROTTLED);

    const { authenticated: merchant, lease } = await authenticated;
    expect(merchant).toMatchObject({ method: 'PASSWORD', merchant: { id: 'SHOP1' } });
    expect(lease).toMatchObject({ key: 'SHOP1:order-1' });
    expect(await free(memory, 'SHOP1:order-1')).toBe(false);
  });

  it('answers a request over its rate limit as AuthenticateMerchant does, its lease released before the answer, one admission each', async () => {
    const memory = new MemoryRequestThrottle(LIMITS);
    const admit = jest.fn(memory.admit.bind(memory));
    const locks = new MemoryLockService();
    const authenticate = useCase({ admit, recordFailure: memory.recordFailure.bind(memory) }, locks, 1);
    const { lease } = await authenticate.execute(credentials, 'order-1');
    await lease!.release();

    await expect(authenticate.execute(credentials, 'order-2')).rejects.toMatchObject({
      code: 'THROTTLED',
      explanation: "The merchant's request rate limit is exceeded. Please retry later.",
      retryAfterSeconds: 1,
    });

    expect(await free(locks, 'SHOP1:order-2')).toBe(true);
    expect(admit).toHaveBeenCalledTimes(2);
  });

  it('leaves a busy order to the operation, which waits for it once the request is checked', async () => {
    const locks = new MemoryLockService();
    const holder = await locks.acquire('SHOP1:order-1', { waitMs: 0, ttlMs: 5_000 });
    const { lease } = await useCase(new MemoryRequestThrottle(LIMITS), locks).execute(credentials, 'order-1');
    expect(lease).toBeNull();
    expect(await holder!.extend(5_000)).toBe(true);
  });

  it('tries no lock for an order id the path check refuses, nor when the credentials are refused', async () => {
    const acquire = jest.fn<Promise<Lease | null>, [string, AcquireOptions]>(async () => null);
    const authenticate = useCase(new MemoryRequestThrottle(LIMITS), { acquire });
    await expect(authenticate.execute(credentials, null)).resolves.toMatchObject({ lease: null });
    await expect(authenticate.execute({ ...credentials, authorization: 'Basic !!!' }, 'order-1')).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
    expect(acquire).not.toHaveBeenCalled();
  });
});
