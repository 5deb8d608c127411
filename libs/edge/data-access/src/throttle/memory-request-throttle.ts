import {
  AdmitRequest,
  FailedAuthentication,
  NOT_THROTTLED,
  RequestThrottle,
  throttled,
  ThrottleLimits,
  throttleKeys,
  ThrottleVerdict,
} from './request-throttle';

interface Counter {
  count: number;
  expiresAt: number;
  /** The limit was reached: a block in force until `expiresAt`. */
  blocking?: true;
}

/** Entries kept before expired ones are swept; bounds memory under a flood of addresses. */
const SWEEP_AT = 10_000;
/**
 * Failure counters kept at most. Failures count against any merchant id claimed, guessed ones
 * included, so a flood of guesses within one window could otherwise grow the process without
 * bound; past the cap the oldest counters are dropped (Redis bounds the same keys by their TTL).
 */
const MAX_FAILURE_ENTRIES = 100_000;

/**
 * The standalone profile's throttle: the Redis throttle's contract for one process (same
 * fixed failure windows, same GCRA rate limit), so tests and laptops see the same behaviour.
 */
export class MemoryRequestThrottle implements RequestThrottle {
  private readonly failures = new Map<string, Counter>();
  /** GCRA's theoretical arrival time per merchant, in ms. */
  private readonly arrivals = new Map<string, number>();

  constructor(
    private readonly limits: ThrottleLimits,
    private readonly now: () => number = () => performance.timeOrigin + performance.now(),
    private readonly maxFailureEntries = MAX_FAILURE_ENTRIES,
  ) {}

  /** Failure counters held, for tests of the cap. */
  get failureEntries(): number {
    return this.failures.size;
  }

  async admit(request: AdmitRequest): Promise<ThrottleVerdict> {
    const now = this.now();
    if (request.subjectToFailureBlock) {
      const wait = Math.max(
        this.blockedFor(throttleKeys.merchantFailures(request.merchantId), this.limits.failuresPerMerchant, now),
        this.blockedFor(throttleKeys.addressFailures(request.address), this.limits.failuresPerAddress, now),
      );
      if (wait > 0) {
        return throttled('AUTHENTICATION_FAILURES', wait);
      }
    }
    if (request.ratePerSecond > 0) {
      const key = throttleKeys.merchantRate(request.merchantId);
      const interval = 1000 / request.ratePerSecond;
      const tolerance = 1000 - interval;
      const arrival = Math.max(this.arrivals.get(key) ?? 0, now);
      if (arrival - now > tolerance) {
        return throttled('RATE_LIMIT', arrival - now - tolerance);
      }
      this.arrivals.set(key, arrival + interval);
      this.sweep(now);
    }
    return NOT_THROTTLED;
  }

  async recordFailure(failure: FailedAuthentication): Promise<ThrottleVerdict> {
    const now = this.now();
    const counted = [throttleKeys.addressFailures(failure.address)];
    const waits = [this.count(counted[0], this.limits.failuresPerAddress, now)];
    if (failure.merchantId !== undefined) {
      counted.push(throttleKeys.merchantFailures(failure.merchantId));
      waits.push(this.count(counted[1], this.limits.failuresPerMerchant, now));
    }
    this.sweep(now, counted);
    const wait = Math.max(...waits);
    return wait > 0 ? throttled('AUTHENTICATION_FAILURES', wait) : NOT_THROTTLED;
  }

  private blockedFor(key: string, limit: number, now: number): number {
    const counter = this.live(key, now);
    return counter && counter.count >= limit ? counter.expiresAt - now : 0;
  }

  /** Counts one failure; the time left blocked if the limit had already been reached. */
  private count(key: string, limit: number, now: number): number {
    const counter = this.live(key, now) ?? { count: 0, expiresAt: now + this.limits.failureWindowMs };
    counter.count++;
    if (counter.count === limit) {
      counter.expiresAt = now + this.limits.blockMs;
      counter.blocking = true;
    }
    this.failures.set(key, counter);
    return counter.count > limit ? counter.expiresAt - now : 0;
  }

  private live(key: string, now: number): Counter | undefined {
    const counter = this.failures.get(key);
    if (counter && counter.expiresAt <= now) {
      this.failures.delete(key);
      return undefined;
    }
    return counter;
  }

  /**
   * Past the cap, counters still counting are dropped first, those of the oldest first failures
   * first (a Map iterates in insertion order): a flood of guessed ids, each failing once, then
   * cannot push out the blocks in force, which are what the throttle is for. Blocks go only if
   * the cap is still exceeded. The counters of the failure just `counted` always stay: with the
   * cap full of blocks they would otherwise be dropped as soon as made, and never block.
   */
  private dropBeyondCap(counted: readonly string[]): void {
    for (const dropBlocks of [false, true]) {
      for (const [key, counter] of this.failures) {
        if (this.failures.size <= this.maxFailureEntries) return;
        if ((dropBlocks || !counter.blocking) && !counted.includes(key)) this.failures.delete(key);
      }
    }
  }

  private sweep(now: number, counted: readonly string[] = []): void {
    if (this.failures.size > SWEEP_AT) {
      for (const [key, counter] of this.failures) {
        if (counter.expiresAt <= now) this.failures.delete(key);
      }
    }
    this.dropBeyondCap(counted);
    if (this.arrivals.size > SWEEP_AT) {
      for (const [key, arrival] of this.arrivals) {
        if (arrival <= now) this.arrivals.delete(key);
      }
    }
  }
}
