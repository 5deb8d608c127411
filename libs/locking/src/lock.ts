/**
 * A lease on a key, held by one owner until released or expired. The fencing token grows on
 * every grant of the key, so a downstream store can refuse writes from an owner whose lease
 * has lapsed and been granted to someone else.
 */
export interface Lease {
  readonly key: string;
  /** Decimal integer string (it exceeds 2^53 in theory; compare as BigInt). */
  readonly fencingToken: string;
  /** Frees the key if this owner still holds it; false if the lease had already lapsed. */
  release(): Promise<boolean>;
  /** Pushes the expiry out if this owner still holds the key. */
  extend(ttlMs: number): Promise<boolean>;
}

export interface AcquireOptions {
  /** How long to keep trying before giving up. 0 tries once. */
  waitMs: number;
  /** How long the lease lasts unless released or extended. */
  ttlMs: number;
}

export interface LockService {
  /** The lease, or null when someone else held the key for the whole wait. */
  acquire(key: string, options: AcquireOptions): Promise<Lease | null>;
}

export const LOCK_SERVICE = Symbol('LOCK_SERVICE');

/** Retries with a short, jittered, growing pause until the deadline. */
export async function acquireWithin(
  tryOnce: () => Promise<Lease | null>,
  waitMs: number,
): Promise<Lease | null> {
  const deadline = Date.now() + waitMs;
  let pause = 2;
  for (;;) {
    const lease = await tryOnce();
    if (lease) {
      return lease;
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      return null;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(left, pause + Math.random() * pause)));
    pause = Math.min(pause * 2, 20);
  }
}
