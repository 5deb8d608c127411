import { randomUUID } from 'node:crypto';
import { AcquireOptions, acquireWithin, Lease, LockService } from './lock';

interface Held {
  owner: string;
  expiresAt: number;
}

/**
 * The standalone profile's lock: the Redis lock's contract for one process (same fencing
 * rule: max(last + 1, now in microseconds)).
 */
export class MemoryLockService implements LockService {
  private readonly held = new Map<string, Held>();
  private readonly fences = new Map<string, bigint>();

  acquire(key: string, options: AcquireOptions): Promise<Lease | null> {
    const owner = randomUUID();
    return acquireWithin(async () => this.tryAcquire(key, owner, options.ttlMs), options.waitMs);
  }

  private tryAcquire(key: string, owner: string, ttlMs: number): Lease | null {
    const now = Date.now();
    const current = this.held.get(key);
    if (current && current.expiresAt > now) {
      return null;
    }
    this.held.set(key, { owner, expiresAt: now + ttlMs });
    const nowMicros = BigInt(now) * 1000n;
    const next = (this.fences.get(key) ?? 0n) + 1n;
    const fence = next > nowMicros ? next : nowMicros;
    this.fences.set(key, fence);
    if (this.fences.size > 10_000) {
      this.prune(now);
    }
    return {
      key,
      fencingToken: fence.toString(),
      release: async () => {
        const held = this.held.get(key);
        if (held?.owner === owner && held.expiresAt > Date.now()) {
          this.held.delete(key);
          return true;
        }
        return false;
      },
      extend: async (extendMs: number) => {
        const held = this.held.get(key);
        if (held?.owner === owner && held.expiresAt > Date.now()) {
          held.expiresAt = Date.now() + extendMs;
          return true;
        }
        return false;
      },
    };
  }

  /**
   * Forgets fences the time floor already dominates (older than a second) and lapsed
   * leases, so a long-running standalone process does not keep one entry per order forever.
   */
  private prune(now: number): void {
    const floor = BigInt(now - 1000) * 1000n;
    for (const [key, fence] of this.fences) {
      if (fence < floor && !this.held.has(key)) {
        this.fences.delete(key);
      }
    }
    for (const [key, held] of this.held) {
      if (held.expiresAt <= now) {
        this.held.delete(key);
      }
    }
  }
}
