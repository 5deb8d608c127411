import { LockService } from '../lock';

/**
 * The behaviour both lock implementations promise, run against the in-memory one in unit
 * tests and against real Redis in integration tests.
 */
export function describeLockContract(name: string, create: () => LockService | Promise<LockService>): void {
  describe(`${name} lock contract`, () => {
    let locks: LockService;
    let n = 0;
    const key = () => `contract:${Date.now()}:${++n}`;

    beforeEach(async () => {
      locks = await create();
    });

    it('never has two holders among 50 concurrent contenders', async () => {
      const k = key();
      let holders = 0;
      let maxHolders = 0;
      let granted = 0;
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          const lease = await locks.acquire(k, { waitMs: 3_000, ttlMs: 5_000 });
          if (!lease) {
            return;
          }
          granted++;
          holders++;
          maxHolders = Math.max(maxHolders, holders);
          await new Promise((resolve) => setTimeout(resolve, 2));
          holders--;
          await lease.release();
        }),
      );
      expect(maxHolders).toBe(1);
      expect(granted).toBeGreaterThan(1);
    });

    it('refuses a second owner while the lease is held, for the whole bounded wait', async () => {
      const k = key();
      const first = await locks.acquire(k, { waitMs: 0, ttlMs: 5_000 });
      expect(first).not.toBeNull();
      const started = Date.now();
      const second = await locks.acquire(k, { waitMs: 100, ttlMs: 5_000 });
      expect(second).toBeNull();
      expect(Date.now() - started).toBeGreaterThanOrEqual(95);
      await first!.release();
      expect(await locks.acquire(k, { waitMs: 0, ttlMs: 5_000 })).not.toBeNull();
    });

    // Leases here are long enough that a loaded machine's pauses between two calls cannot
    // expire them by accident; only the deliberate waits do.
    it('frees the key when the lease expires', async () => {
      const k = key();
      expect(await locks.acquire(k, { waitMs: 0, ttlMs: 600 })).not.toBeNull();
      expect(await locks.acquire(k, { waitMs: 0, ttlMs: 600 })).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(await locks.acquire(k, { waitMs: 0, ttlMs: 600 })).not.toBeNull();
    });

    it('does not let a stale owner release or extend the next owner\'s lease', async () => {
      const k = key();
      const stale = await locks.acquire(k, { waitMs: 0, ttlMs: 40 });
      await new Promise((resolve) => setTimeout(resolve, 70));
      const current = await locks.acquire(k, { waitMs: 0, ttlMs: 5_000 });
      expect(current).not.toBeNull();
      expect(await stale!.release()).toBe(false);
      expect(await stale!.extend(10_000)).toBe(false);
      // The current owner still holds the key.
      expect(await locks.acquire(k, { waitMs: 0, ttlMs: 5_000 })).toBeNull();
      expect(await current!.release()).toBe(true);
    });

    it('lets the owner extend its lease past the original expiry', async () => {
      const k = key();
      const lease = await locks.acquire(k, { waitMs: 0, ttlMs: 600 });
      expect(await lease!.extend(5_000)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(await locks.acquire(k, { waitMs: 0, ttlMs: 600 })).toBeNull();
    });

    it('issues fencing tokens that only grow', async () => {
      const k = key();
      let previous = 0n;
      for (let i = 0; i < 30; i++) {
        const lease = await locks.acquire(k, { waitMs: 0, ttlMs: 5_000 });
        const token = BigInt(lease!.fencingToken);
        expect(token).toBeGreaterThan(previous);
        previous = token;
        await lease!.release();
      }
    });
  });
}
