import { MemoryLockService } from './memory-lock.service';
import { describeLockContract } from './testing/lock-contract';

describeLockContract('in-memory', () => new MemoryLockService());

describe('in-memory fencing tokens', () => {
  // The time floor is what keeps a restarted standalone process (a new, empty MemoryLockService)
  // from issuing tokens below the last_fencing_token the ledger kept for an order: a counter
  // alone would start again at 1, and every operation on every existing order would be refused
  // as ORDER_LOCK_LOST (LOCK_FAILURE) until it caught up.
  it('are at least the time of the grant in microseconds, so a restarted process never issues one older than the ledger has seen', async () => {
    const before = BigInt(Date.now()) * 1000n;
    const lease = await new MemoryLockService().acquire('restarted', { waitMs: 0, ttlMs: 5_000 });
    expect(BigInt(lease!.fencingToken)).toBeGreaterThanOrEqual(before);
  });
});
