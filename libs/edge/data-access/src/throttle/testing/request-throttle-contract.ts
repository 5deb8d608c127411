import { randomBytes } from 'node:crypto';
import { RequestThrottle, ThrottleLimits } from '../request-throttle';

/** Short periods, so the contract can watch blocks lift in real time. */
export const CONTRACT_LIMITS: ThrottleLimits = { failuresPerMerchant: 3, failuresPerAddress: 5, failureWindowMs: 600, blockMs: 300 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const id = (kind: string) => `${kind}-${randomBytes(4).toString('hex')}`;

/**
 * The behaviour both throttles promise, run against the in-memory one in unit tests and
 * against real Redis in integration tests.
 */
export function describeThrottleContract(name: string, create: (limits: ThrottleLimits) => RequestThrottle): void {
  describe(`${name} throttle contract`, () => {
    let throttle: RequestThrottle;
    const password = (merchantId: string, address: string) => ({ merchantId, address, subjectToFailureBlock: true, ratePerSecond: 0 });

    beforeEach(() => {
      throttle = create(CONTRACT_LIMITS);
    });

    it("blocks a merchant after its limit of failures, even its right password, until the block lifts", async () => {
      const merchant = id('m');
      for (let i = 0; i < 3; i++) {
        expect(await throttle.recordFailure({ merchantId: merchant, address: id('a') })).toEqual({ throttled: false });
      }
      const blocked = await throttle.admit(password(merchant, id('a')));
      expect(blocked).toMatchObject({ throttled: true, reason: 'AUTHENTICATION_FAILURES' });
      expect((blocked as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(200);
      expect((blocked as { retryAfterMs: number }).retryAfterMs).toBeLessThanOrEqual(300);
      expect(await throttle.recordFailure({ merchantId: merchant, address: id('a') })).toMatchObject({ throttled: true });
      await sleep(320);
      expect(await throttle.admit(password(merchant, id('a')))).toEqual({ throttled: false });
    });

    it('blocks an address after its limit, whichever merchants it tried, and no other address', async () => {
      const address = id('a');
      for (let i = 0; i < 5; i++) {
        await throttle.recordFailure({ merchantId: id('m'), address });
      }
      expect(await throttle.admit(password(id('m'), address))).toMatchObject({ throttled: true, reason: 'AUTHENTICATION_FAILURES' });
      expect(await throttle.admit(password(id('m'), id('a')))).toEqual({ throttled: false });
    });

    it("counts an unknown merchant's failures against the address", async () => {
      const address = id('a');
      for (let i = 0; i < 5; i++) {
        await throttle.recordFailure({ address });
      }
      expect(await throttle.recordFailure({ address })).toMatchObject({ throttled: true });
    });

    it('leaves other merchants alone', async () => {
      const merchant = id('m');
      for (let i = 0; i < 4; i++) await throttle.recordFailure({ merchantId: merchant, address: id('a') });
      expect(await throttle.admit(password(id('m'), id('a')))).toEqual({ throttled: false });
    });

    it('does not hold password failures against a client certificate', async () => {
      const merchant = id('m');
      const address = id('a');
      for (let i = 0; i < 6; i++) await throttle.recordFailure({ merchantId: merchant, address });
      expect(await throttle.admit({ merchantId: merchant, address, subjectToFailureBlock: false, ratePerSecond: 0 })).toEqual({
        throttled: false,
      });
    });

    it('forgets failures once their window has passed', async () => {
      const merchant = id('m');
      for (let i = 0; i < 2; i++) await throttle.recordFailure({ merchantId: merchant, address: id('a') });
      await sleep(650);
      for (let i = 0; i < 2; i++) await throttle.recordFailure({ merchantId: merchant, address: id('a') });
      expect(await throttle.admit(password(merchant, id('a')))).toEqual({ throttled: false });
    });

    it("admits a second's worth of a merchant's rate at once, then refuses with the wait, other merchants unaffected", async () => {
      const merchant = id('m');
      const admit = (m: string) => throttle.admit({ merchantId: m, address: id('a'), subjectToFailureBlock: false, ratePerSecond: 5 });
      const started = Date.now();
      for (let i = 0; i < 5; i++) {
        expect(await admit(merchant)).toEqual({ throttled: false });
      }
      const refused = await admit(merchant);
      const elapsed = Date.now() - started;
      expect(refused).toMatchObject({ throttled: true, reason: 'RATE_LIMIT' });
      const wait = (refused as { retryAfterMs: number }).retryAfterMs;
      // The next of 5 a second is due 200 ms after the first: what the admissions took (long on a
      // loaded machine) is already waited, give or take the clocks' milliseconds.
      expect(wait).toBeGreaterThan(200 - elapsed - 5);
      expect(wait).toBeLessThanOrEqual(200);
      expect(await admit(id('m'))).toEqual({ throttled: false });
      await sleep(wait + 10);
      expect(await admit(merchant)).toEqual({ throttled: false });
      expect(await admit(merchant)).toMatchObject({ throttled: true });
    });

    it('does not limit a merchant whose rate is 0', async () => {
      const merchant = id('m');
      for (let i = 0; i < 100; i++) {
        expect(await throttle.admit({ merchantId: merchant, address: id('a'), subjectToFailureBlock: true, ratePerSecond: 0 })).toEqual({
          throttled: false,
        });
      }
    });
  });
}
